"""The classic group coordinator: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and the group side
of offset commits, DescribeGroups, ListGroups and DeleteGroups, following Kafka's
GroupCoordinator.

Theory of operation
-------------------
The coordinator is pure logic. Every entry point takes ``now_ms``; timers go through a
:class:`~.timers.Scheduler`; persistence goes through a :class:`GroupStore`. Nothing here
awaits, so each call runs to completion on the broker's event loop.

Requests that must wait are parked on their member: a JoinGroup until the rebalance completes,
a follower's SyncGroup until the leader's assignment is stored. Their answers go to the
``respond`` callable the caller passed (bridge it to a future). Answers are queued while the
coordinator changes state and delivered once the outermost call (or timer) is done, so a
callback that calls straight back into the coordinator sees a consistent group.

Timers, each under its own key (rescheduling a key replaces it):

* ``("heartbeat", group, member)`` - the member's session deadline, pushed back by
  heartbeats, commits and completed joins/syncs. A member parked in JoinGroup or SyncGroup
  is not expired by it (it cannot heartbeat), except a *new* member, whose first join gets
  ``new_member_join_timeout_ms`` instead, so that abandoned joins do not pile up.
* ``("pending", group, member)`` - a member id handed out with MEMBER_ID_REQUIRED must be used
  within the session timeout.
* ``("join", group)`` - the end of the join phase: the rebalance timeout (largest of the
  members'), or for a group leaving Empty, ``group.initial.rebalance.delay.ms`` steps that are
  extended while new members keep arriving, up to the rebalance timeout. Members that did not
  rejoin by then are removed (static members are kept).
* ``("sync", group)`` - members that got their JoinGroup answer must send SyncGroup within the
  rebalance timeout, or they are removed and the group rebalances again.

Differences from Kafka, deliberately: a JoinGroup or SyncGroup that a newer request from the
same member displaces is answered (REBALANCE_IN_PROGRESS) instead of being left unanswered, and
a member removed while its SyncGroup is parked gets UNKNOWN_MEMBER_ID, so no caller is left
waiting for an answer that would never come. Protocol-vote ties go to the protocol that got its
first vote first (Kafka leaves it to hash order).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol as TypingProtocol, TypeVar

from protocol.errors import ErrorCode
from protocol.messages.group_metadata_value import GroupMetadataValue
from pybroker.config import broker_default, broker_value

from .group import (
    CLASSIC_GROUP_TYPE,
    ClassicGroup,
    GroupOverview,
    GroupSummary,
    JoinGroupResult,
    SyncGroupResult,
)
from .member import MemberMetadata, Protocol, Responder
from .state import GroupState
from .timers import Scheduler

log = logging.getLogger(__name__)

E = ErrorCode
S = GroupState

JoinResponder = Callable[[JoinGroupResult], None]
SyncResponder = Callable[[SyncGroupResult], None]

_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class GroupConfig:
    """The group coordinator's broker properties; defaults from the configuration catalogue."""

    min_session_timeout_ms: int = broker_default("group.min.session.timeout.ms")
    max_session_timeout_ms: int = broker_default("group.max.session.timeout.ms")
    max_size: int = broker_default("group.max.size")
    initial_rebalance_delay_ms: int = broker_default("group.initial.rebalance.delay.ms")
    #: How long a brand-new member's first JoinGroup may wait (Kafka's NewMemberJoinTimeoutMs,
    #: a constant, not a property).
    new_member_join_timeout_ms: int = 5 * 60 * 1000

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> GroupConfig:
        """From broker properties (``BrokerConfig.props``), parsed by the catalogue."""
        return cls(
            min_session_timeout_ms=broker_value(props, "group.min.session.timeout.ms"),
            max_session_timeout_ms=broker_value(props, "group.max.session.timeout.ms"),
            max_size=broker_value(props, "group.max.size"),
            initial_rebalance_delay_ms=broker_value(props, "group.initial.rebalance.delay.ms"),
        )


class GroupStore(TypingProtocol):
    """Where group metadata is persisted (``__consumer_offsets``)."""

    def store_group(self, group_id: str, value: GroupMetadataValue | None,
                    now_ms: int) -> ErrorCode:
        """Write the group's metadata record. The result is what the members are told, so a
        storage failure must already be mapped to a client error (as Kafka maps
        NOT_LEADER_OR_FOLLOWER to NOT_COORDINATOR, NOT_ENOUGH_REPLICAS to
        COORDINATOR_NOT_AVAILABLE, MESSAGE_TOO_LARGE to UNKNOWN_SERVER_ERROR, ...)."""

    def delete_group(self, group_id: str, now_ms: int, *,
                     tombstone_group: bool = True) -> ErrorCode:
        """DeleteGroups: drop the group's offsets and write their tombstones, and the
        metadata's tombstone unless ``tombstone_group`` is False (a generation-0 group never
        stored metadata). The result is ignored, as Kafka ignores it."""


class NullGroupStore:
    """Persists nothing; every write succeeds."""

    def store_group(self, group_id: str, value: GroupMetadataValue | None,
                    now_ms: int) -> ErrorCode:
        return E.NONE

    def delete_group(self, group_id: str, now_ms: int, *,
                     tombstone_group: bool = True) -> ErrorCode:
        return E.NONE


@dataclass(frozen=True, slots=True)
class LeavingMember:
    """One member named in a LeaveGroup request (v0-2 name a member id only)."""

    member_id: str
    group_instance_id: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class MemberLeaveResult:
    member_id: str
    group_instance_id: str | None
    error_code: ErrorCode


@dataclass(frozen=True, slots=True)
class LeaveGroupResult:
    error_code: ErrorCode
    members: tuple[MemberLeaveResult, ...] = ()


@dataclass(frozen=True, slots=True)
class DescribeGroupResult:
    error_code: ErrorCode
    group_id: str
    summary: GroupSummary


@dataclass(frozen=True, slots=True)
class ListGroupsResult:
    error_code: ErrorCode
    groups: tuple[GroupOverview, ...]


_NO_GROUP = GroupSummary(state="", protocol_type="", protocol="", members=())
_DEAD_GROUP = GroupSummary(state=S.DEAD.value, protocol_type="", protocol="", members=())


@dataclass(slots=True)
class _DelayedJoin:
    """The parked end of a join phase. ``initial`` ones (a group leaving Empty) never complete
    early: they wait ``delay_ms`` and are extended while members keep arriving."""

    delay_ms: int
    initial: bool = False
    remaining_ms: int = 0


def _entry(fn: _F) -> _F:
    """Deliver queued answers when the outermost coordinator call returns."""

    @functools.wraps(fn)
    def wrapper(self: GroupCoordinator, *args: Any, **kwargs: Any) -> Any:
        self._depth += 1
        try:
            return fn(self, *args, **kwargs)
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._flush()

    return wrapper  # type: ignore[return-value]


class GroupCoordinator:
    def __init__(self, config: GroupConfig, store: GroupStore, scheduler: Scheduler, *,
                 is_coordinator_for: Callable[[str], bool] | None = None,
                 is_loading: Callable[[str | None], bool] | None = None,
                 new_member_id: Callable[[str], str] | None = None) -> None:
        """``is_coordinator_for(group_id)`` says whether this broker leads the group's
        ``__consumer_offsets`` partition (NOT_COORDINATOR otherwise); ``is_loading(group_id)``
        whether that partition is still being replayed (``is_loading(None)``: whether any is).
        ``new_member_id(prefix)`` makes member ids (``prefix-uuid4`` by default). The
        coordinator answers COORDINATOR_NOT_AVAILABLE until :meth:`startup`."""
        self.config = config
        self.store = store
        self.scheduler = scheduler
        self._is_coordinator_for = is_coordinator_for or (lambda _gid: True)
        self._is_loading = is_loading or (lambda _gid: False)
        self._new_member_id = new_member_id or (lambda prefix: f"{prefix}-{uuid.uuid4()}")
        self._groups: dict[str, ClassicGroup] = {}
        self._active = False
        self._depth = 0
        self._outbox: deque[tuple[Responder, Any]] = deque()

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def is_active(self) -> bool:
        return self._active

    def startup(self) -> None:
        self._active = True

    @_entry
    def shutdown(self, now_ms: int) -> None:
        """Stop: parked requests are answered NOT_COORDINATOR and every timer is dropped."""
        self._active = False
        for group in list(self._groups.values()):
            self._unload_group(group, now_ms)
        self._groups.clear()

    @_entry
    def load_group(self, group_id: str, value: GroupMetadataValue | None,
                   now_ms: int) -> ClassicGroup:
        """Rebuild a group from its stored GroupMetadataValue (Stable with its members, or
        Empty), replacing any group of that id; members get fresh session deadlines. ``None``
        loads a group known only through its committed offsets, as an Empty group."""
        old = self._groups.pop(group_id, None)
        if old is not None:
            self._unload_group(old, now_ms)
        group = ClassicGroup.from_metadata_value(group_id, value, now_ms)
        self._groups[group_id] = group
        if len(group) > self.config.max_size:
            self._prepare_rebalance(group, f"loaded group is over capacity "
                                           f"({self.config.max_size})", now_ms)
        for member in list(group.members.values()):
            self._schedule_heartbeat(group, member, now_ms)
        return group

    @_entry
    def remove_empty_group(self, group_id: str, now_ms: int) -> bool:
        """For offset expiration: an Empty group whose last offsets expired becomes Dead and is
        forgotten (the caller writes its tombstone). False when the group is not Empty."""
        group = self._groups.get(group_id)
        if group is None or group.state is not S.EMPTY:
            return False
        self._forget(group, now_ms)
        return True

    # -- queries -------------------------------------------------------------------------------

    def group(self, group_id: str) -> ClassicGroup | None:
        return self._groups.get(group_id)

    def groups(self) -> list[ClassicGroup]:
        return list(self._groups.values())

    # -- JoinGroup -----------------------------------------------------------------------------

    @_entry
    def handle_join_group(self, group_id: str, member_id: str, group_instance_id: str | None, *,
                          client_id: str, client_host: str, rebalance_timeout_ms: int,
                          session_timeout_ms: int, protocol_type: str,
                          protocols: Sequence[Protocol], now_ms: int, respond: JoinResponder,
                          require_known_member_id: bool = True,
                          supports_skipping_assignment: bool = False,
                          reason: str | None = None) -> None:
        """``require_known_member_id`` is JoinGroup v4+ (MEMBER_ID_REQUIRED);
        ``supports_skipping_assignment`` is v9+. v0 callers pass the session timeout as the
        rebalance timeout."""
        protocols = [(name, bytes(metadata)) for name, metadata in protocols]
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            self._deliver(respond, JoinGroupResult.failure(member_id, error))
            return
        if not (self.config.min_session_timeout_ms <= session_timeout_ms
                <= self.config.max_session_timeout_ms):
            self._deliver(respond, JoinGroupResult.failure(member_id, E.INVALID_SESSION_TIMEOUT))
            return
        is_unknown_member = member_id == ""
        group = self._groups.get(group_id)
        if group is None:
            if not is_unknown_member:
                self._deliver(respond, JoinGroupResult.failure(member_id, E.UNKNOWN_MEMBER_ID))
                return
            group = ClassicGroup(group_id, S.EMPTY, now_ms)
            self._groups[group_id] = group

        why = f"client reason: {reason or 'not provided'}"
        if not self._accept_joining_member(group, member_id):
            if group.remove(member_id) is not None:
                self.scheduler.cancel(_heartbeat_key(group, member_id))
            self._deliver(respond, JoinGroupResult.failure("", E.GROUP_MAX_SIZE_REACHED))
        elif is_unknown_member:
            self._join_new_member(group, group_instance_id, require_known_member_id,
                                  supports_skipping_assignment, client_id, client_host,
                                  rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                  protocols, respond, why, now_ms)
        else:
            self._join_current_member(group, member_id, group_instance_id, client_id,
                                      client_host, rebalance_timeout_ms, session_timeout_ms,
                                      protocol_type, protocols, respond, why, now_ms)
        if group.state is S.PREPARING_REBALANCE:
            self._try_complete_join(group, now_ms)

    def _accept_joining_member(self, group: ClassicGroup, member_id: str) -> bool:
        max_size = self.config.max_size
        if group.state in (S.EMPTY, S.DEAD):
            return True
        if group.state is S.PREPARING_REBALANCE:
            # Count members that already rejoined: the group may be over a lowered limit, and
            # the last to rejoin are the ones turned away.
            member = group.members.get(member_id)
            return ((member is not None and member.is_awaiting_join)
                    or group.num_awaiting_join < max_size)
        return member_id in group or len(group) < max_size

    def _join_new_member(self, group: ClassicGroup, group_instance_id: str | None,
                         require_known_member_id: bool, supports_skipping_assignment: bool,
                         client_id: str, client_host: str, rebalance_timeout_ms: int,
                         session_timeout_ms: int, protocol_type: str, protocols: list[Protocol],
                         respond: JoinResponder, why: str, now_ms: int) -> None:
        if group.state is S.DEAD:
            self._deliver(respond, JoinGroupResult.failure("", E.COORDINATOR_NOT_AVAILABLE))
            return
        if not group.supports_protocols(protocol_type, [name for name, _ in protocols]):
            self._deliver(respond, JoinGroupResult.failure("", E.INCONSISTENT_GROUP_PROTOCOL))
            return
        new_member_id = self._new_member_id(group_instance_id or client_id)
        if group_instance_id is not None:
            old_member_id = group.static_member_id(group_instance_id)
            if old_member_id is not None:
                log.info("group %s: static member %s rejoins with a new member id, replacing %s",
                         group.group_id, group_instance_id, old_member_id)
                self._update_static_member_and_rebalance(
                    group, old_member_id, new_member_id, group_instance_id, protocols,
                    rebalance_timeout_ms, session_timeout_ms, respond,
                    supports_skipping_assignment, why, now_ms)
            else:
                self._add_member_and_rebalance(
                    group, new_member_id, group_instance_id, client_id, client_host,
                    rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols, respond,
                    why, now_ms)
        elif require_known_member_id:
            # The member must come back with this id; until then it only holds a place.
            group.add_pending_member(new_member_id)
            self.scheduler.schedule(
                _pending_key(group, new_member_id), now_ms + session_timeout_ms,
                self._timer(self._on_pending_member_expired, group, new_member_id))
            self._deliver(respond, JoinGroupResult.failure(new_member_id, E.MEMBER_ID_REQUIRED))
        else:
            self._add_member_and_rebalance(
                group, new_member_id, None, client_id, client_host, rebalance_timeout_ms,
                session_timeout_ms, protocol_type, protocols, respond, why, now_ms)

    def _join_current_member(self, group: ClassicGroup, member_id: str,
                             group_instance_id: str | None, client_id: str, client_host: str,
                             rebalance_timeout_ms: int, session_timeout_ms: int,
                             protocol_type: str, protocols: list[Protocol],
                             respond: JoinResponder, why: str, now_ms: int) -> None:
        if group.state is S.DEAD:
            self._deliver(respond, JoinGroupResult.failure(member_id, E.COORDINATOR_NOT_AVAILABLE))
            return
        if not group.supports_protocols(protocol_type, [name for name, _ in protocols]):
            self._deliver(respond,
                          JoinGroupResult.failure(member_id, E.INCONSISTENT_GROUP_PROTOCOL))
            return
        if member_id in group.pending_members:
            if group_instance_id is not None:
                # Pending ids are only handed to dynamic members (Kafka fails the request).
                self._deliver(respond, JoinGroupResult.failure(member_id, E.UNKNOWN_SERVER_ERROR))
                return
            self.scheduler.cancel(_pending_key(group, member_id))
            self._add_member_and_rebalance(
                group, member_id, None, client_id, client_host, rebalance_timeout_ms,
                session_timeout_ms, protocol_type, protocols, respond, why, now_ms)
            return
        error = self._validate_current_member(group, member_id, group_instance_id)
        if error is not None:
            self._deliver(respond, JoinGroupResult.failure(member_id, error))
            return
        member = group.members[member_id]
        state = group.state
        if state is S.PREPARING_REBALANCE:
            self._update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms,
                                              session_timeout_ms, respond, why, now_ms)
        elif state is S.COMPLETING_REBALANCE:
            if member.matches(protocols):
                # It probably missed its JoinGroup answer: send it again.
                self._deliver(respond, self._join_result(group, member_id,
                                                         with_members=group.is_leader(member_id)))
            else:
                self._update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms,
                                                  session_timeout_ms, respond, why, now_ms)
        elif state is S.STABLE:
            if group.is_leader(member_id) or not member.matches(protocols):
                # A leader's JoinGroup always rebalances: that is how it reacts to changes
                # (topic metadata, for consumers) that do not show in member metadata.
                self._update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms,
                                                  session_timeout_ms, respond, why, now_ms)
            else:
                self._deliver(respond, self._join_result(group, member_id, with_members=False))
        else:  # Empty: a member cannot be known
            self._deliver(respond, JoinGroupResult.failure(member_id, E.UNKNOWN_MEMBER_ID))

    def _join_result(self, group: ClassicGroup, member_id: str, *, with_members: bool,
                     leader_id: str | None = None, skip_assignment: bool = False
                     ) -> JoinGroupResult:
        return JoinGroupResult(
            error_code=E.NONE,
            member_id=member_id,
            generation_id=group.generation_id,
            protocol_type=group.protocol_type,
            protocol_name=group.protocol_name,
            leader_id=(leader_id if leader_id is not None else group.leader_id) or "",
            skip_assignment=skip_assignment,
            members=group.current_member_metadata() if with_members else (),
        )

    def _add_member_and_rebalance(self, group: ClassicGroup, member_id: str,
                                  group_instance_id: str | None, client_id: str,
                                  client_host: str, rebalance_timeout_ms: int,
                                  session_timeout_ms: int, protocol_type: str,
                                  protocols: list[Protocol], respond: JoinResponder, why: str,
                                  now_ms: int) -> None:
        member = MemberMetadata(member_id, group_instance_id, client_id, client_host,
                                rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                protocols, is_new=True)
        if group.state is S.PREPARING_REBALANCE and group.generation_id == 0:
            group.new_member_added = True
        group.add(member, respond)
        self._schedule_heartbeat(group, member, now_ms,
                                 timeout_ms=self.config.new_member_join_timeout_ms)
        self._maybe_prepare_rebalance(group, f"adding new member {member_id}; {why}", now_ms)

    def _update_member_and_rebalance(self, group: ClassicGroup, member: MemberMetadata,
                                     protocols: list[Protocol], rebalance_timeout_ms: int,
                                     session_timeout_ms: int, respond: JoinResponder, why: str,
                                     now_ms: int) -> None:
        displaced = group.update_member(member, protocols, rebalance_timeout_ms,
                                        session_timeout_ms, respond)
        if displaced is not None and displaced is not respond:
            self._deliver(displaced, JoinGroupResult.failure(member.member_id,
                                                             E.REBALANCE_IN_PROGRESS))
        self._maybe_prepare_rebalance(group, f"member {member.member_id} rejoins; {why}", now_ms)

    def _update_static_member_and_rebalance(self, group: ClassicGroup, old_member_id: str,
                                            new_member_id: str, group_instance_id: str,
                                            protocols: list[Protocol], rebalance_timeout_ms: int,
                                            session_timeout_ms: int, respond: JoinResponder,
                                            supports_skipping_assignment: bool, why: str,
                                            now_ms: int) -> None:
        previous_leader = group.leader_id
        member = group.members[old_member_id]
        # Whoever still uses the old id is fenced at once.
        self._answer_join(group, member, JoinGroupResult.failure(old_member_id,
                                                                  E.FENCED_INSTANCE_ID))
        self._answer_sync(member, SyncGroupResult.failure(E.FENCED_INSTANCE_ID))
        group.replace_static_member(group_instance_id, old_member_id, new_member_id)
        self.scheduler.cancel(_heartbeat_key(group, old_member_id))
        self._schedule_heartbeat(group, member, now_ms)

        old_protocols = member.supported_protocols
        old_rebalance_timeout_ms = member.rebalance_timeout_ms
        old_session_timeout_ms = member.session_timeout_ms
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, respond)

        state = group.state
        if state is S.STABLE:
            if group.protocol_name != group.select_protocol():
                self._maybe_prepare_rebalance(
                    group, f"static member {group_instance_id} rejoins with a protocol change; "
                           f"{why}", now_ms)
                return
            # Same protocol: the current assignment stands; only the new member id is stored.
            assignment = {m.member_id: m.assignment for m in group.members.values()}
            error = self.store.store_group(group.group_id, group.to_metadata_value(assignment),
                                           now_ms)
            if error is not E.NONE:
                log.warning("group %s: storing static member %s failed (%s), reverting",
                            group.group_id, group_instance_id, error.name)
                group.update_member(member, old_protocols, old_rebalance_timeout_ms,
                                    old_session_timeout_ms, None)
                group.replace_static_member(group_instance_id, new_member_id, old_member_id)
                self.scheduler.cancel(_heartbeat_key(group, new_member_id))
                self._schedule_heartbeat(group, member, now_ms)
                self._deliver(respond, JoinGroupResult(
                    error_code=error, member_id="", generation_id=group.generation_id,
                    protocol_type=group.protocol_type, protocol_name=group.protocol_name,
                    leader_id=previous_leader or ""))
            elif supports_skipping_assignment:
                # v9+: a static leader learns it leads but must not compute a new assignment.
                is_leader = group.is_leader(new_member_id)
                self._answer_join(group, member, self._join_result(
                    group, new_member_id, with_members=is_leader, skip_assignment=is_leader))
            else:
                # Older clients: answering with the previous leader id keeps a returning
                # leader from running an assignment the Stable group would ignore.
                self._answer_join(group, member, self._join_result(
                    group, new_member_id, with_members=False, leader_id=previous_leader or ""))
        elif state is S.COMPLETING_REBALANCE:
            # The leader may be assigning to the old member id: start over.
            self._prepare_rebalance(group, f"static member {group_instance_id} rejoins during "
                                           f"CompletingRebalance; {why}", now_ms)
        elif state is not S.PREPARING_REBALANCE:
            raise AssertionError(f"group {group.group_id} has a static member in {state}")

    # -- SyncGroup -----------------------------------------------------------------------------

    @_entry
    def handle_sync_group(self, group_id: str, generation_id: int, member_id: str,
                          group_instance_id: str | None, *, assignments: Mapping[str, bytes],
                          now_ms: int, respond: SyncResponder, protocol_type: str | None = None,
                          protocol_name: str | None = None) -> None:
        """``protocol_type``/``protocol_name`` are checked when given (SyncGroup v5+)."""
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            # A rebalance interrupted by a reload has to start over from JoinGroup; older
            # clients do not expect COORDINATOR_LOAD_IN_PROGRESS here.
            if error is E.COORDINATOR_LOAD_IN_PROGRESS:
                error = E.REBALANCE_IN_PROGRESS
            self._deliver(respond, SyncGroupResult.failure(error))
            return
        group = self._groups.get(group_id)
        if group is None:
            self._deliver(respond, SyncGroupResult.failure(E.UNKNOWN_MEMBER_ID))
            return
        error = self._validate_sync(group, generation_id, member_id, group_instance_id,
                                    protocol_type, protocol_name)
        if error is not None:
            self._deliver(respond, SyncGroupResult.failure(error))
            return
        state = group.state
        if state is S.EMPTY:
            self._deliver(respond, SyncGroupResult.failure(E.UNKNOWN_MEMBER_ID))
        elif state is S.PREPARING_REBALANCE:
            self._deliver(respond, SyncGroupResult.failure(E.REBALANCE_IN_PROGRESS))
        elif state is S.COMPLETING_REBALANCE:
            member = group.members[member_id]
            displaced = member.awaiting_sync
            member.awaiting_sync = respond
            if displaced is not None and displaced is not respond:
                self._deliver(displaced, SyncGroupResult.failure(E.REBALANCE_IN_PROGRESS))
            self._remove_pending_sync_member(group, member_id)
            if group.is_leader(member_id):
                self._complete_assignment(group, generation_id, member_id, assignments, now_ms)
        elif state is S.STABLE:
            self._remove_pending_sync_member(group, member_id)
            member = group.members[member_id]
            self._deliver(respond, SyncGroupResult(E.NONE, group.protocol_type,
                                                   group.protocol_name, member.assignment))
            self._schedule_heartbeat(group, member, now_ms)
        else:
            raise AssertionError(f"SyncGroup reached group {group.group_id} in {state}")

    def _validate_sync(self, group: ClassicGroup, generation_id: int, member_id: str,
                       group_instance_id: str | None, protocol_type: str | None,
                       protocol_name: str | None) -> ErrorCode | None:
        if group.state is S.DEAD:
            return E.COORDINATOR_NOT_AVAILABLE
        error = self._validate_current_member(group, member_id, group_instance_id)
        if error is not None:
            return error
        if generation_id != group.generation_id:
            return E.ILLEGAL_GENERATION
        if protocol_type is not None and protocol_type != group.protocol_type:
            return E.INCONSISTENT_GROUP_PROTOCOL
        if protocol_name is not None and protocol_name != group.protocol_name:
            return E.INCONSISTENT_GROUP_PROTOCOL
        return None

    def _complete_assignment(self, group: ClassicGroup, generation_id: int, leader_id: str,
                             assignments: Mapping[str, bytes], now_ms: int) -> None:
        """The leader's SyncGroup: store the assignment, then hand it out (or the error)."""
        log.info("group %s: assignment from leader %s for generation %d (%d members)",
                 group.group_id, leader_id, generation_id, len(group))
        # Members the leader left out get an empty assignment; unknown ids are ignored.
        assignment = {mid: bytes(assignments.get(mid, b"")) for mid in group.members}
        error = self.store.store_group(group.group_id, group.to_metadata_value(assignment),
                                       now_ms)
        if group.state is not S.COMPLETING_REBALANCE or group.generation_id != generation_id:
            return  # the group moved on while the record was written
        if error is not E.NONE:
            self._reset_and_propagate_assignment_error(group, error, now_ms)
            self._maybe_prepare_rebalance(
                group, f"error {error.name} storing the assignment from {leader_id}", now_ms)
        else:
            for member in group.members.values():
                member.assignment = assignment[member.member_id]
            self._propagate_assignment(group, E.NONE, now_ms)
            group.transition_to(S.STABLE, now_ms)

    def _reset_and_propagate_assignment_error(self, group: ClassicGroup, error: ErrorCode,
                                              now_ms: int) -> None:
        assert group.state is S.COMPLETING_REBALANCE
        for member in group.members.values():
            member.assignment = b""
        self._propagate_assignment(group, error, now_ms)

    def _propagate_assignment(self, group: ClassicGroup, error: ErrorCode, now_ms: int) -> None:
        ok = error is E.NONE
        for member in list(group.members.values()):
            result = SyncGroupResult(error,
                                     group.protocol_type if ok else None,
                                     group.protocol_name if ok else None,
                                     member.assignment)
            if self._answer_sync(member, result):
                # A session that ran out while the member waited was ignored; start it afresh.
                self._schedule_heartbeat(group, member, now_ms)

    # -- Heartbeat -----------------------------------------------------------------------------

    @_entry
    def handle_heartbeat(self, group_id: str, member_id: str, group_instance_id: str | None,
                         generation_id: int, now_ms: int) -> ErrorCode:
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            # While loading there is nothing to check against: answer blindly.
            return E.NONE if error is E.COORDINATOR_LOAD_IN_PROGRESS else error
        group = self._groups.get(group_id)
        if group is None:
            return E.UNKNOWN_MEMBER_ID
        if group.state is S.DEAD:
            return E.COORDINATOR_NOT_AVAILABLE
        error = self._validate_current_member(group, member_id, group_instance_id)
        if error is not None:
            return error
        if generation_id != group.generation_id:
            return E.ILLEGAL_GENERATION
        if group.state is S.EMPTY:
            return E.UNKNOWN_MEMBER_ID
        self._schedule_heartbeat(group, group.members[member_id], now_ms)
        if group.state is S.PREPARING_REBALANCE:
            return E.REBALANCE_IN_PROGRESS
        return E.NONE

    # -- LeaveGroup ----------------------------------------------------------------------------

    @_entry
    def handle_leave_group(self, group_id: str, members: Sequence[LeavingMember],
                           now_ms: int) -> LeaveGroupResult:
        """Per-member errors in request order. v0-2 callers take the single member's error as
        the top-level error when the top-level one is NONE."""
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            return LeaveGroupResult(error)
        group = self._groups.get(group_id)
        if group is None:
            return LeaveGroupResult(E.NONE, tuple(
                MemberLeaveResult(m.member_id, m.group_instance_id, E.UNKNOWN_MEMBER_ID)
                for m in members))
        if group.state is S.DEAD:
            return LeaveGroupResult(E.COORDINATOR_NOT_AVAILABLE)
        results = []
        for leaving in members:
            error = self._leave_one(group, leaving, now_ms)
            results.append(MemberLeaveResult(leaving.member_id, leaving.group_instance_id, error))
        return LeaveGroupResult(E.NONE, tuple(results))

    def _leave_one(self, group: ClassicGroup, leaving: LeavingMember, now_ms: int) -> ErrorCode:
        why = f"member left; client reason: {leaving.reason or 'not provided'}"
        if leaving.member_id == "":
            # Administrative removal of a static member names only its instance id.
            current = (group.static_member_id(leaving.group_instance_id)
                       if leaving.group_instance_id is not None else None)
            if current is None:
                return E.UNKNOWN_MEMBER_ID
            self._remove_member_and_update_group(group, group.members[current], why, now_ms)
            return E.NONE
        if leaving.member_id in group.pending_members:
            self.scheduler.cancel(_pending_key(group, leaving.member_id))
            self._remove_pending_member_and_update_group(group, leaving.member_id, now_ms)
            return E.NONE
        error = self._validate_current_member(group, leaving.member_id, leaving.group_instance_id)
        if error is not None:
            return error
        self._remove_member_and_update_group(group, group.members[leaving.member_id], why,
                                             now_ms)
        return E.NONE

    # -- offsets -------------------------------------------------------------------------------

    @_entry
    def handle_commit_offsets(self, group_id: str, member_id: str,
                              group_instance_id: str | None, generation_id: int, now_ms: int, *,
                              transactional: bool = False) -> ErrorCode:
        """Whether an OffsetCommit (or TxnOffsetCommit) may be stored for this group. A commit
        with generation -1 for an unknown group creates it, Empty, for simple consumers; a
        member's commit also counts as its heartbeat."""
        error = self._validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            return error
        group = self._groups.get(group_id)
        if group is None:
            if generation_id >= 0 and not transactional:
                # A member of a generation this coordinator does not know.
                return E.ILLEGAL_GENERATION
            log.info("group %s: created by an offset commit", group_id)
            group = ClassicGroup(group_id, S.EMPTY, now_ms)
            self._groups[group_id] = group
        error = self._validate_offset_commit(group, generation_id, member_id, group_instance_id,
                                             transactional)
        if error is not None or transactional:
            return error or E.NONE
        state = group.state
        if state is S.EMPTY:
            return E.NONE
        if state is S.COMPLETING_REBALANCE:
            # The member has its new generation but not its assignment yet.
            return E.REBALANCE_IN_PROGRESS
        # Stable, or PreparingRebalance, where the previous generation may still commit.
        self._schedule_heartbeat(group, group.members[member_id], now_ms)
        return E.NONE

    def _validate_offset_commit(self, group: ClassicGroup, generation_id: int, member_id: str,
                                group_instance_id: str | None,
                                transactional: bool) -> ErrorCode | None:
        if group.state is S.DEAD:
            return E.COORDINATOR_NOT_AVAILABLE
        if generation_id < 0 and group.state is S.EMPTY:
            return None  # admin client or a consumer without group management
        if generation_id >= 0 or member_id != "" or group_instance_id is not None:
            error = self._validate_current_member(group, member_id, group_instance_id)
            if error is not None:
                return error
            return E.ILLEGAL_GENERATION if generation_id != group.generation_id else None
        if not transactional and group.state is not S.EMPTY:
            return E.UNKNOWN_MEMBER_ID  # only members commit for a group that has members
        return None

    def handle_fetch_offsets(self, group_id: str) -> ErrorCode:
        """OffsetFetch answers from the offset cache whatever the group's state; only the
        coordinator's own status can fail it."""
        return self._validate_group_status(group_id, allow_empty_id=True) or E.NONE

    def validate_delete_offsets(self, group_id: str, topics: Iterable[str]
                                ) -> tuple[ErrorCode, frozenset[str]]:
        """OffsetDelete: the group-level error, and which of ``topics`` the group's consumers
        subscribe to (their partitions get GROUP_SUBSCRIBED_TO_TOPIC; the rest may go)."""
        error = self._validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            return error, frozenset()
        group = self._groups.get(group_id)
        if group is None or group.state is S.DEAD:
            return E.GROUP_ID_NOT_FOUND, frozenset()
        if group.state is S.EMPTY:
            return E.NONE, frozenset()
        if group.is_consumer_group:
            return E.NONE, frozenset(t for t in topics if group.is_subscribed_to_topic(t))
        return E.NON_EMPTY_GROUP, frozenset()

    # -- DescribeGroups, ListGroups, DeleteGroups ----------------------------------------------

    def handle_describe_group(self, group_id: str) -> DescribeGroupResult:
        """A group this coordinator does not know is described as Dead with no error."""
        error = self._validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            return DescribeGroupResult(error, group_id, _NO_GROUP)
        group = self._groups.get(group_id)
        if group is None:
            return DescribeGroupResult(E.NONE, group_id, _DEAD_GROUP)
        return DescribeGroupResult(E.NONE, group_id, group.summary())

    def handle_list_groups(self, states: Collection[str] = (),
                           types: Collection[str] = ()) -> ListGroupsResult:
        """Filters are case-insensitive; an empty filter matches all. Every group here is a
        classic group, so a type filter without "classic" matches none."""
        if not self._active:
            return ListGroupsResult(E.COORDINATOR_NOT_AVAILABLE, ())
        error = E.COORDINATOR_LOAD_IN_PROGRESS if self._is_loading(None) else E.NONE
        wanted_states = {s.lower() for s in states}
        if types and CLASSIC_GROUP_TYPE not in {t.lower() for t in types}:
            return ListGroupsResult(error, ())
        return ListGroupsResult(error, tuple(
            g.overview() for g in self._groups.values()
            if not wanted_states or g.is_in_states(wanted_states)))

    @_entry
    def handle_delete_groups(self, group_ids: Iterable[str], now_ms: int) -> dict[str, ErrorCode]:
        """Only Empty groups can be deleted; each becomes Dead, is forgotten, and the store
        drops its metadata and offsets."""
        results: dict[str, ErrorCode] = {}
        for group_id in group_ids:
            error = self._validate_group_status(group_id, allow_empty_id=True)
            if error is not None:
                results[group_id] = error
                continue
            group = self._groups.get(group_id)
            if group is None or group.state is S.DEAD:
                results[group_id] = E.GROUP_ID_NOT_FOUND
            elif group.state is S.EMPTY:
                self._forget(group, now_ms)
                # A generation-0 group only ever stored offsets: no metadata to tombstone.
                self.store.delete_group(group_id, now_ms,
                                        tombstone_group=group.generation_id > 0)
                results[group_id] = E.NONE
            else:
                results[group_id] = E.NON_EMPTY_GROUP
        return results

    # -- rebalancing ---------------------------------------------------------------------------

    def _maybe_prepare_rebalance(self, group: ClassicGroup, reason: str, now_ms: int) -> None:
        if group.can_rebalance:
            self._prepare_rebalance(group, reason, now_ms)

    def _prepare_rebalance(self, group: ClassicGroup, reason: str, now_ms: int) -> None:
        if group.state is S.COMPLETING_REBALANCE:
            # Followers waiting for an assignment have to rejoin instead.
            self._reset_and_propagate_assignment_error(group, E.REBALANCE_IN_PROGRESS, now_ms)
        self._remove_sync_expiration(group)
        if group.state is S.EMPTY:
            delay = self.config.initial_rebalance_delay_ms
            op = _DelayedJoin(delay_ms=delay, initial=True,
                              remaining_ms=max(group.rebalance_timeout_ms - delay, 0))
        else:
            op = _DelayedJoin(delay_ms=group.rebalance_timeout_ms)
        log.info("group %s: preparing to rebalance from %s, generation %d (%s)",
                 group.group_id, group.state, group.generation_id, reason)
        group.transition_to(S.PREPARING_REBALANCE, now_ms)
        self._watch_join(group, op, now_ms)

    def _watch_join(self, group: ClassicGroup, op: _DelayedJoin, now_ms: int) -> None:
        group.delayed_join = op
        if not op.initial and group.has_all_members_joined():
            self._complete_join(group, now_ms)
            return
        self.scheduler.schedule(_join_key(group), now_ms + op.delay_ms,
                                self._timer(self._on_join_deadline, group, op))

    def _try_complete_join(self, group: ClassicGroup, now_ms: int) -> None:
        op = group.delayed_join
        if op is not None and not op.initial and group.has_all_members_joined():
            self._complete_join(group, now_ms)

    def _complete_join(self, group: ClassicGroup, now_ms: int) -> None:
        group.delayed_join = None
        self.scheduler.cancel(_join_key(group))
        self._on_complete_join(group, now_ms)

    def _on_join_deadline(self, group: ClassicGroup, op: _DelayedJoin, now_ms: int) -> None:
        if group.delayed_join is not op:
            return
        group.delayed_join = None
        if op.initial and group.new_member_added and op.remaining_ms != 0:
            # Members are still arriving at a new group: wait a little longer, within the
            # rebalance timeout.
            group.new_member_added = False
            configured = self.config.initial_rebalance_delay_ms
            self._watch_join(group, _DelayedJoin(
                delay_ms=min(configured, op.remaining_ms), initial=True,
                remaining_ms=max(op.remaining_ms - op.delay_ms, 0)), now_ms)
            return
        self._on_complete_join(group, now_ms)

    def _on_complete_join(self, group: ClassicGroup, now_ms: int) -> None:
        for member in group.not_yet_rejoined_members():
            if not member.is_static:
                log.info("group %s: removing member %s, which did not rejoin in time",
                         group.group_id, member.member_id)
                self._drop_member(group, member.member_id)
        if group.state is S.DEAD:
            return
        if not group.maybe_elect_new_joined_leader() and group.members:
            # Only static members that have not rejoined are left: wait for them (or for their
            # sessions to run out).
            log.warning("group %s: cannot complete the rebalance, no member rejoined",
                        group.group_id)
            self._watch_join(group, _DelayedJoin(delay_ms=group.rebalance_timeout_ms), now_ms)
            return
        group.init_next_generation(now_ms)
        if group.state is S.EMPTY:
            log.info("group %s: generation %d is empty", group.group_id, group.generation_id)
            error = self.store.store_group(group.group_id, group.to_metadata_value({}), now_ms)
            if error is not E.NONE:
                # The previous generation may come back after a restart; with no members
                # left that is harmless, so only warn (as Kafka does).
                log.warning("group %s: storing the empty group failed: %s", group.group_id,
                            error.name)
            return
        log.info("group %s: generation %d with %d members, protocol %s, leader %s",
                 group.group_id, group.generation_id, len(group), group.protocol_name,
                 group.leader_id)
        for member in list(group.members.values()):
            self._answer_join(group, member, self._join_result(
                group, member.member_id, with_members=group.is_leader(member.member_id)))
            self._schedule_heartbeat(group, member, now_ms)
            member.is_new = False
            group.pending_sync_members.add(member.member_id)
        self._schedule_pending_sync(group, now_ms)

    # -- the sync deadline ---------------------------------------------------------------------

    def _schedule_pending_sync(self, group: ClassicGroup, now_ms: int) -> None:
        generation = group.generation_id
        self.scheduler.schedule(_sync_key(group), now_ms + group.rebalance_timeout_ms,
                                self._timer(self._on_sync_deadline, group, generation))

    def _remove_pending_sync_member(self, group: ClassicGroup, member_id: str) -> None:
        group.pending_sync_members.discard(member_id)
        if not group.pending_sync_members:
            self.scheduler.cancel(_sync_key(group))

    def _remove_sync_expiration(self, group: ClassicGroup) -> None:
        group.pending_sync_members.clear()
        self.scheduler.cancel(_sync_key(group))

    def _on_sync_deadline(self, group: ClassicGroup, generation: int, now_ms: int) -> None:
        if generation != group.generation_id:
            return
        if group.state not in (S.COMPLETING_REBALANCE, S.STABLE):
            return
        missing = list(group.pending_sync_members)
        if not missing:
            return
        for member_id in missing:
            self._drop_member(group, member_id)
        self._prepare_rebalance(group, f"members {missing} did not send SyncGroup in time",
                                now_ms)

    # -- members leaving -----------------------------------------------------------------------

    def _remove_member_and_update_group(self, group: ClassicGroup, member: MemberMetadata,
                                        reason: str, now_ms: int) -> None:
        # A member still parked in JoinGroup (a new member timing out) is told to start over.
        self._answer_join(group, member, JoinGroupResult.failure("", E.UNKNOWN_MEMBER_ID))
        self._drop_member(group, member.member_id)
        state = group.state
        if state in (S.STABLE, S.COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance(group, reason, now_ms)
        elif state is S.PREPARING_REBALANCE:
            self._try_complete_join(group, now_ms)

    def _remove_pending_member_and_update_group(self, group: ClassicGroup, member_id: str,
                                                now_ms: int) -> None:
        group.remove(member_id)
        if group.state is S.PREPARING_REBALANCE:
            self._try_complete_join(group, now_ms)

    def _drop_member(self, group: ClassicGroup, member_id: str) -> None:
        """Remove a member and its session timer, answering a parked SyncGroup."""
        member = group.remove(member_id)
        self.scheduler.cancel(_heartbeat_key(group, member_id))
        if member is not None:
            self._answer_sync(member, SyncGroupResult.failure(E.UNKNOWN_MEMBER_ID))

    # -- session timers ------------------------------------------------------------------------

    def _schedule_heartbeat(self, group: ClassicGroup, member: MemberMetadata, now_ms: int,
                            timeout_ms: int | None = None) -> None:
        member.heartbeat_satisfied = False
        timeout = member.session_timeout_ms if timeout_ms is None else timeout_ms
        self.scheduler.schedule(_heartbeat_key(group, member.member_id), now_ms + timeout,
                                self._timer(self._on_session_expired, group, member.member_id))

    def _on_session_expired(self, group: ClassicGroup, member_id: str, now_ms: int) -> None:
        if group.state is S.DEAD:
            return
        member = group.members.get(member_id)
        if member is None or member.has_satisfied_heartbeat():
            return
        log.info("group %s: member %s failed (session expired), removing it", group.group_id,
                 member_id)
        self._remove_member_and_update_group(group, member, f"session of {member_id} expired",
                                             now_ms)

    def _on_pending_member_expired(self, group: ClassicGroup, member_id: str,
                                   now_ms: int) -> None:
        if group.state is S.DEAD or member_id not in group.pending_members:
            return
        log.info("group %s: pending member %s did not rejoin in time", group.group_id, member_id)
        self._remove_pending_member_and_update_group(group, member_id, now_ms)

    # -- validation ----------------------------------------------------------------------------

    def _validate_group_status(self, group_id: str | None, *,
                               allow_empty_id: bool) -> ErrorCode | None:
        # OffsetCommit/Fetch, DescribeGroups and DeleteGroups accept the empty group id, for
        # compatibility; the group-management APIs need a real one.
        if group_id is None or (group_id == "" and not allow_empty_id):
            return E.INVALID_GROUP_ID
        if not self._active:
            return E.COORDINATOR_NOT_AVAILABLE
        if self._is_loading(group_id):
            return E.COORDINATOR_LOAD_IN_PROGRESS
        if not self._is_coordinator_for(group_id):
            return E.NOT_COORDINATOR
        return None

    @staticmethod
    def _validate_current_member(group: ClassicGroup, member_id: str,
                                 group_instance_id: str | None) -> ErrorCode | None:
        """A given instance id must map to ``member_id`` (else FENCED_INSTANCE_ID, or
        UNKNOWN_MEMBER_ID if unknown), and the member must exist."""
        if group_instance_id is not None:
            current = group.static_member_id(group_instance_id)
            if current is None:
                return E.UNKNOWN_MEMBER_ID
            if current != member_id:
                return E.FENCED_INSTANCE_ID
        if member_id not in group:
            return E.UNKNOWN_MEMBER_ID
        return None

    # -- answers -------------------------------------------------------------------------------

    def _answer_join(self, group: ClassicGroup, member: MemberMetadata,
                     result: JoinGroupResult) -> bool:
        respond = group.take_join_responder(member)
        if respond is None:
            return False
        self._deliver(respond, result)
        return True

    def _answer_sync(self, member: MemberMetadata, result: SyncGroupResult) -> bool:
        respond = ClassicGroup.take_sync_responder(member)
        if respond is None:
            return False
        self._deliver(respond, result)
        return True

    def _deliver(self, respond: Responder, result: Any) -> None:
        self._outbox.append((respond, result))

    def _flush(self) -> None:
        while self._outbox:
            respond, result = self._outbox.popleft()
            try:
                respond(result)
            except Exception:
                log.exception("delivering %r failed", result)

    def _timer(self, fn: Callable[..., None], *args: Any) -> Callable[[int], None]:
        """A timer callback that runs ``fn(*args, now_ms)`` as a coordinator entry point."""

        def fire(now_ms: int) -> None:
            self._depth += 1
            try:
                fn(*args, now_ms)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._flush()

        return fire

    # -- unloading -----------------------------------------------------------------------------

    def _forget(self, group: ClassicGroup, now_ms: int) -> None:
        """An Empty group becomes Dead and leaves the coordinator."""
        self._unload_group(group, now_ms)
        del self._groups[group.group_id]

    def _unload_group(self, group: ClassicGroup, now_ms: int) -> None:
        previous = group.state
        if previous is not S.DEAD:
            group.transition_to(S.DEAD, now_ms)
        for member in group.members.values():
            if previous is S.PREPARING_REBALANCE:
                self._answer_join(group, member,
                                  JoinGroupResult.failure(member.member_id, E.NOT_COORDINATOR))
            self._answer_sync(member, SyncGroupResult.failure(E.NOT_COORDINATOR))
            self.scheduler.cancel(_heartbeat_key(group, member.member_id))
        for member_id in group.pending_members:
            self.scheduler.cancel(_pending_key(group, member_id))
        group.delayed_join = None
        self.scheduler.cancel(_join_key(group))
        self.scheduler.cancel(_sync_key(group))


def _heartbeat_key(group: ClassicGroup, member_id: str) -> tuple[str, str, str]:
    return ("heartbeat", group.group_id, member_id)


def _pending_key(group: ClassicGroup, member_id: str) -> tuple[str, str, str]:
    return ("pending", group.group_id, member_id)


def _join_key(group: ClassicGroup) -> tuple[str, str]:
    return ("join", group.group_id)


def _sync_key(group: ClassicGroup) -> tuple[str, str]:
    return ("sync", group.group_id)
