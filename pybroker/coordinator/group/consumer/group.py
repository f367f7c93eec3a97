"""A KIP-848 consumer group: its epochs, members, target assignment and partition owners,
rebuilt from its records (Kafka's ``ConsumerGroup``).

The group is only ever changed by :meth:`ConsumerGroup.replay`, both when the coordinator
makes a change (it builds the records, replays them here, and writes them) and when a new
coordinator loads ``__consumer_offsets``; so what a failover rebuilds is exactly what the
old coordinator had.

The one-owner rule is enforced here: :attr:`ConsumerGroup.partition_epochs` maps each
partition held by a member (assigned or pending revocation) to that member's epoch, and a
record that would give a held partition to a second member raises
:class:`PartitionOwnershipError` (Kafka's ``IllegalStateException`` in
``addPartitionEpochs``): that would be a bug, never a client's doing.
"""

from __future__ import annotations

import enum
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from .member import (
    EMPTY_ASSIGNMENT,
    LEAVE_GROUP_MEMBER_EPOCH,
    Assignment,
    ConsumerGroupMember,
    MemberState,
)
from .records import (
    CurrentAssignment,
    GroupEpoch,
    MemberMetadata,
    PartitionMetadata,
    Record,
    RegularExpression,
    ResolvedRegex,
    TargetAssignmentEpoch,
    TargetAssignmentMember,
)


class ConsumerGroupState(enum.Enum):
    """Kafka's ``ConsumerGroup.ConsumerGroupState``, derived from the epochs (values are the
    names ConsumerGroupDescribe and ListGroups report)."""

    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value


class PartitionOwnershipError(RuntimeError):
    """A record would make a partition owned by two members at once."""


class ConsumerGroup:
    """See the module docstring. Members are immutable; the dicts are the group's own."""

    __slots__ = ("group_id", "group_epoch", "metadata_hash", "assignment_epoch", "members",
                 "static_members", "targets", "partition_epochs", "regexes", "subscribed_names",
                 "created_ms", "changes")

    def __init__(self, group_id: str, created_ms: int = 0) -> None:
        self.group_id = group_id
        self.group_epoch = 0
        self.metadata_hash = 0
        self.assignment_epoch = 0
        self.members: dict[str, ConsumerGroupMember] = {}
        #: instance id -> member id
        self.static_members: dict[str, str] = {}
        #: member id -> target assignment
        self.targets: dict[str, Assignment] = {}
        #: topic id -> partition -> epoch of the member holding it
        self.partition_epochs: dict[uuid.UUID, dict[int, int]] = {}
        #: regex -> what it resolved to
        self.regexes: dict[str, ResolvedRegex] = {}
        #: topic name -> how many members subscribe to it by name
        self.subscribed_names: Counter[str] = Counter()
        self.created_ms = created_ms
        #: bumped by every replayed record (a snapshot is current while this has not moved)
        self.changes = 0

    # -- reading -------------------------------------------------------------------------

    @property
    def state(self) -> ConsumerGroupState:
        if not self.members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch > self.assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        if any(m.member_epoch != self.assignment_epoch for m in self.members.values()):
            return ConsumerGroupState.RECONCILING
        return ConsumerGroupState.STABLE

    def __len__(self) -> int:
        return len(self.members)

    def member(self, member_id: str) -> ConsumerGroupMember | None:
        return self.members.get(member_id)

    def static_member(self, instance_id: str) -> ConsumerGroupMember | None:
        member_id = self.static_members.get(instance_id)
        return None if member_id is None else self.members.get(member_id)

    def target(self, member_id: str) -> Assignment:
        return self.targets.get(member_id, EMPTY_ASSIGNMENT)

    def partition_epoch(self, topic_id: uuid.UUID, partition: int) -> int:
        """The epoch of the member holding the partition, -1 when none does."""
        return self.partition_epochs.get(topic_id, {}).get(partition, -1)

    def subscribed_regexes(self) -> Counter[str]:
        return Counter(m.subscribed_topic_regex for m in self.members.values()
                       if m.subscribed_topic_regex)

    def subscribed_topic_names(self) -> set[str]:
        """Every topic a member subscribes to, by name or through a resolved regex."""
        names = {n for n, c in self.subscribed_names.items() if c > 0}
        for regex in self.subscribed_regexes():
            resolved = self.regexes.get(regex)
            if resolved is not None:
                names |= resolved.topics
        return names

    def member_subscription(self, member: ConsumerGroupMember) -> set[str]:
        names = set(member.subscribed_topic_names)
        if member.subscribed_topic_regex:
            resolved = self.regexes.get(member.subscribed_topic_regex)
            if resolved is not None:
                names |= resolved.topics
        return names

    def preferred_assignor(self, configured: tuple[str, ...]) -> str:
        """The server assignor most members ask for, else the first configured (Kafka's
        ``preferredServerAssignor``; ties go to the name first asked for)."""
        votes = Counter(m.server_assignor for m in self.members.values() if m.server_assignor)
        if votes:
            return votes.most_common(1)[0][0]
        return configured[0]

    def is_subscribed_to(self, topic: str) -> bool:
        return topic in self.subscribed_topic_names()

    # -- snapshots -------------------------------------------------------------------------

    def copy(self) -> ConsumerGroup:
        """A copy whose dicts are its own (members and assignments are immutable)."""
        other = ConsumerGroup(self.group_id, self.created_ms)
        other.group_epoch = self.group_epoch
        other.metadata_hash = self.metadata_hash
        other.assignment_epoch = self.assignment_epoch
        other.members = dict(self.members)
        other.static_members = dict(self.static_members)
        other.targets = dict(self.targets)
        other.partition_epochs = {t: dict(ps) for t, ps in self.partition_epochs.items()}
        other.regexes = dict(self.regexes)
        other.subscribed_names = Counter(self.subscribed_names)
        other.changes = self.changes
        return other

    # -- replay ----------------------------------------------------------------------------

    def replay(self, record: Record) -> None:
        """Apply one record (Kafka's ``GroupMetadataManager.replay`` for a consumer group)."""
        self.changes += 1
        if isinstance(record, GroupEpoch):
            if record.epoch is not None:
                self.group_epoch = record.epoch
                self.metadata_hash = record.metadata_hash
        elif isinstance(record, MemberMetadata):
            self._replay_member_metadata(record)
        elif isinstance(record, TargetAssignmentEpoch):
            self.assignment_epoch = 0 if record.epoch is None else record.epoch
        elif isinstance(record, TargetAssignmentMember):
            if record.partitions is None:
                self.targets.pop(record.member_id, None)
            else:
                self.targets[record.member_id] = record.partitions
        elif isinstance(record, CurrentAssignment):
            self._replay_current_assignment(record)
        elif isinstance(record, RegularExpression):
            if record.resolved is None:
                self.regexes.pop(record.regex, None)
            else:
                self.regexes[record.regex] = record.resolved
        elif isinstance(record, PartitionMetadata):
            pass  # Kafka 4.0's subscription metadata: 4.1 and pybroker use the hash
        else:  # pragma: no cover - the union is exhaustive
            raise TypeError(record)

    def _replay_member_metadata(self, record: MemberMetadata) -> None:
        old = self.members.get(record.member_id)
        if record.member is None:
            if old is None:
                return
            self._forget_subscription(old)
            if old.instance_id is not None and \
                    self.static_members.get(old.instance_id) == old.member_id:
                del self.static_members[old.instance_id]
            self._remove_partition_epochs(old)
            del self.members[record.member_id]
            return
        # the record carries metadata only: the assignment fields are the member's own
        new = replace(record.member, member_epoch=0, previous_member_epoch=0,
                      state=MemberState.STABLE, assigned=EMPTY_ASSIGNMENT,
                      pending_revocation=EMPTY_ASSIGNMENT)
        if old is not None:
            self._forget_subscription(old)
            if old.instance_id is not None and old.instance_id != new.instance_id and \
                    self.static_members.get(old.instance_id) == old.member_id:
                del self.static_members[old.instance_id]
            new = replace(new, member_epoch=old.member_epoch,
                          previous_member_epoch=old.previous_member_epoch, state=old.state,
                          assigned=old.assigned, pending_revocation=old.pending_revocation)
        self.members[record.member_id] = new
        self.subscribed_names.update(new.subscribed_topic_names)
        if new.instance_id is not None:
            self.static_members[new.instance_id] = new.member_id

    def _forget_subscription(self, member: ConsumerGroupMember) -> None:
        self.subscribed_names.subtract(member.subscribed_topic_names)
        for name in member.subscribed_topic_names:
            if self.subscribed_names[name] <= 0:
                del self.subscribed_names[name]

    def _replay_current_assignment(self, record: CurrentAssignment) -> None:
        old = self.members.get(record.member_id)
        base = old if old is not None else ConsumerGroupMember(record.member_id)
        if old is not None:
            self._remove_partition_epochs(old)
        if record.member is None:
            if old is not None:
                self.members[record.member_id] = replace(
                    old, member_epoch=LEAVE_GROUP_MEMBER_EPOCH,
                    previous_member_epoch=LEAVE_GROUP_MEMBER_EPOCH,
                    assigned=EMPTY_ASSIGNMENT, pending_revocation=EMPTY_ASSIGNMENT)
            return
        m = record.member
        new = replace(base, member_epoch=m.member_epoch,
                      previous_member_epoch=m.previous_member_epoch, state=m.state,
                      assigned=m.assigned, pending_revocation=m.pending_revocation)
        self._add_partition_epochs(new)
        self.members[record.member_id] = new

    def _remove_partition_epochs(self, member: ConsumerGroupMember) -> None:
        for parts in (member.assigned, member.pending_revocation):
            for topic, ps in parts.items():
                epochs = self.partition_epochs.get(topic)
                if epochs is None:
                    continue
                for p in ps:
                    epochs.pop(p, None)
                if not epochs:
                    del self.partition_epochs[topic]

    def _add_partition_epochs(self, member: ConsumerGroupMember) -> None:
        for parts in (member.assigned, member.pending_revocation):
            for topic, ps in parts.items():
                epochs = self.partition_epochs.setdefault(topic, {})
                for p in ps:
                    if p in epochs:
                        raise PartitionOwnershipError(
                            f"group {self.group_id!r}: partition {topic}-{p} is held at epoch "
                            f"{epochs[p]} and cannot be given to member {member.member_id!r} "
                            f"at epoch {member.member_epoch}")
                    epochs[p] = member.member_epoch

    def replay_all(self, records: Iterable[Record]) -> None:
        for record in records:
            self.replay(record)
