"""Membership upkeep of a classic group: heartbeats, session and pending-member expiry, and
LeaveGroup, following Kafka's GroupCoordinator (handleHeartbeat, handleLeaveGroup,
onExpireHeartbeat, removeMemberAndUpdateGroup, removePendingMemberAndUpdateGroup).

Concurrency notes
-----------------
Owns each member's liveness: the ``("heartbeat", group, member)`` session timers (set here,
pushed back by heartbeats and by the other phases through ``_schedule_heartbeat``),
``member.heartbeat_satisfied``, what happens when a session or a pending member id runs out,
and removing members (``_drop_member`` answers a parked SyncGroup, so nobody waits for a
member that is gone). A member parked in JoinGroup or SyncGroup cannot heartbeat, so its
session expiry is ignored unless it is new (see ``MemberMetadata.has_satisfied_heartbeat``).

Calls into the other phases: :mod:`.join` (``_maybe_prepare_rebalance``,
``_try_complete_join``), as a member leaving a group that is rebalancing may let the
rebalance complete.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from protocol.errors import ErrorCode
from pybroker.kernel.outcome import Outcome

from .core import CoordinatorCore, entry_point, heartbeat_key, pending_key
from .group import ClassicGroup, JoinGroupResult, SyncGroupResult
from .member import MemberMetadata
from .state import GroupState

log = logging.getLogger(__name__)

E = ErrorCode
S = GroupState


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


class Membership(CoordinatorCore):
    """Heartbeat, LeaveGroup, session and pending-member expiry, removing members."""

    # -- Heartbeat -----------------------------------------------------------------------------

    @entry_point
    def handle_heartbeat(self, group_id: str, member_id: str, group_instance_id: str | None,
                         generation_id: int, now_ms: int) -> ErrorCode:
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            # While loading there is nothing to check against: answer blindly.
            return E.NONE if error is E.COORDINATOR_LOAD_IN_PROGRESS else error
        group = self._groups.get(group_id)
        if group is None:
            if self.mixed is not None and self.mixed.serves(group_id):
                return self.mixed.classic_heartbeat(group_id, member_id, group_instance_id,
                                                    generation_id, now_ms)
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

    @entry_point
    def handle_leave_group(self, group_id: str, members: Sequence[LeavingMember],
                           now_ms: int) -> Outcome[LeaveGroupResult]:
        """Per-member errors in request order. v0-2 callers take the single member's error as
        the top-level error when the top-level one is NONE. Classic members of a consumer
        group are answered once their removal is written."""
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            return LeaveGroupResult(error)
        group = self._groups.get(group_id)
        if group is None:
            if self.mixed is not None and self.mixed.serves(group_id):
                left: Outcome[LeaveGroupResult] = self.mixed.classic_leave(group_id, members,
                                                                           now_ms)
                return left
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
            self.scheduler.cancel(pending_key(group, leaving.member_id))
            self._remove_pending_member_and_update_group(group, leaving.member_id, now_ms)
            return E.NONE
        error = self._validate_current_member(group, leaving.member_id, leaving.group_instance_id)
        if error is not None:
            return error
        self._remove_member_and_update_group(group, group.members[leaving.member_id], why,
                                             now_ms)
        return E.NONE

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
        self.scheduler.cancel(heartbeat_key(group, member_id))
        if member is not None:
            self._answer_sync(member, SyncGroupResult.failure(E.UNKNOWN_MEMBER_ID))

    # -- session timers ------------------------------------------------------------------------

    def _schedule_heartbeat(self, group: ClassicGroup, member: MemberMetadata, now_ms: int,
                            timeout_ms: int | None = None) -> None:
        member.heartbeat_satisfied = False
        timeout = member.session_timeout_ms if timeout_ms is None else timeout_ms
        self.scheduler.schedule(heartbeat_key(group, member.member_id), now_ms + timeout,
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
