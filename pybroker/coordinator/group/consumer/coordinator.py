"""The KIP-848 consumer group coordinator: ConsumerGroupHeartbeat and ConsumerGroupDescribe,
and the consumer-group side of offset commits, ListGroups and DeleteGroups (Kafka 4's
``GroupMetadataManager`` for groups of type ``consumer``).

Theory of operation
-------------------
One heartbeat (:meth:`ConsumerGroupCoordinator.heartbeat`) is one operation: it validates the
request, builds the records of every change it makes (the member's metadata, a new group
epoch, a new target assignment, the member's next assignment), replays each into the group as
it is built (:meth:`ConsumerGroup.replay <.group.ConsumerGroup.replay>`), and writes them to
the group's ``__consumer_offsets`` partition as one batch. The answer goes out once the batch
is replicated; if the write fails, the group is put back as it was before the operation
(Kafka reverts its timeline snapshot) and the member gets the write's error.

The epochs (notes in docs/consumer-groups.md):

* the *group epoch* moves whenever the membership, a subscription or the metadata of a
  subscribed topic changes (the hash of those topics is kept with it);
* the *assignment epoch* is the group epoch the target assignment was computed for: when the
  group epoch is ahead, the next heartbeat runs the assignor (``uniform`` or ``range``);
* each *member epoch* reaches the assignment epoch once the member has reconciled
  (:mod:`.reconciliation`): revoking before anything it gives up goes to another member.

Only the member that heartbeats is reconciled; the others catch up on their own heartbeats.

Timers (on the coordinator's scheduler):

* ``("consumer-session", group, member)``: pushed back by every heartbeat; when it fires the
  member is fenced (removed, and the group epoch bumped), static members at epoch -2 too;
* ``("consumer-rebalance", group, member)``: started when the member must revoke partitions;
  if it is still at that epoch when the timer fires (its rebalance timeout), it is fenced.

The group id namespace is shared with the classic protocol: a heartbeat with epoch 0 replaces
an *empty* classic group (its metadata tombstoned in the same batch), and converts a classic
group with members into a consumer group of classic members when the migration policy allows
an upgrade (:meth:`ConsumerGroupCoordinator._upgrade`); otherwise it answers
GROUP_ID_NOT_FOUND.

Classic members (a mixed group, Kafka's ``classicGroup*ToConsumerGroup``): a classic JoinGroup
for a consumer group with members joins it (:meth:`ConsumerGroupCoordinator.classic_join`),
with the subscription and owned partitions its protocol metadata embeds. It goes through the
same steps as a heartbeat and is answered with its member epoch as the generation and no member
list; SyncGroup gives it its current assignment, encoded with the consumer protocol at its
subscription's version; Heartbeat tells it to rejoin (REBALANCE_IN_PROGRESS) when the group
epoch moved on, when it has partitions to revoke or when partitions it waits for are free. It
keeps its own session timeout, and instead of the rebalance timer has two of its own:
``("consumer-classic-sync", group, member)`` from its join to its SyncGroup and
``("consumer-classic-join", group, member)`` from being told to rejoin to its JoinGroup; either
fences it when it fires.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import struct
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import re2

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    consumer_group_describe_response as cgd,
    consumer_group_heartbeat_request as req_m,
    consumer_group_heartbeat_response as cgh,
    consumer_protocol_assignment as cpa,
    consumer_protocol_subscription as cps,
)
from protocol.primitives import Reader
from pybroker.config import broker_value
from pybroker.kernel.outcome import Outcome, when_ready

from ..group import JoinGroupResult, SyncGroupResult
from ..join import JoinRequest
from ..membership import LeaveGroupResult, LeavingMember, MemberLeaveResult
from ..sync import SyncRequest
from ..timers import Scheduler
from .assignors import MemberSubscription, assignor
from .group import ConsumerGroup
from .member import (
    EMPTY_ASSIGNMENT,
    LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    Assignment,
    ClassicMemberMetadata,
    ConsumerGroupMember,
    MemberState,
    assignment,
    is_subset,
)
from .reconciliation import reconcile
from .records import (
    CurrentAssignment,
    GroupEpoch,
    MemberMetadata,
    Record,
    RegularExpression,
    ResolvedRegex,
    TargetAssignmentEpoch,
    TargetAssignmentMember,
    serialize,
)

log = logging.getLogger(__name__)

E = ErrorCode

#: a regex is not resolved again within this long of its last resolution (Kafka's
#: REGEX_BATCH_REFRESH_MIN_INTERVAL_MS)
REGEX_REFRESH_MIN_INTERVAL_MS = 10_000

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False

_INT64 = struct.Struct(">q")
_INT16 = struct.Struct(">h")


@dataclass(frozen=True, slots=True)
class ConsumerGroupConfig:
    """The broker's ``group.consumer.*`` properties (Kafka 4's ``GroupCoordinatorConfig``)."""

    enabled: bool = True
    session_timeout_ms: int = 45000
    heartbeat_interval_ms: int = 5000
    max_size: int = 2**31 - 1
    assignors: tuple[str, ...] = ("uniform", "range")
    migration_policy: str = "bidirectional"

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> ConsumerGroupConfig:
        """Refuses (ValueError, Kafka's messages) bounds that contradict each other, as
        Kafka's ``GroupCoordinatorConfig`` does at start-up."""
        def value(name: str) -> int:
            return broker_value(props, name)

        for kind in ("heartbeat.interval.ms", "session.timeout.ms"):
            base = f"group.consumer.{kind}"
            lo, hi = f"group.consumer.min.{kind}", f"group.consumer.max.{kind}"
            for ok, message in ((value(hi) >= value(lo), f"{hi} must be greater than or equal to {lo}"),
                                (value(base) >= value(lo), f"{base} must be greater than or equal to {lo}"),
                                (value(base) <= value(hi), f"{base} must be less than or equal to {hi}")):
                if not ok:
                    raise ValueError(message)
        if value("group.consumer.heartbeat.interval.ms") >= \
                value("group.consumer.session.timeout.ms"):
            raise ValueError("group.consumer.heartbeat.interval.ms must be less than "
                             "group.consumer.session.timeout.ms")
        return cls(
            enabled="consumer" in broker_value(props, "group.coordinator.rebalance.protocols"),
            session_timeout_ms=broker_value(props, "group.consumer.session.timeout.ms"),
            heartbeat_interval_ms=broker_value(props, "group.consumer.heartbeat.interval.ms"),
            max_size=broker_value(props, "group.consumer.max.size"),
            assignors=assignor_names(broker_value(props, "group.consumer.assignors")),
            migration_policy=str(broker_value(props, "group.consumer.migration.policy")).lower(),
        )


class GroupTimeouts(Protocol):
    """A group's session timeout and heartbeat interval: its group configs or the broker's
    (:class:`pybroker.config.groups.GroupConfigs`)."""

    def session_timeout_ms(self, group: str) -> int: ...

    def heartbeat_interval_ms(self, group: str) -> int: ...


@dataclass(frozen=True, slots=True)
class _BrokerTimeouts:
    config: ConsumerGroupConfig

    def session_timeout_ms(self, group: str) -> int:
        return self.config.session_timeout_ms

    def heartbeat_interval_ms(self, group: str) -> int:
        return self.config.heartbeat_interval_ms


#: Kafka's assignor classes, by the names the protocol carries
ASSIGNOR_CLASSES = {
    "org.apache.kafka.coordinator.group.assignor.UniformAssignor": "uniform",
    "org.apache.kafka.coordinator.group.assignor.RangeAssignor": "range",
}


def assignor_names(configured: list[str]) -> tuple[str, ...]:
    """``group.consumer.assignors`` (Kafka's class names or the assignors' names) as names;
    ValueError for one pybroker does not have, or none."""
    names = []
    for item in configured:
        name = ASSIGNOR_CLASSES.get(item, item)
        if name not in ASSIGNOR_CLASSES.values():
            raise ValueError(f"Invalid value {item} for configuration group.consumer.assignors: "
                             "the assignors are uniform and range (or Kafka's classes of them)")
        names.append(name)
    if not names:
        raise ValueError("group.consumer.assignors must contain at least one assignor.")
    return tuple(names)


class ConsumerGroupStore(Protocol):
    def write_records(self, group_id: str, records: Sequence[tuple[bytes, bytes | None]],
                      now_ms: int) -> Outcome[ErrorCode]:
        """Append the records to the group's partition as one batch, replicated; the
        client-facing error (Kafka's mapping of append errors), at once or later."""


class Topics(Protocol):
    """The cluster's topics as the coordinator needs them (the metadata cache): by name, each
    with ``topic_id`` and ``partitions``."""

    @property
    def topics(self) -> Mapping[str, Any]: ...

    def topic(self, name: str) -> Any | None: ...

    def topic_name(self, topic_id: uuid.UUID) -> str | None: ...


@dataclass(slots=True)
class _Operation:
    """The records one operation builds, replayed into its group as they are added."""

    group: ConsumerGroup
    records: list[Record | tuple[bytes, bytes | None]] = field(default_factory=list)
    #: what to do once the records are written (a downgrade hands the group over)
    after: list[Callable[[], None]] = field(default_factory=list)

    def add(self, record: Record) -> None:
        self.group.replay(record)
        self.records.append(record)


def _hb_error(code: ErrorCode, message: str | None = None) -> cgh.ConsumerGroupHeartbeatResponse:
    return cgh.ConsumerGroupHeartbeatResponse(error_code=code, error_message=message)


def _owned(topic_partitions: list[req_m.TopicPartitions] | None) -> Assignment | None:
    if topic_partitions is None:
        return None
    return assignment({tp.topic_id: tp.partitions for tp in topic_partitions})


def _fenced_instance(member_id: str, instance_id: str | None, owner: str) -> KafkaError:
    """FENCED_INSTANCE_ID, in Kafka's words: the instance belongs to another member id."""
    return KafkaError(E.FENCED_INSTANCE_ID, f"Static member {member_id} with instance id "
                                            f"{instance_id} was fenced by member {owner}.")


def _not_a_consumer_group(group_id: str) -> KafkaError:
    """GROUP_ID_NOT_FOUND for a classic group a consumer-protocol member may not upgrade."""
    return KafkaError(E.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group")


def new_member_id() -> str:
    """A member id as Kafka makes one (``Uuid.randomUuid().toString()``: 16 random bytes in
    URL-safe base64 without padding), for a v0 join that sends none."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


def session_key(group_id: str, member_id: str) -> tuple[str, str, str]:
    return ("consumer-session", group_id, member_id)


def rebalance_key(group_id: str, member_id: str) -> tuple[str, str, str]:
    return ("consumer-rebalance", group_id, member_id)


def join_key(group_id: str, member_id: str) -> tuple[str, str, str]:
    """A classic member told to rejoin must do so within its rebalance timeout."""
    return ("consumer-classic-join", group_id, member_id)


def sync_key(group_id: str, member_id: str) -> tuple[str, str, str]:
    """A classic member that joined must send SyncGroup within its rebalance timeout."""
    return ("consumer-classic-sync", group_id, member_id)


CONSUMER_PROTOCOL_TYPE = "consumer"


def classic_subscription(protocols: Sequence[tuple[str, bytes]],
                         ) -> cps.ConsumerProtocolSubscription:
    """The subscription a classic member embeds in its JoinGroup (every protocol carries the
    same one; Kafka reads the first), at the version it was written in, capped at the newest
    this broker knows; INCONSISTENT_GROUP_PROTOCOL when it does not parse."""
    try:
        r = Reader(protocols[0][1])
        version = r.int16()
        if version < 0:
            raise ValueError(version)
        return cps.read(r, min(version, cps.VALID_VERSIONS[1]))
    except Exception as exc:  # noqa: BLE001 - any malformed bytes are the client's error
        raise KafkaError(E.INCONSISTENT_GROUP_PROTOCOL,
                         "Malformed embedded consumer protocol in subscription "
                         "deserialization.") from exc


def _protocol_version(metadata: bytes) -> int:
    try:
        return max(0, min(Reader(metadata).int16(), cpa.VALID_VERSIONS[1]))
    except Exception:  # noqa: BLE001
        return 0


#: RE2's error texts -> RE2/J's (``com.google.re2j.Parser``), which Kafka's messages carry
_RE2J_ERRORS = {
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "invalid named capture group": "invalid named capture",
}


def compile_regex(regex: str) -> Any:
    """The RE2 pattern, or INVALID_REGULAR_EXPRESSION with Kafka's message (RE2/J's words for
    the error)."""
    try:
        return re2.compile(regex, _RE2_OPTIONS)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else b""
        text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
        code = text.split(": ", 1)[0]
        raise KafkaError(E.INVALID_REGULAR_EXPRESSION,
                         f"SubscribedTopicRegex `{regex}` is not a valid regular expression: "
                         f"{_RE2J_ERRORS.get(code, code)}.") from None


class ConsumerGroupCoordinator:
    """See the module docstring. Clock-free: every entry point takes ``now_ms``."""

    def __init__(self, config: ConsumerGroupConfig, store: ConsumerGroupStore,
                 scheduler: Scheduler, topics: Topics, *,
                 is_coordinator_for: Callable[[str], bool] | None = None,
                 is_loading: Callable[[str | None], bool] | None = None,
                 classic_group: Callable[[str], Any | None] | None = None,
                 drop_classic_group: Callable[[str, int], tuple[bytes, bytes | None] | None]
                 | None = None, group_configs: GroupTimeouts | None = None,
                 hand_over_classic_group: Callable[[str, int], tuple[Any, tuple[bytes, None]]
                                                   | None] | None = None,
                 downgrade_classic_group: Callable[
                     [str, int, list[tuple[ConsumerGroupMember, bytes]], int],
                     tuple[tuple[bytes, bytes], Callable[[], None]] | None] | None = None,
                 ) -> None:
        """``classic_group(group_id)`` is the classic group of that id, if any (the ids are
        one namespace); ``drop_classic_group(group_id, now_ms)`` forgets an empty one and
        gives the tombstone of its metadata for the batch that replaces it;
        ``group_configs`` each group's session timeout and heartbeat interval (its group
        configs, KIP-848; without them, the broker's); ``hand_over_classic_group(group_id,
        now_ms)`` takes a classic group with members from the classic coordinator for an online
        upgrade, with the tombstone of its metadata; ``downgrade_classic_group(group_id,
        generation, members with their assignments, now_ms)`` the metadata record of the
        classic group a downgrade makes and what serves it once written (None: it may not)."""
        self.config = config
        self.group_configs: GroupTimeouts = group_configs or _BrokerTimeouts(config)
        self.store = store
        self.scheduler = scheduler
        self.topics = topics
        self._is_coordinator_for = is_coordinator_for or (lambda _gid: True)
        self._is_loading = is_loading or (lambda _gid: False)
        self._classic_group = classic_group or (lambda _gid: None)
        self._drop_classic_group = drop_classic_group or (lambda _gid, _now: None)
        self._hand_over_classic_group = hand_over_classic_group or (lambda _gid, _now: None)
        self._downgrade_classic_group = downgrade_classic_group or (
            lambda _gid, _gen, _members, _now: None)
        self._groups: dict[str, ConsumerGroup] = {}
        self._regex_checked: dict[tuple[str, str], int] = {}
        self._active = False

    # -- life cycle ------------------------------------------------------------------------

    def startup(self) -> None:
        self._active = True

    def shutdown(self) -> None:
        self._active = False
        self.unload_groups(list(self._groups))

    def load_group(self, group: ConsumerGroup, now_ms: int) -> None:
        """A group rebuilt from its records by a load: members get fresh session timers and
        those revoking a fresh rebalance timer (Kafka's ``onLoaded``)."""
        self._drop_timers(self._groups.get(group.group_id))
        self._groups[group.group_id] = group
        for member in group.members.values():
            # a classic member keeps its own session timeout, and has no rebalance timer
            classic = member.classic
            self._schedule_session(group.group_id, member.member_id, now_ms,
                                   classic.session_timeout_ms if classic else None)
            if member.state is MemberState.UNREVOKED_PARTITIONS and classic is None:
                self._schedule_rebalance(group.group_id, member, now_ms)

    def unload_groups(self, group_ids: Iterable[str]) -> None:
        for group_id in list(group_ids):
            self._drop_timers(self._groups.pop(group_id, None))

    def _drop_timers(self, group: ConsumerGroup | None) -> None:
        if group is None:
            return
        for member_id in group.members:
            for key in (session_key, rebalance_key, join_key, sync_key):
                self.scheduler.cancel(key(group.group_id, member_id))

    # -- queries ---------------------------------------------------------------------------

    def group(self, group_id: str) -> ConsumerGroup | None:
        return self._groups.get(group_id)

    def groups(self) -> list[ConsumerGroup]:
        return list(self._groups.values())

    def _status(self, group_id: str) -> ErrorCode:
        if not self._active:
            return E.COORDINATOR_NOT_AVAILABLE
        if not self._is_coordinator_for(group_id):
            return E.NOT_COORDINATOR
        if self._is_loading(group_id):
            return E.COORDINATOR_LOAD_IN_PROGRESS
        return E.NONE

    # -- ConsumerGroupHeartbeat ------------------------------------------------------------

    def validate(self, request: req_m.ConsumerGroupHeartbeatRequest, version: int) -> None:
        """Kafka's ``throwIfConsumerGroupHeartbeatRequestIsInvalid``: INVALID_REQUEST and
        UNSUPPORTED_ASSIGNOR with Kafka's messages."""
        def invalid(message: str) -> KafkaError:
            return KafkaError(E.INVALID_REQUEST, message)

        epoch = request.member_epoch
        if version >= 1 and not request.member_id:
            raise invalid("MemberId can't be empty.")
        if not request.group_id.strip():
            raise invalid("GroupId can't be empty.")
        if request.instance_id is not None and not request.instance_id.strip():
            raise invalid("InstanceId can't be empty.")
        if request.rack_id is not None and not request.rack_id.strip():
            raise invalid("RackId can't be empty.")
        if epoch > 0 or epoch == LEAVE_GROUP_MEMBER_EPOCH:
            if not request.member_id:
                raise invalid("MemberId can't be empty.")
        elif epoch == 0:
            if request.rebalance_timeout_ms == -1:
                raise invalid("RebalanceTimeoutMs must be provided in first request.")
            if request.topic_partitions is None or request.topic_partitions:
                raise invalid("TopicPartitions must be empty when (re-)joining.")
            regex = request.subscribed_topic_regex if version >= 1 else None
            if request.subscribed_topic_names is None and regex is None:
                raise invalid("Either SubscribedTopicNames or SubscribedTopicRegex must be "
                              "non-null when (re-)joining.")
        elif epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            if request.instance_id is None:
                raise invalid("InstanceId can't be null.")
        else:
            raise invalid("MemberEpoch is invalid.")
        if request.server_assignor is not None and \
                request.server_assignor not in self.config.assignors:
            raise KafkaError(E.UNSUPPORTED_ASSIGNOR,
                             f"ServerAssignor {request.server_assignor} is not supported. "
                             f"Supported assignors: {', '.join(self.config.assignors)}.")

    def heartbeat(self, request: req_m.ConsumerGroupHeartbeatRequest, version: int,
                  client_id: str, client_host: str, now_ms: int,
                  ) -> Outcome[cgh.ConsumerGroupHeartbeatResponse]:
        """One ConsumerGroupHeartbeat: its answer, at once or once its records are written."""
        try:
            self.validate(request, version)
        except KafkaError as exc:
            return _hb_error(exc.code, exc.message)
        status = self._status(request.group_id)
        if status:
            return _hb_error(status)
        group_id = request.group_id
        before = self._groups.get(group_id)
        snapshot = before.copy() if before is not None else None
        try:
            if request.member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
                op, response = self._leave(request, now_ms)
            else:
                op, response = self._join_or_heartbeat(request, version, client_id, client_host,
                                                       now_ms)
        except KafkaError as exc:
            self._restore(group_id, snapshot, None)
            return _hb_error(exc.code, exc.message)
        return self._write(op, snapshot, response, now_ms)

    def _write(self, op: _Operation, snapshot: ConsumerGroup | None,
               response: cgh.ConsumerGroupHeartbeatResponse, now_ms: int,
               ) -> Outcome[cgh.ConsumerGroupHeartbeatResponse]:
        if not op.records:
            return response
        group_id = op.group.group_id
        changes = op.group.changes
        data = [r if isinstance(r, tuple) else serialize(r) for r in op.records]
        outcome = self.store.write_records(group_id, data, now_ms)

        def written(error: ErrorCode) -> cgh.ConsumerGroupHeartbeatResponse:
            if not error:
                for action in op.after:
                    action()
                return response
            self._restore(group_id, snapshot, changes)
            return _hb_error(error)

        return when_ready(outcome, written)

    def _restore(self, group_id: str, snapshot: ConsumerGroup | None,
                 changes: int | None) -> None:
        """Put the group back as it was before a failed operation (None: it did not exist),
        unless another operation has changed it since (``changes`` is the group's change count
        after the failed one; the coordinator of such a failure is on its way out anyway)."""
        current = self._groups.get(group_id)
        if changes is not None and current is not None and current.changes != changes:
            log.warning("A write of consumer group %r failed after later changes; keeping them",
                        group_id)
            return
        if snapshot is None:
            self._groups.pop(group_id, None)
        else:
            self._groups[group_id] = snapshot

    # -- joining and heartbeating ----------------------------------------------------------

    def _group_for(self, group_id: str, epoch: int, now_ms: int,
                   op_records: list) -> ConsumerGroup:
        group = self._groups.get(group_id)
        if group is not None:
            return group
        if epoch != 0:
            raise KafkaError(E.GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.")
        classic = self._classic_group(group_id)
        if classic is not None:
            if len(classic) > 0:
                return self._upgrade(classic, now_ms, op_records)
            tombstone = self._drop_classic_group(group_id, now_ms)
            if tombstone is not None:
                op_records.append(tombstone)
        group = ConsumerGroup(group_id, now_ms)
        self._groups[group_id] = group
        return group

    # -- online upgrade: a classic group becomes a consumer group ------------------------------

    def _upgrade(self, classic: Any, now_ms: int, op_records: list) -> ConsumerGroup:
        """A consumer-protocol member joins a classic group with members (Kafka's
        ``validateOnlineUpgrade`` and ``convertToConsumerGroup``): if the migration policy
        allows it and the group uses the consumer protocol, its members become classic members
        of a consumer group at its generation, each keeping its assignment as its target, in
        records written ahead of the joining member's (the classic group's metadata
        tombstoned); the classic group's parked requests get REBALANCE_IN_PROGRESS.
        GROUP_ID_NOT_FOUND otherwise, and the classic group stays as it is."""
        group_id = classic.group_id
        if self.config.migration_policy not in ("upgrade", "bidirectional") \
                or classic.protocol_type != CONSUMER_PROTOCOL_TYPE:
            raise _not_a_consumer_group(group_id)
        if len(classic) > self.config.max_size:
            raise _not_a_consumer_group(group_id)
        if len(classic) >= self.config.max_size:  # the joining member would not fit
            raise KafkaError(E.GROUP_MAX_SIZE_REACHED,
                             f"The consumer group has reached its maximum capacity of "
                             f"{self.config.max_size} members.")
        generation = classic.generation_id
        try:
            members = [self._from_classic(m, classic.protocol_name, generation)
                       for m in classic.members.values()]
        except KafkaError:
            raise KafkaError(E.GROUP_ID_NOT_FOUND,
                             f"Cannot upgrade the classic group {group_id} to consumer group "
                             "because the embedded consumer protocol is malformed.") from None
        handed = self._hand_over_classic_group(group_id, now_ms)
        if handed is None:
            raise _not_a_consumer_group(group_id)
        op_records.append(handed[1])
        log.info("Classic group %s converted to a consumer group at generation %d (%d "
                 "members), a consumer-protocol member joining", group_id, generation,
                 len(members))
        group = ConsumerGroup(group_id, now_ms)
        self._groups[group_id] = group
        op = _Operation(group, op_records)
        for m in members:
            op.add(MemberMetadata(group_id, m.member_id, m))
        op.add(GroupEpoch(group_id, generation, 0))
        for m in members:
            op.add(TargetAssignmentMember(group_id, m.member_id, m.assigned))
        op.add(TargetAssignmentEpoch(group_id, generation))
        for m in members:
            op.add(CurrentAssignment(group_id, m.member_id, m))
            assert m.classic is not None
            self._schedule_session(group_id, m.member_id, now_ms, m.classic.session_timeout_ms)
        return group

    def _from_classic(self, member: Any, protocol: str | None, generation: int,
                      ) -> ConsumerGroupMember:
        """A classic group's member as a classic member of a consumer group (Kafka's
        ``ConsumerGroup.fromClassicGroup``): stable at the generation, holding its assignment."""
        protocols = tuple((n, bytes(md)) for n, md in member.supported_protocols)
        chosen = next((md for n, md in protocols if n == protocol), protocols[0][1])
        subscription = classic_subscription([(protocol or "", chosen)])
        assigned = self._decode_assignment(bytes(member.assignment))
        return ConsumerGroupMember(
            member.member_id, instance_id=member.group_instance_id, rack_id=subscription.rack_id,
            rebalance_timeout_ms=member.rebalance_timeout_ms, client_id=member.client_id,
            client_host=member.client_host, subscribed_topic_names=tuple(subscription.topics),
            classic=ClassicMemberMetadata(member.session_timeout_ms, protocols),
            member_epoch=generation, previous_member_epoch=generation,
            state=MemberState.STABLE, assigned=assigned)

    def _decode_assignment(self, data: bytes) -> Assignment:
        if not data:
            return EMPTY_ASSIGNMENT
        try:
            r = Reader(data)
            version = r.int16()
            decoded = cpa.read(r, max(0, min(version, cpa.VALID_VERSIONS[1])))
        except Exception as exc:  # noqa: BLE001 - a client's bytes
            raise KafkaError(E.INCONSISTENT_GROUP_PROTOCOL) from exc
        parts: dict[uuid.UUID, set[int]] = {}
        for tp in decoded.assigned_partitions:
            info = self.topics.topic(tp.topic)
            if info is not None:
                parts.setdefault(info.topic_id, set()).update(tp.partitions)
        return assignment(parts)

    def _check_epoch(self, member: ConsumerGroupMember, epoch: int,
                     owned: Assignment | None) -> None:
        """Kafka's ``throwIfMemberEpochIsInvalid``."""
        if epoch > member.member_epoch:
            raise KafkaError(E.FENCED_MEMBER_EPOCH,
                             f"The consumer group member has a greater member epoch ({epoch}) "
                             f"than the one known by the group coordinator ({member.member_epoch}). The "
                             "member must abandon all its partitions and rejoin.")
        if epoch < member.member_epoch and (epoch != member.previous_member_epoch
                                            or not is_subset(owned, member.assigned)):
            raise KafkaError(E.FENCED_MEMBER_EPOCH,
                             f"The consumer group member has a smaller member epoch ({epoch}) "
                             "than the one known by the group coordinator "
                             f"({member.member_epoch}). The member must abandon all its "
                             "partitions and rejoin.")

    def _check_size(self, group: ConsumerGroup) -> None:
        if len(group) >= self.config.max_size:
            raise KafkaError(E.GROUP_MAX_SIZE_REACHED,
                             f"The consumer group has reached its maximum capacity of "
                             f"{self.config.max_size} members.")

    def _member_for(self, group: ConsumerGroup, request: req_m.ConsumerGroupHeartbeatRequest,
                    member_id: str, owned: Assignment | None, op: _Operation,
                    ) -> tuple[ConsumerGroupMember, bool]:
        """The member the heartbeat is for, and whether it is new to the group."""
        epoch = request.member_epoch
        instance_id = request.instance_id
        if instance_id is None:
            member = group.member(member_id)
            if epoch == 0:
                if member is None:
                    self._check_size(group)
                    return ConsumerGroupMember(member_id), True
                return member, False
            if member is None:
                raise KafkaError(E.UNKNOWN_MEMBER_ID,
                                 f"Member {member_id} is not a member of group "
                                 f"{group.group_id}.")
            self._check_epoch(member, epoch, owned)
            return member, False
        existing = group.static_member(instance_id)
        if epoch == 0:
            if existing is None:
                member = group.member(member_id)
                if member is not None:
                    return member, False
                self._check_size(group)
                return ConsumerGroupMember(member_id, instance_id=instance_id), True
            if existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH and \
                    not existing.uses_classic_protocol:
                raise KafkaError(E.UNRELEASED_INSTANCE_ID,
                                 f"Static member {member_id} with instance id {instance_id} "
                                 "cannot join the group because the instance id is owned by "
                                 f"{existing.member_id} member.")
            # the instance comes back: the new member takes over the old one's partitions
            replacement = replace(existing, member_id=member_id, member_epoch=0,
                                  previous_member_epoch=0)
            target = group.target(existing.member_id)
            if existing.member_id != member_id:
                self._remove_member_records(group, existing, op)
            op.add(MemberMetadata(group.group_id, member_id, replacement))
            op.add(TargetAssignmentMember(group.group_id, member_id, target))
            op.add(CurrentAssignment(group.group_id, member_id, replacement))
            member = group.members[member_id]
            return member, False
        # Kafka's order: the instance, its member id, then the epoch
        if existing is None:
            raise KafkaError(E.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")
        if existing.member_id != member_id:
            raise _fenced_instance(member_id, instance_id, existing.member_id)
        self._check_epoch(existing, epoch, owned)
        return existing, False

    def _join_or_heartbeat(self, request: req_m.ConsumerGroupHeartbeatRequest, version: int,
                           client_id: str, client_host: str, now_ms: int,
                           ) -> tuple[_Operation, cgh.ConsumerGroupHeartbeatResponse]:
        group_id = request.group_id
        epoch = request.member_epoch
        member_id = request.member_id or new_member_id()  # v0 joins may leave it to us
        owned = _owned(request.topic_partitions)
        regex = request.subscribed_topic_regex if version >= 1 else None
        if regex:
            compile_regex(regex)
        early: list = []
        group = self._group_for(group_id, epoch, now_ms, early)
        op = _Operation(group, early)
        member, is_new = self._member_for(group, request, member_id, owned, op)
        before = member

        updated = replace(
            member,
            instance_id=request.instance_id if request.instance_id is not None
            else member.instance_id,
            rack_id=request.rack_id if request.rack_id is not None else member.rack_id,
            rebalance_timeout_ms=request.rebalance_timeout_ms
            if request.rebalance_timeout_ms != -1 else member.rebalance_timeout_ms,
            server_assignor=request.server_assignor if request.server_assignor is not None
            else member.server_assignor,
            subscribed_topic_names=tuple(request.subscribed_topic_names)
            if request.subscribed_topic_names is not None else member.subscribed_topic_names,
            subscribed_topic_regex=(regex or None) if regex is not None
            else member.subscribed_topic_regex,
            client_id=client_id, client_host=client_host, classic=None)

        self._apply_member(group, member, updated, is_new, op, now_ms)

        current = group.members[member_id]
        nxt = current
        if not current.is_reconciled_to(group.assignment_epoch):
            nxt = reconcile(current, group.assignment_epoch, group.target(member_id), owned,
                            group.partition_epoch)
            if nxt.assignment_differs(current) or is_new:
                op.add(CurrentAssignment(group_id, member_id, nxt))
                if nxt.state is MemberState.UNREVOKED_PARTITIONS:
                    self._schedule_rebalance(group_id, nxt, now_ms)
                else:
                    self.scheduler.cancel(rebalance_key(group_id, member_id))
        elif is_new:
            op.add(CurrentAssignment(group_id, member_id, nxt))
        self._schedule_session(group_id, member_id, now_ms)

        response = cgh.ConsumerGroupHeartbeatResponse(
            member_id=member_id, member_epoch=nxt.member_epoch,
            heartbeat_interval_ms=self.group_configs.heartbeat_interval_ms(group_id))
        full = (request.rebalance_timeout_ms != -1 and request.topic_partitions is not None
                and (request.subscribed_topic_names is not None or regex is not None))
        if epoch == 0 or full or dict(nxt.assigned) != dict(before.assigned):
            response.assignment = cgh.Assignment(topic_partitions=[
                cgh.TopicPartitions(topic_id=t, partitions=sorted(ps))
                for t, ps in sorted(nxt.assigned.items(), key=lambda kv: kv[0].bytes)])
        return op, response

    # -- subscriptions ---------------------------------------------------------------------

    def _topic_names(self) -> list[str]:
        return list(self.topics.topics)

    def _resolve_regex(self, group: ConsumerGroup, regex: str, op: _Operation,
                       now_ms: int) -> None:
        if regex in group.regexes:
            return
        pattern = compile_regex(regex)
        topics = frozenset(t for t in self._topic_names() if pattern.fullmatch(t))
        op.add(RegularExpression(group.group_id, regex, ResolvedRegex(topics, 0, now_ms)))
        self._regex_checked[(group.group_id, regex)] = now_ms

    def _refresh_regexes(self, group: ConsumerGroup, op: _Operation, now_ms: int) -> bool:
        """Resolve the group's regexes again, at most every 10 s each (new topics, deleted
        ones); whether a resolution changed."""
        changed = False
        for regex in group.subscribed_regexes():
            key = (group.group_id, regex)
            if now_ms - self._regex_checked.get(key, 0) < REGEX_REFRESH_MIN_INTERVAL_MS:
                continue
            self._regex_checked[key] = now_ms
            resolved = group.regexes.get(regex)
            pattern = compile_regex(regex)
            topics = frozenset(t for t in self._topic_names() if pattern.fullmatch(t))
            if resolved is None or topics != resolved.topics:
                version = 0 if resolved is None else resolved.version + 1
                op.add(RegularExpression(group.group_id, regex,
                                         ResolvedRegex(topics, version, now_ms)))
                changed = True
        return changed

    def _metadata_hash(self, group: ConsumerGroup) -> int:
        """A hash of the subscribed topics that exist: names, ids and partition counts (the
        group epoch moves when it changes, as Kafka 4.1's metadata hash)."""
        h = hashlib.blake2b(digest_size=8)
        found = False
        for name in sorted(group.subscribed_topic_names()):
            info = self.topics.topic(name)
            if info is None:
                continue
            found = True
            h.update(name.encode())
            h.update(info.topic_id.bytes)
            h.update(_INT64.pack(len(info.partitions)))
        return _INT64.unpack(h.digest())[0] if found else 0

    def _update_target_assignment(self, group: ConsumerGroup, op: _Operation) -> None:
        """Run the group's assignor for the group epoch; write the targets that changed, then
        the assignment epoch (Kafka's ``updateTargetAssignment``)."""
        topics: dict[uuid.UUID, int] = {}
        members: dict[str, MemberSubscription] = {}
        for member in group.members.values():
            ids = set()
            for name in group.member_subscription(member):
                info = self.topics.topic(name)
                if info is not None and info.partitions:
                    ids.add(info.topic_id)
                    topics[info.topic_id] = len(info.partitions)
            members[member.member_id] = MemberSubscription(
                instance_id=member.instance_id, rack_id=member.rack_id,
                subscribed_topic_ids=frozenset(ids),
                assigned=self._existing_target(group, member, topics))
        name = group.preferred_assignor(self.config.assignors)
        result = assignor(name).assign(members, topics)
        for member_id in group.members:
            new = assignment(result.get(member_id, {}))
            if dict(new) != dict(group.target(member_id)):
                op.add(TargetAssignmentMember(group.group_id, member_id, new))
        op.add(TargetAssignmentEpoch(group.group_id, group.group_epoch))

    @staticmethod
    def _existing_target(group: ConsumerGroup, member: ConsumerGroupMember,
                         topics: Mapping[uuid.UUID, int]) -> Assignment:
        """The member's target restricted to partitions that still exist."""
        target = group.target(member.member_id)
        return assignment({t: {p for p in ps if p < topics.get(t, 0)}
                           for t, ps in target.items()})

    # -- leaving and fencing ---------------------------------------------------------------

    def _leave(self, request: req_m.ConsumerGroupHeartbeatRequest, now_ms: int,
               ) -> tuple[_Operation, cgh.ConsumerGroupHeartbeatResponse]:
        group_id, member_id = request.group_id, request.member_id
        group = self._groups.get(group_id)
        if group is None:
            raise KafkaError(E.GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.")
        op = _Operation(group)
        if request.instance_id is not None:
            existing = group.static_member(request.instance_id)
            if existing is None:
                raise KafkaError(E.UNKNOWN_MEMBER_ID,
                                 f"Instance id {request.instance_id} is unknown.")
            if existing.member_id != member_id:
                raise _fenced_instance(member_id, request.instance_id, existing.member_id)
            member = existing
        else:
            found = group.member(member_id)
            if found is None:
                raise KafkaError(E.UNKNOWN_MEMBER_ID,
                                 f"Member {member_id} is not a member of group {group_id}.")
            member = found
        if request.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            # a static member leaves for a while: it keeps its partitions (not those it was
            # revoking) until it comes back or its session times out; no new group epoch
            leaving = replace(member, member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH,
                              pending_revocation=EMPTY_ASSIGNMENT)
            op.add(CurrentAssignment(group_id, member.member_id, leaving))
            self.scheduler.cancel(rebalance_key(group_id, member.member_id))
            return op, cgh.ConsumerGroupHeartbeatResponse(
                member_id=member.member_id, member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH)
        self._fence(group, member, op, now_ms)
        return op, cgh.ConsumerGroupHeartbeatResponse(member_id=member.member_id,
                                                      member_epoch=LEAVE_GROUP_MEMBER_EPOCH)

    def _remove_member_records(self, group: ConsumerGroup, member: ConsumerGroupMember,
                               op: _Operation) -> None:
        group_id = group.group_id
        op.add(CurrentAssignment(group_id, member.member_id, None))
        op.add(TargetAssignmentMember(group_id, member.member_id, None))
        op.add(MemberMetadata(group_id, member.member_id, None))
        for key in (session_key, rebalance_key, join_key, sync_key):
            self.scheduler.cancel(key(group_id, member.member_id))

    def _fence(self, group: ConsumerGroup, member: ConsumerGroupMember, op: _Operation,
               now_ms: int) -> None:
        """Remove the member and bump the group epoch (Kafka's ``consumerGroupFenceMember``):
        its partitions go to others at the next target assignment."""
        regex = member.subscribed_topic_regex
        self._remove_member_records(group, member, op)
        if regex and regex not in group.subscribed_regexes():
            op.add(RegularExpression(group.group_id, regex, None))
            self._regex_checked.pop((group.group_id, regex), None)
        if not self._maybe_downgrade(group, op, now_ms):
            op.add(GroupEpoch(group.group_id, group.group_epoch + 1,
                              self._metadata_hash(group)))

    # -- online downgrade: a consumer group of classic members becomes a classic group -----

    def _maybe_downgrade(self, group: ConsumerGroup, op: _Operation, now_ms: int) -> bool:
        """After members left (their records are in ``op``): if every member that remains
        uses the classic protocol, and the policy allows a downgrade, the group becomes a
        classic group (Kafka's ``validateOnlineDowngradeWithFencedMembers`` and
        ``convertToClassicGroup``): the consumer group's records are tombstoned, the classic
        group's metadata written in the same batch, and once written the classic coordinator
        serves it and starts a rebalance its members rejoin. Whether it does."""
        remaining = list(group.members.values())
        if not remaining or any(m.classic is None for m in remaining):
            return False
        if self.config.migration_policy not in ("downgrade", "bidirectional"):
            return False
        members = [(m, self._encode_assignment(replace(m, assigned=group.target(m.member_id))))
                   for m in remaining]
        handed = self._downgrade_classic_group(group.group_id, group.group_epoch, members,
                                               now_ms)
        if handed is None:  # more members than a classic group may have
            return False
        record, adopt = handed
        group_id = group.group_id
        for m in remaining:
            self._remove_member_records(group, m, op)
        # (the group's own tombstones are not replayed: it is handed over, not kept)
        op.records.append(serialize(TargetAssignmentEpoch(group_id, None)))
        op.records += [serialize(RegularExpression(group_id, r, None)) for r in group.regexes]
        op.records.append(serialize(GroupEpoch(group_id, None)))
        op.records.append(record)

        def hand_over() -> None:
            if self._groups.get(group_id) is group:
                self._drop_timers(self._groups.pop(group_id))
            log.info("Consumer group %s converted to a classic group at generation %d: its "
                     "last consumer-protocol member left", group_id, group.group_epoch)
            adopt()

        op.after.append(hand_over)
        return True

    # -- timers ----------------------------------------------------------------------------

    def _schedule_session(self, group_id: str, member_id: str, now_ms: int,
                          timeout_ms: int | None = None) -> None:
        """``timeout_ms``: a classic member's own session timeout (else the group's)."""
        if timeout_ms is None:
            timeout_ms = self.group_configs.session_timeout_ms(group_id)
        self.scheduler.schedule(session_key(group_id, member_id), now_ms + timeout_ms,
                                lambda at_ms: self._expire_session(group_id, member_id, at_ms))

    def _schedule_rebalance(self, group_id: str, member: ConsumerGroupMember,
                            now_ms: int) -> None:
        epoch, member_id = member.member_epoch, member.member_id
        self.scheduler.schedule(
            rebalance_key(group_id, member_id), now_ms + max(member.rebalance_timeout_ms, 0),
            lambda at_ms: self._expire_rebalance(group_id, member_id, epoch, at_ms))

    def _expire_session(self, group_id: str, member_id: str, now_ms: int) -> None:
        group = self._groups.get(group_id)
        member = group.member(member_id) if group is not None else None
        if group is None or member is None or self._status(group_id):
            return
        log.info("Member %s of consumer group %s is fenced: its session timed out",
                 member_id, group_id)
        self._fence_now(group, member, now_ms)

    def _expire_rebalance(self, group_id: str, member_id: str, epoch: int, now_ms: int) -> None:
        group = self._groups.get(group_id)
        member = group.member(member_id) if group is not None else None
        if group is None or member is None or member.member_epoch != epoch or \
                self._status(group_id):
            return
        log.info("Member %s of consumer group %s is fenced: it did not revoke its partitions "
                 "within its rebalance timeout (%d ms)", member_id, group_id,
                 member.rebalance_timeout_ms)
        self._fence_now(group, member, now_ms)

    def _fence_now(self, group: ConsumerGroup, member: ConsumerGroupMember, now_ms: int) -> None:
        snapshot = group.copy()
        op = _Operation(group)
        self._fence(group, member, op, now_ms)
        self._write(op, snapshot, cgh.ConsumerGroupHeartbeatResponse(), now_ms)

    # -- classic members in a consumer group (a mixed group) --------------------------------

    def has_members(self, group_id: str) -> bool:
        """Whether a JoinGroup for ``group_id`` joins this consumer group as a classic member
        (an empty one gives way to a classic group instead)."""
        group = self._groups.get(group_id)
        return group is not None and bool(group.members)

    def serves(self, group_id: str) -> bool:
        """Whether SyncGroup, Heartbeat and LeaveGroup for ``group_id`` are this group's."""
        return group_id in self._groups

    def _supports_classic(self, group: ConsumerGroup, protocol_type: str,
                          names: Sequence[str]) -> bool:
        """Kafka's ``ConsumerGroup.supportsClassicProtocols``: the consumer protocol type, and
        a protocol every classic member of the group supports."""
        if protocol_type != CONSUMER_PROTOCOL_TYPE:
            return False
        classic = [m for m in group.members.values() if m.classic is not None]
        if not group.members:
            return bool(names)
        return any(all(any(n == name for n, _ in m.classic.protocols)  # type: ignore[union-attr]
                       for m in classic) for name in names)

    def _classic_member_for(self, group: ConsumerGroup, request: JoinRequest, member_id: str,
                            unknown: bool, op: _Operation) -> ConsumerGroupMember:
        """Kafka's ``getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember`` for a classic
        join: a new member, the member itself, or (a static member coming back with no
        member id) a copy of the instance's member under the new id."""
        instance_id = request.group_instance_id
        if instance_id is None:
            return group.member(member_id) or ConsumerGroupMember(member_id)
        existing = group.static_member(instance_id)
        if unknown:
            if existing is None:
                return group.member(member_id) or ConsumerGroupMember(
                    member_id, instance_id=instance_id)
            replacement = replace(existing, member_id=member_id, member_epoch=0,
                                  previous_member_epoch=0)
            target = group.target(existing.member_id)
            self._remove_member_records(group, existing, op)
            op.add(MemberMetadata(group.group_id, member_id, replacement))
            op.add(TargetAssignmentMember(group.group_id, member_id, target))
            op.add(CurrentAssignment(group.group_id, member_id, replacement))
            return group.members[member_id]
        if existing is None:
            raise KafkaError(E.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")
        if existing.member_id != member_id:
            raise _fenced_instance(member_id, instance_id, existing.member_id)
        return existing

    def _owned_by_name(self, subscription: cps.ConsumerProtocolSubscription) -> Assignment:
        parts: dict[uuid.UUID, set[int]] = {}
        for tp in subscription.owned_partitions:
            info = self.topics.topic(tp.topic)
            if info is not None:
                parts.setdefault(info.topic_id, set()).update(tp.partitions)
        return assignment(parts)

    def classic_join(self, request: JoinRequest, now_ms: int) -> Outcome[JoinGroupResult]:
        """A classic JoinGroup to a non-empty consumer group (Kafka's
        ``classicGroupJoinToConsumerGroup``): the member joins with the subscription its
        protocol metadata carries, the group's assignor computes its target, and it is
        answered at once with its epoch as the generation and no member list (a classic
        member is never the leader); SyncGroup then gives it its assignment."""
        group_id = request.group_id
        group = self._groups[group_id]
        unknown = request.member_id == ""
        member_id = new_member_id() if unknown else request.member_id
        snapshot = group.copy()
        try:
            if group.member(member_id) is None and len(group) >= self.config.max_size:
                raise KafkaError(E.GROUP_MAX_SIZE_REACHED,
                                 f"The consumer group has reached its maximum capacity of "
                                 f"{self.config.max_size} members.")
            names = [name for name, _ in request.protocols]
            if not self._supports_classic(group, request.protocol_type, names):
                raise KafkaError(E.INCONSISTENT_GROUP_PROTOCOL,
                                 f"Member {member_id}'s protocols are not supported.")
            if request.require_known_member_id and unknown and \
                    request.group_instance_id is None:
                return JoinGroupResult(error_code=E.MEMBER_ID_REQUIRED, member_id=member_id)
            subscription = classic_subscription(request.protocols)
            op = _Operation(group)
            member = self._classic_member_for(group, request, member_id, unknown, op)
            is_new = group.member(member_id) is None
            updated = replace(
                member,
                instance_id=request.group_instance_id or member.instance_id,
                rack_id=subscription.rack_id if subscription.rack_id is not None
                else member.rack_id,
                rebalance_timeout_ms=request.rebalance_timeout_ms
                if request.rebalance_timeout_ms != -1 else member.rebalance_timeout_ms,
                subscribed_topic_names=tuple(subscription.topics),
                client_id=request.client_id, client_host=request.client_host,
                classic=ClassicMemberMetadata(request.session_timeout_ms,
                                              tuple(request.protocols)))
            self._apply_member(group, member, updated, is_new, op, now_ms)
            current = group.members[member_id]
            nxt = current
            if not current.is_reconciled_to(group.assignment_epoch):
                nxt = reconcile(current, group.assignment_epoch, group.target(member_id),
                                self._owned_by_name(subscription), group.partition_epoch)
            if is_new or nxt.assignment_differs(current):
                op.add(CurrentAssignment(group_id, member_id, nxt))
        except KafkaError as exc:
            self._restore(group_id, snapshot, None)
            return JoinGroupResult.failure(request.member_id, exc.code)
        result = JoinGroupResult(error_code=E.NONE, member_id=member_id,
                                 generation_id=nxt.member_epoch,
                                 protocol_type=CONSUMER_PROTOCOL_TYPE,
                                 protocol_name=request.protocols[0][0])
        session_ms, rebalance_ms = request.session_timeout_ms, request.rebalance_timeout_ms

        def written(error: ErrorCode) -> JoinGroupResult:
            if error:
                self._restore(group_id, snapshot, changes)
                return JoinGroupResult.failure(request.member_id, error)
            self.scheduler.cancel(join_key(group_id, member_id))
            self._schedule_session(group_id, member_id, now_ms, session_ms)
            self.scheduler.schedule(
                sync_key(group_id, member_id), now_ms + rebalance_ms,
                lambda at_ms: self._expire_classic(group_id, member_id, "sync", at_ms))
            return result

        changes = group.changes
        if not op.records:
            return written(E.NONE)
        data = [r if isinstance(r, tuple) else serialize(r) for r in op.records]
        return when_ready(self.store.write_records(group_id, data, now_ms), written)

    def _apply_member(self, group: ConsumerGroup, member: ConsumerGroupMember,
                      updated: ConsumerGroupMember, is_new: bool, op: _Operation,
                      now_ms: int) -> None:
        """Steps 1 and 2 of a heartbeat or a classic join: the member's metadata (and its
        regex, resolved or dropped), a new group epoch when the subscriptions or their topics
        changed, and the target assignment for it."""
        group_id = group.group_id
        bump = group.group_epoch == 0
        if is_new or updated.metadata_differs(member):
            old_regex = member.subscribed_topic_regex if not is_new else None
            op.add(MemberMetadata(group_id, updated.member_id, updated))
            if is_new or set(updated.subscribed_topic_names) != \
                    set(member.subscribed_topic_names):
                bump = True
            if updated.subscribed_topic_regex != old_regex:
                bump = True
                if updated.subscribed_topic_regex:
                    self._resolve_regex(group, updated.subscribed_topic_regex, op, now_ms)
                if old_regex and old_regex not in group.subscribed_regexes():
                    op.add(RegularExpression(group_id, old_regex, None))
        if self._refresh_regexes(group, op, now_ms):
            bump = True
        metadata_hash = self._metadata_hash(group)
        if bump or metadata_hash != group.metadata_hash:
            op.add(GroupEpoch(group_id, group.group_epoch + 1, metadata_hash))
        if group.group_epoch > group.assignment_epoch:
            self._update_target_assignment(group, op)

    def _classic_member(self, group: ConsumerGroup | None, group_id: str, member_id: str,
                        instance_id: str | None) -> ConsumerGroupMember:
        """Kafka's ``validateConsumerGroupMember`` and ``throwIfMemberDoesNotUseClassicProtocol``."""
        if group is None:
            raise KafkaError(E.UNKNOWN_MEMBER_ID, f"Group {group_id} not found.")
        if instance_id is None:
            member = group.member(member_id)
            if member is None:
                raise KafkaError(E.UNKNOWN_MEMBER_ID,
                                 f"Member {member_id} is not a member of group {group_id}.")
        else:
            found = group.static_member(instance_id)
            if found is None:
                raise KafkaError(E.UNKNOWN_MEMBER_ID,
                                 f"Member with instance id {instance_id} is not a member of "
                                 f"group {group_id}.")
            if found.member_id != member_id:
                raise _fenced_instance(member_id, instance_id, found.member_id)
            member = found
        if not member.uses_classic_protocol:
            raise KafkaError(E.UNKNOWN_MEMBER_ID,
                             f"Member {member.member_id} does not use the classic protocol.")
        return member

    def _must_rejoin(self, group: ConsumerGroup, member: ConsumerGroupMember) -> bool:
        """Whether a classic member must rejoin (Heartbeat's REBALANCE_IN_PROGRESS): the group
        epoch moved on, it has partitions to revoke, or partitions it waits for are free."""
        if member.member_epoch < group.group_epoch:
            return True
        if member.state is MemberState.UNREVOKED_PARTITIONS:
            return True
        return member.state is MemberState.UNRELEASED_PARTITIONS and \
            not self._waiting_on_unreleased(group, member)

    @staticmethod
    def _waiting_on_unreleased(group: ConsumerGroup, member: ConsumerGroupMember) -> bool:
        for topic_id, partitions in group.target(member.member_id).items():
            held = member.assigned.get(topic_id, frozenset())
            for p in partitions:
                if p not in held and group.partition_epoch(topic_id, p) != -1:
                    return True
        return False

    def _tell_to_rejoin(self, group_id: str, member: ConsumerGroupMember, now_ms: int) -> None:
        key = join_key(group_id, member.member_id)
        if key not in self.scheduler:
            member_id = member.member_id
            self.scheduler.schedule(
                key, now_ms + max(member.rebalance_timeout_ms, 0),
                lambda at_ms: self._expire_classic(group_id, member_id, "join", at_ms))

    def classic_sync(self, request: SyncRequest, now_ms: int) -> SyncGroupResult:
        """Kafka's ``classicGroupSyncToConsumerGroup``: the member's current assignment,
        encoded with the consumer protocol at the version of its subscription."""
        group_id = request.group_id
        group = self._groups.get(group_id)
        try:
            member = self._classic_member(group, group_id, request.member_id,
                                          request.group_instance_id)
            assert group is not None and member.classic is not None
            if member.member_epoch != request.generation_id:
                raise KafkaError(E.ILLEGAL_GENERATION)
            protocol_name = member.classic.protocols[0][0]
            if request.protocol_type is not None and \
                    request.protocol_type != CONSUMER_PROTOCOL_TYPE:
                raise KafkaError(E.INCONSISTENT_GROUP_PROTOCOL)
            if request.protocol_name is not None and request.protocol_name != protocol_name:
                raise KafkaError(E.INCONSISTENT_GROUP_PROTOCOL)
            if group.group_epoch > member.member_epoch and \
                    member.state is not MemberState.UNREVOKED_PARTITIONS:
                self._tell_to_rejoin(group_id, member, now_ms)
                raise KafkaError(E.REBALANCE_IN_PROGRESS)
        except KafkaError as exc:
            return SyncGroupResult.failure(exc.code)
        self.scheduler.cancel(sync_key(group_id, member.member_id))
        self._schedule_session(group_id, member.member_id, now_ms,
                               member.classic.session_timeout_ms)
        return SyncGroupResult(error_code=E.NONE, protocol_type=request.protocol_type,
                               protocol_name=request.protocol_name,
                               assignment=self._encode_assignment(member))

    def _encode_assignment(self, member: ConsumerGroupMember) -> bytes:
        assert member.classic is not None
        version = _protocol_version(member.classic.protocols[0][1])
        parts = []
        for topic_id, partitions in sorted(member.assigned.items(), key=lambda kv: kv[0].bytes):
            name = self.topics.topic_name(topic_id)
            if name is not None:
                parts.append(cpa.TopicPartition(topic=name, partitions=sorted(partitions)))
        body = cpa.encode(cpa.ConsumerProtocolAssignment(assigned_partitions=parts,
                                                         user_data=None), version)
        return _INT16.pack(version) + body

    def classic_heartbeat(self, group_id: str, member_id: str, instance_id: str | None,
                          generation_id: int, now_ms: int) -> ErrorCode:
        """Kafka's ``classicGroupHeartbeatToConsumerGroup``."""
        group = self._groups.get(group_id)
        try:
            member = self._classic_member(group, group_id, member_id, instance_id)
        except KafkaError as exc:
            return exc.code
        assert group is not None and member.classic is not None
        if member.member_epoch != generation_id:
            return E.ILLEGAL_GENERATION
        self._schedule_session(group_id, member.member_id, now_ms,
                               member.classic.session_timeout_ms)
        if self._must_rejoin(group, member):
            self._tell_to_rejoin(group_id, member, now_ms)
            return E.REBALANCE_IN_PROGRESS
        return E.NONE

    def classic_leave(self, group_id: str, members: Sequence[LeavingMember], now_ms: int,
                      ) -> Outcome[LeaveGroupResult]:
        """Kafka's ``classicGroupLeaveToConsumerGroup``: each classic member named leaves
        (removed, its timers cancelled), and the group epoch moves once."""
        group = self._groups[group_id]
        snapshot = group.copy()
        op = _Operation(group)
        results = []
        for leaving in members:
            member_id, instance_id = leaving.member_id, leaving.group_instance_id
            try:
                if instance_id is None:
                    member = self._classic_member(group, group_id, member_id, None)
                else:
                    found = group.static_member(instance_id)
                    if found is None:
                        raise KafkaError(E.UNKNOWN_MEMBER_ID)
                    # an admin may remove a static member by its instance id alone
                    if member_id and found.member_id != member_id:
                        raise KafkaError(E.FENCED_INSTANCE_ID)
                    member = self._classic_member(group, group_id, found.member_id,
                                                  instance_id)
                    member_id = member.member_id
                self._remove_member_records(group, member, op)
                results.append(MemberLeaveResult(member_id, instance_id, E.NONE))
            except KafkaError as exc:
                results.append(MemberLeaveResult(member_id, instance_id, exc.code))
        result = LeaveGroupResult(E.NONE, tuple(results))
        if not op.records:
            return result
        if not self._maybe_downgrade(group, op, now_ms):
            op.add(GroupEpoch(group_id, group.group_epoch + 1, self._metadata_hash(group)))
        changes = group.changes
        data = [serialize(r) if not isinstance(r, tuple) else r for r in op.records]

        def written(error: ErrorCode) -> LeaveGroupResult:
            if error:
                self._restore(group_id, snapshot, changes)
                return LeaveGroupResult(error)
            for action in op.after:
                action()
            return result

        return when_ready(self.store.write_records(group_id, data, now_ms), written)

    def _expire_classic(self, group_id: str, member_id: str, what: str, now_ms: int) -> None:
        group = self._groups.get(group_id)
        member = group.member(member_id) if group is not None else None
        if group is None or member is None or self._status(group_id):
            return
        log.info("Member %s of consumer group %s is fenced: the classic member failed to %s "
                 "within its rebalance timeout", member_id, group_id, what)
        self._fence_now(group, member, now_ms)

    # -- ConsumerGroupDescribe -------------------------------------------------------------

    def describe(self, group_id: str) -> cgd.DescribedGroup:
        """One group of a ConsumerGroupDescribe (authorisation is the handler's)."""
        status = self._status(group_id)
        if status:
            return cgd.DescribedGroup(group_id=group_id, error_code=status)
        group = self._groups.get(group_id)
        if group is None:
            message = (f"Group {group_id} is not a consumer group."
                       if self._classic_group(group_id) is not None
                       else f"Group {group_id} not found.")
            return cgd.DescribedGroup(group_id=group_id, error_code=E.GROUP_ID_NOT_FOUND,
                                      error_message=message)
        return cgd.DescribedGroup(
            group_id=group_id, group_state=str(group.state), group_epoch=group.group_epoch,
            assignment_epoch=group.assignment_epoch,
            assignor_name=group.preferred_assignor(self.config.assignors),
            members=[self._describe_member(group, m) for m in group.members.values()])

    def _topic_partitions(self, parts: Assignment) -> list[cgd.TopicPartitions]:
        out = []
        for topic_id, ps in sorted(parts.items(), key=lambda kv: kv[0].bytes):
            out.append(cgd.TopicPartitions(topic_id=topic_id,
                                           topic_name=self.topics.topic_name(topic_id) or "",
                                           partitions=sorted(ps)))
        return out

    def _describe_member(self, group: ConsumerGroup, m: ConsumerGroupMember) -> cgd.Member:
        return cgd.Member(
            member_id=m.member_id, instance_id=m.instance_id, rack_id=m.rack_id,
            member_epoch=m.member_epoch, client_id=m.client_id, client_host=m.client_host,
            subscribed_topic_names=list(m.subscribed_topic_names),
            subscribed_topic_regex=m.subscribed_topic_regex or "",
            assignment=cgd.Assignment(topic_partitions=self._topic_partitions(m.assigned)),
            target_assignment=cgd.Assignment(
                topic_partitions=self._topic_partitions(group.target(m.member_id))),
            member_type=0 if m.uses_classic_protocol else 1)

    # -- offsets and the other group APIs --------------------------------------------------

    def validate_offset_commit(self, group: ConsumerGroup, member_id: str, member_epoch: int,
                               api_version: int, transactional: bool) -> ErrorCode:
        """Kafka's ``ConsumerGroup.validateOffsetCommit``."""
        if member_epoch < 0 and not group.members:
            return E.NONE
        if transactional and not member_id and member_epoch < 0:
            return E.NONE
        member = group.member(member_id)
        if member is None:
            return E.UNKNOWN_MEMBER_ID
        if not transactional and not member.uses_classic_protocol and api_version < 9:
            return E.UNSUPPORTED_VERSION
        if member_epoch != member.member_epoch:
            return E.ILLEGAL_GENERATION if member.uses_classic_protocol \
                else E.STALE_MEMBER_EPOCH
        return E.NONE

    def validate_offset_fetch(self, group: ConsumerGroup, member_id: str | None,
                              member_epoch: int) -> ErrorCode:
        """Kafka's ``ConsumerGroup.validateOffsetFetch`` (OffsetFetch v9 with a member)."""
        if member_id is None and member_epoch < 0:
            return E.NONE
        member = group.member(member_id or "")
        if member is None:
            return E.UNKNOWN_MEMBER_ID
        if member_epoch != member.member_epoch:
            return E.STALE_MEMBER_EPOCH
        return E.NONE

    def delete_group(self, group_id: str) -> tuple[ErrorCode, list[tuple[bytes, bytes | None]]]:
        """DeleteGroups of a consumer group: NON_EMPTY_GROUP while it has members; else the
        group is forgotten and its tombstones returned for the caller's batch, in Kafka's
        order (``createGroupTombstoneRecords``)."""
        group = self._groups.get(group_id)
        if group is None:
            return E.GROUP_ID_NOT_FOUND, []
        if group.members:
            return E.NON_EMPTY_GROUP, []
        records: list[Record] = [TargetAssignmentEpoch(group_id, None)]
        records += [RegularExpression(group_id, r, None) for r in group.regexes]
        records.append(GroupEpoch(group_id, None))
        self._drop_timers(self._groups.pop(group_id))
        return E.NONE, [serialize(r) for r in records]

    def remove_empty_group(self, group_id: str) -> bool:
        """For offset expiry: an empty group whose offsets are all gone is forgotten."""
        group = self._groups.get(group_id)
        if group is None or group.members:
            return False
        del self._groups[group_id]
        return True
