"""A member of a KIP-848 consumer group, and the states of its reconciliation.

A :class:`ConsumerGroupMember` is immutable: every change builds a new one (Kafka's
``ConsumerGroupMember.Builder``), so a group's state can be snapshotted by copying its dicts,
and comparing the member before and after a heartbeat says which records to write.

Partitions are kept by topic id, as the protocol and the records carry them:
:data:`Assignment` maps a topic id to a frozenset of partition numbers, with no empty sets.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from pybroker.kernel.state_table import IllegalTransition, StateTable

#: topic id -> partitions (never an empty set)
Assignment = Mapping[uuid.UUID, frozenset[int]]

EMPTY_ASSIGNMENT: Assignment = MappingProxyType({})

#: the member epochs of a leave: -1 leaves for good, -2 a static member leaves for a while
LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2


def assignment(parts: Mapping[uuid.UUID, Iterable[int]]) -> Assignment:
    """An :data:`Assignment` from any mapping of partition collections (empty ones dropped)."""
    return MappingProxyType({t: frozenset(ps) for t, ps in parts.items() if ps})


def is_subset(owned: Assignment | None, of: Assignment) -> bool:
    """Whether every owned partition is in ``of``; ``None`` (not sent) counts as a subset."""
    if owned is None:
        return True
    return all(ps <= of.get(t, frozenset()) for t, ps in owned.items())


def intersects(owned: Assignment | None, parts: Assignment) -> bool:
    """Whether the member still owns any of ``parts``; ``None`` (not sent) counts as owning
    them all, as Kafka's ``ownsRevokedPartitions``."""
    if not parts:
        return False
    if owned is None:
        return True
    return any(ps & owned.get(t, frozenset()) for t, ps in parts.items())


def count(parts: Assignment) -> int:
    return sum(len(ps) for ps in parts.values())


class MemberState(enum.Enum):
    """Kafka's ``MemberState``: where a member's reconciliation stands (the int8 of the
    CurrentMemberAssignment record is :attr:`code`)."""

    STABLE = "stable"
    UNREVOKED_PARTITIONS = "unrevoked_partitions"
    UNRELEASED_PARTITIONS = "unreleased_partitions"
    UNKNOWN = "unknown"

    @property
    def code(self) -> int:
        return _CODES[self]

    @classmethod
    def of_code(cls, code: int) -> MemberState:
        return _BY_CODE.get(code, cls.UNKNOWN)


_CODES = {MemberState.STABLE: 0, MemberState.UNREVOKED_PARTITIONS: 1,
          MemberState.UNRELEASED_PARTITIONS: 2, MemberState.UNKNOWN: 127}
_BY_CODE = {c: s for s, c in _CODES.items()}


class IllegalMemberTransition(IllegalTransition):
    @classmethod
    def describe(cls, subject: Any) -> str:
        return f"consumer group member {subject!r}"


_M = MemberState

#: target state -> the states a member may enter it from (Kafka's ``CurrentAssignmentBuilder``):
#: a member in any known state may become stable, wait for a revocation or wait for partitions
#: others still hold; UNKNOWN is only read from a record a newer coordinator wrote, and is left
#: by reconciling the member from nothing.
MEMBER_STATES: StateTable[MemberState] = StateTable({
    _M.STABLE: {_M.STABLE, _M.UNREVOKED_PARTITIONS, _M.UNRELEASED_PARTITIONS, _M.UNKNOWN},
    _M.UNREVOKED_PARTITIONS: {_M.STABLE, _M.UNREVOKED_PARTITIONS, _M.UNRELEASED_PARTITIONS},
    _M.UNRELEASED_PARTITIONS: {_M.STABLE, _M.UNREVOKED_PARTITIONS, _M.UNRELEASED_PARTITIONS,
                               _M.UNKNOWN},
    _M.UNKNOWN: set(),
}, initial=_M.STABLE, error=IllegalMemberTransition)


@dataclass(frozen=True, slots=True)
class ClassicMemberMetadata:
    """What a member that joined with the classic protocol keeps (the record's tagged
    ClassicMemberMetadata): its session timeout and its protocols (name, metadata)."""

    session_timeout_ms: int
    protocols: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True, slots=True)
class ConsumerGroupMember:
    """Kafka's ``ConsumerGroupMember``: the member's metadata (MemberMetadata record) and its
    current assignment (CurrentMemberAssignment record)."""

    member_id: str
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    classic: ClassicMemberMetadata | None = None
    # the current assignment
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: MemberState = MemberState.STABLE
    assigned: Assignment = field(default_factory=lambda: EMPTY_ASSIGNMENT)
    pending_revocation: Assignment = field(default_factory=lambda: EMPTY_ASSIGNMENT)

    @property
    def is_static(self) -> bool:
        return self.instance_id is not None

    @property
    def uses_classic_protocol(self) -> bool:
        return self.classic is not None

    def is_reconciled_to(self, epoch: int) -> bool:
        return self.state is MemberState.STABLE and self.member_epoch == epoch

    def with_epoch(self, epoch: int, **changes: Any) -> ConsumerGroupMember:
        """The member at ``epoch``, its old epoch kept as the previous one (Kafka's
        ``updateMemberEpoch``)."""
        return replace(self, member_epoch=epoch, previous_member_epoch=self.member_epoch,
                       **changes)

    def metadata_differs(self, other: ConsumerGroupMember) -> bool:
        """Whether the MemberMetadata record of ``other`` would differ from this one's."""
        return (self.instance_id, self.rack_id, self.rebalance_timeout_ms, self.client_id,
                self.client_host, self.subscribed_topic_names, self.subscribed_topic_regex,
                self.server_assignor, self.classic) != (
                other.instance_id, other.rack_id, other.rebalance_timeout_ms, other.client_id,
                other.client_host, other.subscribed_topic_names, other.subscribed_topic_regex,
                other.server_assignor, other.classic)

    def assignment_differs(self, other: ConsumerGroupMember) -> bool:
        """Whether the CurrentMemberAssignment record of ``other`` would differ."""
        return (self.member_epoch, self.previous_member_epoch, self.state, dict(self.assigned),
                dict(self.pending_revocation)) != (
                other.member_epoch, other.previous_member_epoch, other.state,
                dict(other.assigned), dict(other.pending_revocation))
