"""The classic group coordinator: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and the group side
of offset commits, DescribeGroups, ListGroups and DeleteGroups, following Kafka's
GroupCoordinator.

:class:`GroupCoordinator` is the one entry class. It is put together from one mixin per part of
Kafka's coordinator, each in its own module:

* :mod:`.join` - JoinGroup, and preparing and completing rebalances (:class:`~.join.JoinRequest`);
* :mod:`.sync` - SyncGroup, the leader's assignment, the pending-sync deadline
  (:class:`~.sync.SyncRequest`);
* :mod:`.membership` - Heartbeat, LeaveGroup, session and pending-member expiry;
* :mod:`.group_apis` - the group side of the offset APIs, DescribeGroups, ListGroups,
  DeleteGroups;
* :mod:`.core` - what they share: state, validation, the answer outbox, timer keys.

This module keeps the configuration, the store protocol, construction and the group table's
life cycle (start-up, shutdown, loading and forgetting groups).

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

* ``("heartbeat", group, member)`` (:mod:`.membership`) - the member's session deadline, pushed back by
  heartbeats, commits and completed joins/syncs. A member parked in JoinGroup or SyncGroup
  is not expired by it (it cannot heartbeat), except a *new* member, whose first join gets
  ``new_member_join_timeout_ms`` instead, so that abandoned joins do not pile up.
* ``("pending", group, member)`` (:mod:`.join`) - a member id handed out with MEMBER_ID_REQUIRED must be used
  within the session timeout.
* ``("join", group)`` (:mod:`.join`) - the end of the join phase: the rebalance timeout (largest of the
  members'), or for a group leaving Empty, ``group.initial.rebalance.delay.ms`` steps that are
  extended while new members keep arriving, up to the rebalance timeout. Members that did not
  rejoin by then are removed (static members are kept).
* ``("sync", group)`` (:mod:`.sync`) - members that got their JoinGroup answer must send SyncGroup within the
  rebalance timeout, or they are removed and the group rebalances again.

Differences from Kafka, deliberately: a JoinGroup or SyncGroup that a newer request from the
same member displaces is answered (REBALANCE_IN_PROGRESS) instead of being left unanswered, and
a member removed while its SyncGroup is parked gets UNKNOWN_MEMBER_ID, so no caller is left
waiting for an answer that would never come. Protocol-vote ties go to the protocol that got its
first vote first (Kafka leaves it to hash order).
"""

from __future__ import annotations

import itertools
import logging
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol as TypingProtocol

from protocol.errors import ErrorCode
from protocol.messages.group_metadata_value import GroupMetadataValue
from pybroker.config import broker_default, broker_value
from pybroker.kernel.outcome import Outcome

from .core import MixedGroups, entry_point, heartbeat_key, join_key, pending_key, sync_key
from .group import ClassicGroup, JoinGroupResult, SyncGroupResult
from .group_apis import GroupApis
from .join import JoinPhase
from .member import MemberMetadata
from .membership import Membership
from .state import GroupState
from .sync import SyncPhase
from .timers import Scheduler

log = logging.getLogger(__name__)

E = ErrorCode
S = GroupState


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
                    now_ms: int) -> Outcome[ErrorCode]:
        """Write the group's metadata record: its error at once, or a future of it while the
        record is replicated. The result is what the members are told, so a storage failure
        must already be mapped to a client error (as Kafka maps NOT_LEADER_OR_FOLLOWER to
        NOT_COORDINATOR, NOT_ENOUGH_REPLICAS to COORDINATOR_NOT_AVAILABLE, MESSAGE_TOO_LARGE to
        UNKNOWN_SERVER_ERROR, ...)."""

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


class GroupCoordinator(JoinPhase, SyncPhase, Membership, GroupApis):
    """Kafka's classic GroupCoordinator, clock-free; see the module docstring.

    The parts are mixins over one shared state rather than separate objects because they are
    one state machine: they call each other in both directions (a SyncGroup timeout restarts
    the join phase, a rebalance cancels the sync deadline, a member leaving may complete a
    join), every method works on the same groups, timers and outbox, and no part has state of
    its own to hide. As methods of one class they keep the shape of Kafka's GroupCoordinator."""

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
        self._groups = {}
        #: the verdict of the other group types on a JoinGroup for an id this coordinator
        #: does not know (the ids are one namespace): NONE to go on (no such group, or an
        #: empty one that was dropped), else the error to answer
        self.foreign_group: Callable[[str, int], ErrorCode] = lambda _gid, _now: E.NONE
        #: the consumer groups classic members may join (None: none are served)
        self.mixed: MixedGroups | None = None
        #: rebalances that completed their join phase with members (Kafka's
        #: ``group-completed-rebalance-count``)
        self.completed_rebalances = 0
        self._active = False
        self._depth = 0
        self._outbox = deque()
        self._stores = itertools.count()

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def is_active(self) -> bool:
        return self._active

    def startup(self) -> None:
        self._active = True

    @entry_point
    def shutdown(self, now_ms: int) -> None:
        """Stop: parked requests are answered NOT_COORDINATOR and every timer is dropped."""
        self._active = False
        for group in list(self._groups.values()):
            self._unload_group(group, now_ms)
        self._groups.clear()

    @entry_point
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

    @entry_point
    def drop_empty_group(self, group_id: str, now_ms: int) -> bool:
        """A consumer-protocol heartbeat takes over the id of an empty classic group: the
        group is forgotten (the caller writes the tombstone of its metadata). False when
        there is no such group or it has members."""
        group = self._groups.get(group_id)
        if group is None or len(group) > 0:
            return False
        self._forget(group, now_ms)
        return True

    @entry_point
    def hand_over_group(self, group_id: str, now_ms: int) -> ClassicGroup | None:
        """A consumer-protocol member joins a classic group with members, which becomes a
        consumer group (KIP-848's online upgrade): parked JoinGroup and SyncGroup answers get
        REBALANCE_IN_PROGRESS (the members rejoin, now as classic members of the consumer
        group), the group's timers are dropped and it is forgotten here; the group, as it was,
        for the caller to convert."""
        group = self._groups.pop(group_id, None)
        if group is not None:
            self._unload_group(group, now_ms, E.REBALANCE_IN_PROGRESS)
        return group

    @staticmethod
    def downgraded_group(group_id: str, generation: int, members: Iterable[MemberMetadata],
                         now_ms: int) -> ClassicGroup:
        """A consumer group's classic members as a classic group (KIP-848's online downgrade,
        Kafka's ``ClassicGroup.fromConsumerGroup``): Stable at the consumer group's epoch, the
        first member leading, the protocol the members have in common chosen."""
        group = ClassicGroup(group_id, S.STABLE, now_ms)
        group.generation_id = generation
        for member in members:
            group.add(member)
        group.protocol_name = group.select_protocol()
        group.subscribed_topics = group.compute_subscribed_topics()
        return group

    @entry_point
    def adopt_group(self, group: ClassicGroup, now_ms: int) -> None:
        """Serve a group made by :meth:`downgraded_group` once its records are written: its
        members' sessions run, and a rebalance starts that they join as a classic group."""
        self._groups[group.group_id] = group
        for member in group.members.values():
            self._schedule_heartbeat(group, member, now_ms)
        self._maybe_prepare_rebalance(
            group, f"Downgrade group {group.group_id} from consumer to classic.", now_ms)

    @entry_point
    def remove_empty_group(self, group_id: str, now_ms: int) -> bool:
        """For offset expiration: an Empty group whose last offsets expired becomes Dead and is
        forgotten (the caller writes its tombstone). False when the group is not Empty."""
        group = self._groups.get(group_id)
        if group is None or group.state is not S.EMPTY:
            return False
        self._forget(group, now_ms)
        return True

    @entry_point
    def unload_groups(self, group_ids: Iterable[str], now_ms: int) -> None:
        """This broker stopped coordinating these groups (their ``__consumer_offsets``
        partition moved away): parked requests are answered NOT_COORDINATOR, their timers
        dropped, and the groups forgotten here (their records stay in the log)."""
        for group_id in list(group_ids):
            group = self._groups.pop(group_id, None)
            if group is not None:
                self._unload_group(group, now_ms)

    # -- queries -------------------------------------------------------------------------------

    def group(self, group_id: str) -> ClassicGroup | None:
        return self._groups.get(group_id)

    def groups(self) -> list[ClassicGroup]:
        return list(self._groups.values())

    # -- unloading -----------------------------------------------------------------------------

    def _forget(self, group: ClassicGroup, now_ms: int) -> None:
        """An Empty group becomes Dead and leaves the coordinator."""
        self._unload_group(group, now_ms)
        del self._groups[group.group_id]

    def _unload_group(self, group: ClassicGroup, now_ms: int,
                      error: ErrorCode = E.NOT_COORDINATOR) -> None:
        previous = group.state
        if previous is not S.DEAD:
            group.transition_to(S.DEAD, now_ms)
        for member in group.members.values():
            if previous is S.PREPARING_REBALANCE:
                self._answer_join(group, member,
                                  JoinGroupResult.failure(member.member_id, error))
            self._answer_sync(member, SyncGroupResult.failure(error))
            self.scheduler.cancel(heartbeat_key(group, member.member_id))
        for member_id in group.pending_members:
            self.scheduler.cancel(pending_key(group, member_id))
        group.delayed_join = None
        self.scheduler.cancel(join_key(group))
        self.scheduler.cancel(sync_key(group))
