"""The group-level APIs of the classic coordinator: the group side of OffsetCommit,
TxnOffsetCommit, OffsetFetch and OffsetDelete, and DescribeGroups, ListGroups and
DeleteGroups, following Kafka's GroupCoordinator (handleCommitOffsets, validateOffsetCommit,
handleFetchOffsets, handleDeleteOffsets, handleDescribeGroup, handleListGroups,
handleDeleteGroups).

Concurrency notes
-----------------
These answer at once (nothing is parked) and look at a group as a whole rather than driving a
rebalance. The offsets themselves are not here: :mod:`.offsets` stores and serves them once
these checks pass. Two calls change groups: an offset commit may create an Empty group (and
counts as its member's heartbeat), and DeleteGroups forgets Empty groups and has the store
drop their metadata and offsets.

Calls into the other parts: :mod:`.membership` (``_schedule_heartbeat``) and the group table's
life cycle in :mod:`.coordinator` (``_forget``).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from protocol.errors import ErrorCode

from .core import CoordinatorCore, entry_point
from .group import CLASSIC_GROUP_TYPE, ClassicGroup, GroupOverview, GroupSummary
from .state import GroupState

log = logging.getLogger(__name__)

E = ErrorCode
S = GroupState


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


class GroupApis(CoordinatorCore):
    """Offset-commit validation, OffsetFetch/OffsetDelete checks, DescribeGroups, ListGroups,
    DeleteGroups."""

    # -- offsets -------------------------------------------------------------------------------

    @entry_point
    def handle_commit_offsets(self, group_id: str, member_id: str,
                              group_instance_id: str | None, generation_id: int, now_ms: int, *,
                              transactional: bool = False) -> ErrorCode:
        """Whether an OffsetCommit (or, ``transactional``, a TxnOffsetCommit) may be stored for
        this group. A commit with generation -1 for an unknown group creates it, Empty, for
        simple consumers; a member's commit also counts as its heartbeat.

        A TxnOffsetCommit (Kafka's ``handleTxnCommitOffsets``) needs a non-empty group id,
        creates an unknown group whatever its generation, and is checked as a member's commit
        only when it names a member (v3+, KIP-447: ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
        FENCED_INSTANCE_ID); older producers send no member and commit for any group. It is
        no heartbeat, and a rebalance does not hold it back."""
        error = self._validate_group_status(group_id, allow_empty_id=not transactional)
        if error is not None:
            return error
        group = self._groups.get(group_id)
        if group is None:
            if generation_id >= 0 and not transactional:
                # A member of a generation this coordinator does not know.
                return E.ILLEGAL_GENERATION
            log.info("group %s: created by %s", group_id,
                     "a transactional offset commit" if transactional else "an offset commit")
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

    @entry_point
    def begin_txn_offset_commit(self, group_id: str, now_ms: int) -> ErrorCode:
        """The first step of a TxnOffsetCommit (Kafka's ``handleTxnCommitOffsets``, before the
        transaction is verified with its coordinator): the coordinator's status for the group
        (INVALID_GROUP_ID for the empty id, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS),
        and an unknown group created, Empty. :meth:`handle_commit_offsets` follows once the
        transaction is verified."""
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            return error
        if group_id not in self._groups:
            log.info("group %s: created by a transactional offset commit", group_id)
            self._groups[group_id] = ClassicGroup(group_id, S.EMPTY, now_ms)
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

    @entry_point
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
