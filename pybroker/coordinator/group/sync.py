"""The sync phase of a classic group: SyncGroup, storing the leader's assignment and handing
it out, and the deadline for members to sync, following Kafka's GroupCoordinator
(handleSyncGroup, doSyncGroup, setAndPropagateAssignment, the pending-sync expiration).

Concurrency notes
-----------------
Owns the sync phase: parking followers' SyncGroup answers (``member.awaiting_sync``) until
the leader's assignment is stored, propagating it (or an error) to every parked member, the
members' assignments, ``group.pending_sync_members`` and the ``("sync", group)`` timer. The
assignment is written through the store before anyone is answered; if the group moved on
while the record was written (another generation, another state), nothing is propagated.

Calls into the other phases: :mod:`.join` (``_prepare_rebalance``,
``_maybe_prepare_rebalance``) and :mod:`.membership` (``_schedule_heartbeat``,
``_drop_member``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from protocol.errors import ErrorCode

from .core import CoordinatorCore, entry_point, sync_key
from .group import ClassicGroup, SyncGroupResult
from .state import GroupState

log = logging.getLogger(__name__)

E = ErrorCode
S = GroupState

SyncResponder = Callable[[SyncGroupResult], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class SyncRequest:
    """A SyncGroup request as the coordinator takes it, whatever its version: before v3 no
    instance id, before v5 no protocol type and name (checked only when given)."""

    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None
    #: The leader's assignment by member id (followers send none). Stored as a read-only
    #: mapping of bytes of its own.
    assignments: Mapping[str, bytes]
    protocol_type: str | None = None
    protocol_name: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "assignments", MappingProxyType(
            {member_id: bytes(data) for member_id, data in self.assignments.items()}))


class SyncPhase(CoordinatorCore):
    """SyncGroup, assignment propagation and the pending-sync deadline."""

    # -- SyncGroup -----------------------------------------------------------------------------

    @entry_point
    def handle_sync_group(self, request: SyncRequest, now_ms: int,
                          respond: SyncResponder) -> None:
        member_id = request.member_id
        error = self._validate_group_status(request.group_id, allow_empty_id=False)
        if error is not None:
            # A rebalance interrupted by a reload has to start over from JoinGroup; older
            # clients do not expect COORDINATOR_LOAD_IN_PROGRESS here.
            if error is E.COORDINATOR_LOAD_IN_PROGRESS:
                error = E.REBALANCE_IN_PROGRESS
            self._deliver(respond, SyncGroupResult.failure(error))
            return
        group = self._groups.get(request.group_id)
        if group is None:
            if self.mixed is not None and self.mixed.serves(request.group_id):
                self._deliver(respond, self.mixed.classic_sync(request, now_ms))
                return
            self._deliver(respond, SyncGroupResult.failure(E.UNKNOWN_MEMBER_ID))
            return
        error = self._validate_sync(group, request)
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
                self._complete_assignment(group, request.generation_id, member_id,
                                          request.assignments, now_ms)
        elif state is S.STABLE:
            self._remove_pending_sync_member(group, member_id)
            member = group.members[member_id]
            self._deliver(respond, SyncGroupResult(E.NONE, group.protocol_type,
                                                   group.protocol_name, member.assignment))
            self._schedule_heartbeat(group, member, now_ms)
        else:
            raise AssertionError(f"SyncGroup reached group {group.group_id} in {state}")

    def _validate_sync(self, group: ClassicGroup, request: SyncRequest) -> ErrorCode | None:
        if group.state is S.DEAD:
            return E.COORDINATOR_NOT_AVAILABLE
        error = self._validate_current_member(group, request.member_id,
                                              request.group_instance_id)
        if error is not None:
            return error
        if request.generation_id != group.generation_id:
            return E.ILLEGAL_GENERATION
        if request.protocol_type is not None and request.protocol_type != group.protocol_type:
            return E.INCONSISTENT_GROUP_PROTOCOL
        if request.protocol_name is not None and request.protocol_name != group.protocol_name:
            return E.INCONSISTENT_GROUP_PROTOCOL
        return None

    def _complete_assignment(self, group: ClassicGroup, generation_id: int, leader_id: str,
                             assignments: Mapping[str, bytes], now_ms: int) -> None:
        """The leader's SyncGroup: store the assignment, then hand it out (or the error)."""
        log.info("group %s: assignment from leader %s for generation %d (%d members)",
                 group.group_id, leader_id, generation_id, len(group))
        # Members the leader left out get an empty assignment; unknown ids are ignored.
        assignment = {mid: bytes(assignments.get(mid, b"")) for mid in group.members}
        self._after_store(
            group, self.store.store_group(group.group_id, group.to_metadata_value(assignment),
                                         now_ms),
            lambda error, now: self._assignment_stored(group, generation_id, leader_id,
                                                       assignment, error, now),
            now_ms)

    def _assignment_stored(self, group: ClassicGroup, generation_id: int, leader_id: str,
                           assignment: dict[str, bytes], error: ErrorCode, now_ms: int) -> None:
        """The assignment is stored (or could not be): hand it out, or the error."""
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

    # -- the sync deadline ---------------------------------------------------------------------

    def _schedule_pending_sync(self, group: ClassicGroup, now_ms: int) -> None:
        generation = group.generation_id
        self.scheduler.schedule(sync_key(group), now_ms + group.rebalance_timeout_ms,
                                self._timer(self._on_sync_deadline, group, generation))

    def _remove_pending_sync_member(self, group: ClassicGroup, member_id: str) -> None:
        group.pending_sync_members.discard(member_id)
        if not group.pending_sync_members:
            self.scheduler.cancel(sync_key(group))

    def _remove_sync_expiration(self, group: ClassicGroup) -> None:
        group.pending_sync_members.clear()
        self.scheduler.cancel(sync_key(group))

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
