"""The join phase of a classic group: JoinGroup and the rebalance it drives, following
Kafka's GroupCoordinator (handleJoinGroup, doNewMemberJoinGroup, doCurrentMemberJoinGroup,
prepareRebalance, onCompleteJoin, DelayedJoin / InitialDelayedJoin).

Concurrency notes
-----------------
Owns the join phase: parking each member's JoinGroup answer (``member.awaiting_join``) until
the rebalance completes, the group's parked rebalance (``group.delayed_join``, a
:class:`_DelayedJoin`) and its ``("join", group)`` timer, the ``("pending", group, member)``
timer of member ids handed out with MEMBER_ID_REQUIRED, and the move to the next generation.
Completing a join answers every parked JoinGroup (through the outbox, see :mod:`.core`) and
opens the sync phase.

Calls into the other phases: :mod:`.sync` (``_reset_and_propagate_assignment_error``,
``_remove_sync_expiration``, ``_schedule_pending_sync``) and :mod:`.membership`
(``_schedule_heartbeat``, ``_drop_member``, ``_on_pending_member_expired``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol.errors import ErrorCode

from .core import CoordinatorCore, entry_point, heartbeat_key, join_key, pending_key
from .group import ClassicGroup, JoinGroupResult, SyncGroupResult
from .member import MemberMetadata, Protocol
from .state import GroupState

log = logging.getLogger(__name__)

E = ErrorCode
S = GroupState

JoinResponder = Callable[[JoinGroupResult], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinRequest:
    """A JoinGroup request as the coordinator takes it, whatever its version: the caller
    fills in what older versions lack (v0: the session timeout as the rebalance timeout;
    before v5 no instance id, before v8 no reason)."""

    group_id: str
    #: Empty for a member joining for the first time.
    member_id: str
    #: Set for a static member.
    group_instance_id: str | None
    client_id: str
    #: As Kafka shows it: ``/`` and the address.
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    #: In the member's order of preference. Stored as a tuple of bytes of its own, so the
    #: value holds no view into the request buffer.
    protocols: Sequence[Protocol]
    #: v4+: a new dynamic member is given an id and must rejoin with it (MEMBER_ID_REQUIRED).
    require_known_member_id: bool = True
    #: v9+: a static leader rejoining a Stable group may be told to skip the assignment.
    supports_skipping_assignment: bool = False
    reason: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "protocols",
                           tuple((name, bytes(metadata)) for name, metadata in self.protocols))

    @property
    def protocol_names(self) -> list[str]:
        return [name for name, _ in self.protocols]


@dataclass(slots=True)
class _DelayedJoin:
    """The parked end of a join phase. ``initial`` ones (a group leaving Empty) never complete
    early: they wait ``delay_ms`` and are extended while members keep arriving."""

    delay_ms: int
    initial: bool = False
    remaining_ms: int = 0


class JoinPhase(CoordinatorCore):
    """JoinGroup, and preparing and completing rebalances."""

    # -- JoinGroup -----------------------------------------------------------------------------

    @entry_point
    def handle_join_group(self, request: JoinRequest, now_ms: int,
                          respond: JoinResponder) -> None:
        member_id = request.member_id
        error = self._validate_group_status(request.group_id, allow_empty_id=False)
        if error is not None:
            self._deliver(respond, JoinGroupResult.failure(member_id, error))
            return
        if request.group_id not in self._groups and self.mixed is not None \
                and self.mixed.has_members(request.group_id):
            # a classic member of a consumer group (KIP-848's mixed groups)
            self._deliver_outcome(respond, self.mixed.classic_join(request, now_ms))
            return
        if not (self.config.min_session_timeout_ms <= request.session_timeout_ms
                <= self.config.max_session_timeout_ms):
            self._deliver(respond, JoinGroupResult.failure(member_id, E.INVALID_SESSION_TIMEOUT))
            return
        is_unknown_member = member_id == ""
        group = self._groups.get(request.group_id)
        if group is None:
            refused = self.foreign_group(request.group_id, now_ms)
            if refused:
                self._deliver(respond, JoinGroupResult.failure(member_id, refused))
                return
            if not is_unknown_member:
                self._deliver(respond, JoinGroupResult.failure(member_id, E.UNKNOWN_MEMBER_ID))
                return
            group = ClassicGroup(request.group_id, S.EMPTY, now_ms)
            self._groups[request.group_id] = group

        why = f"client reason: {request.reason or 'not provided'}"
        if not self._accept_joining_member(group, member_id):
            if group.remove(member_id) is not None:
                self.scheduler.cancel(heartbeat_key(group, member_id))
            self._deliver(respond, JoinGroupResult.failure("", E.GROUP_MAX_SIZE_REACHED))
        elif is_unknown_member:
            self._join_new_member(group, request, respond, why, now_ms)
        else:
            self._join_current_member(group, request, respond, why, now_ms)
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

    def _join_new_member(self, group: ClassicGroup, request: JoinRequest,
                         respond: JoinResponder, why: str, now_ms: int) -> None:
        if group.state is S.DEAD:
            self._deliver(respond, JoinGroupResult.failure("", E.COORDINATOR_NOT_AVAILABLE))
            return
        if not group.supports_protocols(request.protocol_type, request.protocol_names):
            self._deliver(respond, JoinGroupResult.failure("", E.INCONSISTENT_GROUP_PROTOCOL))
            return
        group_instance_id = request.group_instance_id
        new_member_id = self._new_member_id(group_instance_id or request.client_id)
        if group_instance_id is not None:
            old_member_id = group.static_member_id(group_instance_id)
            if old_member_id is not None:
                log.info("group %s: static member %s rejoins with a new member id, replacing %s",
                         group.group_id, group_instance_id, old_member_id)
                self._update_static_member_and_rebalance(
                    group, old_member_id, new_member_id, group_instance_id, request, respond,
                    why, now_ms)
            else:
                self._add_member_and_rebalance(group, new_member_id, request, respond, why,
                                               now_ms)
        elif request.require_known_member_id:
            # The member must come back with this id; until then it only holds a place.
            group.add_pending_member(new_member_id)
            self.scheduler.schedule(
                pending_key(group, new_member_id), now_ms + request.session_timeout_ms,
                self._timer(self._on_pending_member_expired, group, new_member_id))
            self._deliver(respond, JoinGroupResult.failure(new_member_id, E.MEMBER_ID_REQUIRED))
        else:
            self._add_member_and_rebalance(group, new_member_id, request, respond, why, now_ms)

    def _join_current_member(self, group: ClassicGroup, request: JoinRequest,
                             respond: JoinResponder, why: str, now_ms: int) -> None:
        member_id = request.member_id
        if group.state is S.DEAD:
            self._deliver(respond, JoinGroupResult.failure(member_id, E.COORDINATOR_NOT_AVAILABLE))
            return
        if not group.supports_protocols(request.protocol_type, request.protocol_names):
            self._deliver(respond,
                          JoinGroupResult.failure(member_id, E.INCONSISTENT_GROUP_PROTOCOL))
            return
        if member_id in group.pending_members:
            if request.group_instance_id is not None:
                # Pending ids are only handed to dynamic members (Kafka fails the request).
                self._deliver(respond, JoinGroupResult.failure(member_id, E.UNKNOWN_SERVER_ERROR))
                return
            self.scheduler.cancel(pending_key(group, member_id))
            self._add_member_and_rebalance(group, member_id, request, respond, why, now_ms)
            return
        error = self._validate_current_member(group, member_id, request.group_instance_id)
        if error is not None:
            self._deliver(respond, JoinGroupResult.failure(member_id, error))
            return
        member = group.members[member_id]
        state = group.state
        if state is S.PREPARING_REBALANCE:
            self._update_member_and_rebalance(group, member, request, respond, why, now_ms)
        elif state is S.COMPLETING_REBALANCE:
            if member.matches(request.protocols):
                # It probably missed its JoinGroup answer: send it again.
                self._deliver(respond, self._join_result(group, member_id,
                                                         with_members=group.is_leader(member_id)))
            else:
                self._update_member_and_rebalance(group, member, request, respond, why, now_ms)
        elif state is S.STABLE:
            if group.is_leader(member_id) or not member.matches(request.protocols):
                # A leader's JoinGroup always rebalances: that is how it reacts to changes
                # (topic metadata, for consumers) that do not show in member metadata.
                self._update_member_and_rebalance(group, member, request, respond, why, now_ms)
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
                                  request: JoinRequest, respond: JoinResponder, why: str,
                                  now_ms: int) -> None:
        """``member_id`` is the id handed out, not necessarily the request's (empty for a new
        member)."""
        member = MemberMetadata(member_id, request.group_instance_id, request.client_id,
                                request.client_host, request.rebalance_timeout_ms,
                                request.session_timeout_ms, request.protocol_type,
                                list(request.protocols), is_new=True)
        if group.state is S.PREPARING_REBALANCE and group.generation_id == 0:
            group.new_member_added = True
        group.add(member, respond)
        self._schedule_heartbeat(group, member, now_ms,
                                 timeout_ms=self.config.new_member_join_timeout_ms)
        self._maybe_prepare_rebalance(group, f"adding new member {member_id}; {why}", now_ms)

    def _update_member_and_rebalance(self, group: ClassicGroup, member: MemberMetadata,
                                     request: JoinRequest, respond: JoinResponder, why: str,
                                     now_ms: int) -> None:
        displaced = group.update_member(member, request.protocols, request.rebalance_timeout_ms,
                                        request.session_timeout_ms, respond)
        if displaced is not None and displaced is not respond:
            self._deliver(displaced, JoinGroupResult.failure(member.member_id,
                                                             E.REBALANCE_IN_PROGRESS))
        self._maybe_prepare_rebalance(group, f"member {member.member_id} rejoins; {why}", now_ms)

    def _update_static_member_and_rebalance(self, group: ClassicGroup, old_member_id: str,
                                            new_member_id: str, group_instance_id: str,
                                            request: JoinRequest, respond: JoinResponder,
                                            why: str, now_ms: int) -> None:
        previous_leader = group.leader_id
        member = group.members[old_member_id]
        # Whoever still uses the old id is fenced at once.
        self._answer_join(group, member, JoinGroupResult.failure(old_member_id,
                                                                  E.FENCED_INSTANCE_ID))
        self._answer_sync(member, SyncGroupResult.failure(E.FENCED_INSTANCE_ID))
        group.replace_static_member(group_instance_id, old_member_id, new_member_id)
        self.scheduler.cancel(heartbeat_key(group, old_member_id))
        self._schedule_heartbeat(group, member, now_ms)

        old_protocols = member.supported_protocols
        old_rebalance_timeout_ms = member.rebalance_timeout_ms
        old_session_timeout_ms = member.session_timeout_ms
        group.update_member(member, request.protocols, request.rebalance_timeout_ms,
                            request.session_timeout_ms, respond)

        state = group.state
        if state is S.STABLE:
            if group.protocol_name != group.select_protocol():
                self._maybe_prepare_rebalance(
                    group, f"static member {group_instance_id} rejoins with a protocol change; "
                           f"{why}", now_ms)
                return
            # Same protocol: the current assignment stands; only the new member id is stored.
            assignment = {m.member_id: m.assignment for m in group.members.values()}

            def stored(error: ErrorCode, now_ms: int) -> None:
                if error is not E.NONE:
                    log.warning("group %s: storing static member %s failed (%s), reverting",
                                group.group_id, group_instance_id, error.name)
                    group.update_member(member, old_protocols, old_rebalance_timeout_ms,
                                        old_session_timeout_ms, None)
                    group.replace_static_member(group_instance_id, new_member_id,
                                                old_member_id)
                    self.scheduler.cancel(heartbeat_key(group, new_member_id))
                    self._schedule_heartbeat(group, member, now_ms)
                    self._deliver(respond, JoinGroupResult(
                        error_code=error, member_id="", generation_id=group.generation_id,
                        protocol_type=group.protocol_type, protocol_name=group.protocol_name,
                        leader_id=previous_leader or ""))
                elif request.supports_skipping_assignment:
                    # v9+: a static leader learns it leads but must not compute a new
                    # assignment.
                    is_leader = group.is_leader(new_member_id)
                    self._answer_join(group, member, self._join_result(
                        group, new_member_id, with_members=is_leader,
                        skip_assignment=is_leader))
                else:
                    # Older clients: answering with the previous leader id keeps a returning
                    # leader from running an assignment the Stable group would ignore.
                    self._answer_join(group, member, self._join_result(
                        group, new_member_id, with_members=False,
                        leader_id=previous_leader or ""))

            # as Kafka's storeGroup callback: the answer waits for the record's replication
            self._after_store(group, self.store.store_group(
                group.group_id, group.to_metadata_value(assignment), now_ms), stored, now_ms)
        elif state is S.COMPLETING_REBALANCE:
            # The leader may be assigning to the old member id: start over.
            self._prepare_rebalance(group, f"static member {group_instance_id} rejoins during "
                                           f"CompletingRebalance; {why}", now_ms)
        elif state is not S.PREPARING_REBALANCE:
            raise AssertionError(f"group {group.group_id} has a static member in {state}")

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
        self.scheduler.schedule(join_key(group), now_ms + op.delay_ms,
                                self._timer(self._on_join_deadline, group, op))

    def _try_complete_join(self, group: ClassicGroup, now_ms: int) -> None:
        op = group.delayed_join
        if op is not None and not op.initial and group.has_all_members_joined():
            self._complete_join(group, now_ms)

    def _complete_join(self, group: ClassicGroup, now_ms: int) -> None:
        group.delayed_join = None
        self.scheduler.cancel(join_key(group))
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
            def stored(error: ErrorCode, _now_ms: int) -> None:
                if error is not E.NONE:
                    # The previous generation may come back after a restart; with no members
                    # left that is harmless, so only warn (as Kafka does).
                    log.warning("group %s: storing the empty group failed: %s",
                                group.group_id, error.name)

            self._after_store(group, self.store.store_group(
                group.group_id, group.to_metadata_value({}), now_ms), stored, now_ms)
            return
        self.completed_rebalances += 1
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
