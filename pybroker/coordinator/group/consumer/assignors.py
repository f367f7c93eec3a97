"""The server-side assignors of the KIP-848 consumer group protocol, ``uniform`` and ``range``
(Kafka 4.1's ``org.apache.kafka.coordinator.group.assignor`` package).

The coordinator hands an assignor every member - its instance id, rack, the existing topics it
subscribes to and its current *target* assignment - and the partition count of every subscribed
topic; the assignor gives back the group's next target assignment, a partition set per member
and topic. An assignor is a pure function of that input: no I/O, no clock, and the same input
always gives the same output.

* :class:`UniformAssignor` (``UniformAssignor``) balances first and is sticky second. When every
  member subscribes to the same topics it runs :func:`assign_homogeneous`
  (``UniformHomogeneousAssignmentBuilder``): a quota per member, one pass to keep what fits,
  one pass to hand out the rest. Otherwise it runs :func:`assign_heterogeneous`
  (``UniformHeterogeneousAssignmentBuilder``): keep every partition a member still subscribes
  to, hand the free ones to the least loaded subscribers topic by topic, then move partitions
  from the most to the least loaded subscribers of each topic until no move helps.
* :class:`RangeAssignor` (``RangeAssignor``) gives each topic's subscribers contiguous ranges,
  static members first by instance id, then the others by member id; it ignores the current
  assignment, and is sticky only through instance ids.

Racks are ignored, as Kafka 4.1's builders ignore them (``UniformAssignor``'s class comment
still says "potentially rack aware").

Where the output can differ from Kafka's
----------------------------------------
* Member order. Kafka iterates ``GroupSpec.memberIds()``, the key order of a Java ``HashMap``,
  i.e. an order set by member-id hashes and table size. Here members are iterated in member-id
  order, compared as Java's ``String.compareTo`` compares (UTF-16 code units). Kafka's own
  builder tests iterate members in that sorted order too (``TreeMap``, ``TestGroupSpecImpl``),
  so their expected assignments carry over. It decides which member takes an extra partition
  the others cannot have, which partitions a member over its quota gives up first, and the
  order the heterogeneous builder breaks ties in.
* Topic order in the homogeneous builder. Kafka lists the free partitions in the iteration
  order of a ``HashSet<Uuid>`` and keeps a member's partitions in the iteration order of its
  assignment map; here both follow Kafka's ``Uuid.compareTo`` (the two 64-bit halves compared
  as signed numbers), partitions ascending. The heterogeneous builder sorts topics itself, so
  its order is Kafka's; its partitions-per-subscriber comparison is exact here where Kafka
  compares ``double`` quotients (equal only for ratios a ``double`` cannot tell apart).
* The homogeneous builder is chosen when all members name the same *existing* topics; Kafka
  decides from subscribed topic names, so a subscription to a topic that does not exist yet
  makes a Kafka group heterogeneous. Both builders give valid, balanced output either way.
* Malformed current assignments are cleaned up instead of trusted: partitions of topics the
  member does not subscribe to (both builders drop those, as Kafka does), partitions beyond
  the partition count, and a partition listed by two members (the first member in order keeps
  it). Kafka assumes a valid target assignment there.
* When no member subscribes to anything Kafka's builders return an empty ``GroupAssignment``;
  here every member always has an entry, ``{}`` when it gets nothing. Range ties between equal
  instance ids (which the coordinator does not allow) are broken by member id.

The homogeneous builder follows Kafka after KAFKA-18688 (in 4.1): any member may keep the extra
partition of an uneven split, not only the first ones in iteration order, so a balanced
assignment is left as it is.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

__all__ = [
    "ASSIGNORS",
    "Assignment",
    "MemberSubscription",
    "PartitionAssignor",
    "PartitionAssignorError",
    "RangeAssignor",
    "UniformAssignor",
    "assign_heterogeneous",
    "assign_homogeneous",
    "assignor",
]


@dataclass(frozen=True, slots=True)
class MemberSubscription:
    """One member as an assignor sees it (Kafka's ``MemberSubscriptionAndAssignmentImpl``)."""

    instance_id: str | None
    rack_id: str | None
    #: the topics it subscribes to that exist
    subscribed_topic_ids: frozenset[uuid.UUID]
    #: its current *target* assignment, which makes the uniform assignor sticky
    assigned: Mapping[uuid.UUID, frozenset[int]]


#: member id -> topic id -> partitions; a member that gets nothing maps to ``{}``
Assignment = dict[str, dict[uuid.UUID, frozenset[int]]]


class PartitionAssignorError(Exception):
    """The input cannot be assigned (Kafka's ``PartitionAssignorException``): a member subscribes
    to a topic missing from ``topics``, or a partition count is negative."""


class PartitionAssignor(Protocol):
    """A server-side assignor (Kafka's ``ConsumerGroupPartitionAssignor``)."""

    name: str

    def assign(self, members: Mapping[str, MemberSubscription],
               topics: Mapping[uuid.UUID, int]) -> Assignment:
        """The group's next target assignment; ``topics`` maps every topic any member
        subscribes to to its partition count."""
        ...


# -- orders ------------------------------------------------------------------------------------


def _java_string_key(value: str) -> bytes:
    """A sort key that orders strings as Java's ``String.compareTo``: by UTF-16 code unit."""
    return value.encode("utf-16-be", "surrogatepass")


def _uuid_key(topic_id: uuid.UUID) -> tuple[int, int]:
    """A sort key that orders topic ids as Kafka's ``Uuid.compareTo``: the most significant
    64 bits, then the least, each as a signed number."""
    raw = topic_id.bytes
    return (int.from_bytes(raw[:8], "big", signed=True),
            int.from_bytes(raw[8:], "big", signed=True))


def _member_order(members: Mapping[str, MemberSubscription]) -> list[str]:
    """The order the uniform builders iterate members in (see the module docstring)."""
    return sorted(members, key=_java_string_key)


def _check_topics(members: Mapping[str, MemberSubscription],
                  topics: Mapping[uuid.UUID, int]) -> None:
    """Kafka's "Members are subscribed to topic ... which doesn't exist" check."""
    for member_id, member in members.items():
        for topic_id in member.subscribed_topic_ids:
            count = topics.get(topic_id)
            if count is None:
                raise PartitionAssignorError(
                    f"Member {member_id} is subscribed to topic {topic_id} which doesn't exist "
                    f"in the topic metadata.")
            if count < 0:
                raise PartitionAssignorError(
                    f"Topic {topic_id} has a negative partition count {count}.")


def _frozen(targets: Mapping[uuid.UUID, set[int]]) -> dict[uuid.UUID, frozenset[int]]:
    return {topic_id: frozenset(parts) for topic_id, parts in targets.items() if parts}


# -- uniform, homogeneous ----------------------------------------------------------------------


def assign_homogeneous(members: Mapping[str, MemberSubscription],
                       topics: Mapping[uuid.UUID, int]) -> Assignment:
    """Kafka's ``UniformHomogeneousAssignmentBuilder``: every member subscribes to the topics of
    the first member in order (the caller checks that they all do).

    With ``P`` partitions over ``N`` members each member's quota is ``P // N``, and
    ``P % N`` of them get one more. In member order, a member keeps its current partitions up
    to ``quota + 1`` while extra slots are left, and claims an extra slot only when it keeps
    that many; otherwise it keeps up to ``quota`` and gives the rest up. The extra slots left
    unclaimed go to the *last* members, in order, that did not claim one. The free partitions -
    those nobody held, in topic order, then those given up, in member order - then fill the
    members short of their quota, in member order. Balance is exact (sizes differ by at most
    one) and a balanced assignment comes back unchanged.
    """
    order = _member_order(members)
    if not order:
        return {}
    _check_topics(members, topics)
    subscribed = members[order[0]].subscribed_topic_ids
    result: Assignment = {member_id: {} for member_id in members}
    if not subscribed:
        return result
    topic_order = sorted(subscribed, key=_uuid_key)
    counts = {topic_id: topics[topic_id] for topic_id in topic_order}
    total = sum(counts.values())
    minimum_quota, extra_slots = divmod(total, len(order))

    # Each member's current partitions, in topic order then partition order; a partition
    # counts once, for the first member in order that lists it.
    taken = {topic_id: bytearray(count) for topic_id, count in counts.items()}
    holdings: list[list[tuple[uuid.UUID, int]]] = []
    for member_id in order:
        held: list[tuple[uuid.UUID, int]] = []
        current = members[member_id].assigned
        for topic_id in sorted((t for t in current if t in counts), key=_uuid_key):
            flags, count = taken[topic_id], counts[topic_id]
            for partition in sorted(current[topic_id]):
                if 0 <= partition < count and not flags[partition]:
                    flags[partition] = 1
                    held.append((topic_id, partition))
        holdings.append(held)

    free: list[tuple[uuid.UUID, int]] = [
        (topic_id, partition)
        for topic_id in topic_order
        for partition, flag in enumerate(taken[topic_id]) if not flag]

    # Keep what fits the quota (Kafka's maybeRevokePartitions).
    targets: list[dict[uuid.UUID, set[int]]] = []
    unfilled: list[list[int]] = []  # [member index, partitions still to receive]
    for index, held in enumerate(holdings):
        quota = minimum_quota
        extra = extra_slots > 0
        if extra:
            quota += 1
        kept, given_up = held[:quota], held[quota:]
        free.extend(given_up)
        quota -= len(kept)
        if quota > 0 and extra:
            # It keeps less than minimum + 1: leave the extra slot to another member.
            quota -= 1
            extra = False
        if quota == 0 and extra:
            extra_slots -= 1
        if quota > 0 or (extra_slots > 0 and not extra):
            unfilled.append([index, quota])
        target: dict[uuid.UUID, set[int]] = {}
        for topic_id, partition in kept:
            target.setdefault(topic_id, set()).add(partition)
        targets.append(target)

    # The extra slots nobody claimed go to the last unfilled members (Kafka's
    # assignRemainingPartitions walks its unfilled list backwards for them).
    for slot in reversed(unfilled):
        if extra_slots == 0:
            break
        slot[1] += 1
        extra_slots -= 1

    position = 0
    for index, quota in unfilled:
        if quota <= 0:
            continue
        target = targets[index]
        for topic_id, partition in free[position:position + quota]:
            target.setdefault(topic_id, set()).add(partition)
        position += quota
    if position < len(free):
        raise PartitionAssignorError("Partitions were left unassigned")

    for member_id, target in zip(order, targets, strict=True):
        result[member_id] = _frozen(target)
    return result


# -- uniform, heterogeneous --------------------------------------------------------------------

#: Kafka's MAX_ITERATION_COUNT: passes over the topics in the final balancing phase
_MAX_BALANCE_PASSES = 16

_UNOWNED = -1


class _MemberBalancer:
    """Kafka's ``MemberAssignmentBalancer``: one topic's subscribers sorted by load, with a
    *least loaded* range at the bottom that grows as it is filled level by level, and a *most
    loaded* range at the top that grows as it is drained level by level. Loads are read live
    from the builder's ``sizes``."""

    __slots__ = ("_least_end", "_least_level", "_most_end", "_most_level", "_most_start",
                 "_next_least", "_next_most", "_sizes", "_sorted")

    def __init__(self, sizes: list[int]) -> None:
        self._sizes = sizes
        self._sorted: list[int] = []
        self._least_end = 0  # [0, least_end) is the least loaded range
        self._least_level = -1  # the load of that range before it got its next partitions
        self._next_least = 0
        self._most_start = 0  # [most_start, most_end) is the most loaded range
        self._most_end = 0
        self._most_level = 1  # the load of that range before it gave its next partitions up
        self._next_most = -1

    def reset(self, members: Sequence[int]) -> int:
        """Start on a topic's subscribers (never empty); gives their load spread."""
        sizes = self._sizes
        self._sorted = sorted(members, key=lambda m: (sizes[m], m))
        count = len(self._sorted)
        lowest, highest = sizes[self._sorted[0]], sizes[self._sorted[-1]]
        self._least_end = 0
        self._least_level = lowest - 1
        self._next_least = 0
        self._most_start = count
        self._most_end = count
        self._most_level = highest + 1
        self._next_most = count - 1
        return highest - lowest

    def least_loaded(self) -> int:
        """The member to give the next partition to."""
        if self._next_least >= self._least_end:
            # Every member of the range got one more: raise its level and widen it to the
            # members that are now level with it.
            self._least_level += 1
            while (self._least_end < len(self._sorted)
                   and self._sizes[self._sorted[self._least_end]] == self._least_level):
                self._least_end += 1
            self._next_least = 0
        member = self._sorted[self._next_least]
        self._next_least += 1
        return member

    def most_loaded(self) -> int:
        """The member to take the next partition from, or -1 when none is left."""
        if self._next_most < self._most_start:
            if self._most_end <= self._most_start and self._most_start > 0:
                # Exclusions emptied the range: restart it from the next member down.
                self._most_level = self._sizes[self._sorted[self._most_start - 1]]
            else:
                self._most_level -= 1
            while (self._most_start > 0
                   and self._sizes[self._sorted[self._most_start - 1]] == self._most_level):
                self._most_start -= 1
            self._next_most = self._most_end - 1
        if self._next_most < 0:
            return -1
        member = self._sorted[self._next_most]
        self._next_most -= 1
        return member

    def exclude_last_most_loaded(self) -> None:
        """Drop the member :meth:`most_loaded` just returned from the most loaded range (it has
        nothing of the topic left to give)."""
        position, last = self._next_most + 1, self._most_end - 1
        self._sorted[position], self._sorted[last] = self._sorted[last], self._sorted[position]
        self._most_end -= 1

    def is_balanced(self) -> bool:
        """Whether the ranges' levels differ by at most one: no move would help."""
        return self._most_level - self._least_level <= 1


class _HeterogeneousBuilder:
    """The state of one :func:`assign_heterogeneous` run; members are numbered in order."""

    __slots__ = ("_counts", "_order", "_owners", "_sizes", "_subscribers", "_targets")

    def __init__(self, order: list[str], members: Mapping[str, MemberSubscription],
                 topics: Mapping[uuid.UUID, int]) -> None:
        self._order = order
        self._subscribers: dict[uuid.UUID, list[int]] = {}
        for index, member_id in enumerate(order):
            for topic_id in members[member_id].subscribed_topic_ids:
                self._subscribers.setdefault(topic_id, []).append(index)
        self._counts = {topic_id: topics[topic_id] for topic_id in self._subscribers}
        self._owners = {topic_id: [_UNOWNED] * count for topic_id, count in self._counts.items()}
        self._sizes = [0] * len(order)
        self._targets: list[dict[uuid.UUID, set[int]]] = [{} for _ in order]

        # Keep every current partition of a topic the member still subscribes to (Kafka's
        # maybeRevokePartitions, which revokes whole topics only).
        for index, member_id in enumerate(order):
            member = members[member_id]
            for topic_id, parts in member.assigned.items():
                if topic_id not in member.subscribed_topic_ids:
                    continue
                owners = self._owners[topic_id]
                for partition in sorted(parts):
                    if 0 <= partition < len(owners) and owners[partition] == _UNOWNED:
                        self._add(topic_id, partition, index)

    def _topic_key(self, topic_id: uuid.UUID) -> tuple[Fraction, int, tuple[int, int]]:
        """Kafka's topic comparator: partitions per subscriber descending, then subscriber
        count ascending, then topic id."""
        subscribers = len(self._subscribers[topic_id])
        return (Fraction(-self._counts[topic_id], subscribers), subscribers, _uuid_key(topic_id))

    def _add(self, topic_id: uuid.UUID, partition: int, index: int) -> None:
        self._targets[index].setdefault(topic_id, set()).add(partition)
        self._owners[topic_id][partition] = index
        self._sizes[index] += 1

    def _move(self, topic_id: uuid.UUID, partition: int, index: int) -> None:
        previous = self._owners[topic_id][partition]
        if previous != _UNOWNED:
            parts = self._targets[previous][topic_id]
            parts.discard(partition)
            if not parts:
                del self._targets[previous][topic_id]
            self._sizes[previous] -= 1
        self._add(topic_id, partition, index)

    def build(self) -> list[dict[uuid.UUID, frozenset[int]]]:
        """Hand out the free partitions, balance, and give each member's target in order."""
        balancer = _MemberBalancer(self._sizes)
        free = {topic_id: [p for p, owner in enumerate(owners) if owner == _UNOWNED]
                for topic_id, owners in self._owners.items()}
        for topic_id in sorted((t for t, parts in free.items() if parts), key=self._topic_key):
            balancer.reset(self._subscribers[topic_id])
            for partition in free[topic_id]:
                self._move(topic_id, partition, balancer.least_loaded())
        movable = [t for t, subscribers in self._subscribers.items() if len(subscribers) >= 2]
        if movable:
            self._balance_topics(movable, balancer)
        return [_frozen(target) for target in self._targets]

    def _balance_topics(self, topic_ids: list[uuid.UUID], balancer: _MemberBalancer) -> None:
        """Kafka's ``balanceTopics``: balance topic by topic, in topic order, until a whole
        pass moves nothing or :data:`_MAX_BALANCE_PASSES` passes are done."""
        ordered = sorted(topic_ids, key=self._topic_key)
        last_moved = -1  # the last topic that moved partitions
        for _ in range(_MAX_BALANCE_PASSES):
            for position, topic_id in enumerate(ordered):
                if position == last_moved:
                    return  # a full pass since the last move
                if self._balance_topic(topic_id, balancer) > 0 or last_moved == -1:
                    last_moved = position

    def _balance_topic(self, topic_id: uuid.UUID, balancer: _MemberBalancer) -> int:
        """Kafka's ``balanceTopic``: move the topic's partitions from its most loaded
        subscribers to its least loaded ones until their loads differ by at most one, or no
        loaded subscriber has a partition of the topic left; gives the number moved."""
        if balancer.reset(self._subscribers[topic_id]) <= 1:
            return 0
        owners = self._owners[topic_id]
        # The partitions grouped by owner, ascending within a group; each owner gives up
        # partitions from the end of its group.
        partitions = sorted(range(len(owners)), key=owners.__getitem__)
        starts: dict[int, int] = {}
        ends: dict[int, int] = {}
        for position, partition in enumerate(partitions):
            owner = owners[partition]
            starts.setdefault(owner, position)
            ends[owner] = position + 1
        moved = 0
        while not balancer.is_balanced():
            donor = balancer.most_loaded()
            while donor != -1 and ends.get(donor, 0) - starts.get(donor, 0) <= 0:
                balancer.exclude_last_most_loaded()
                donor = balancer.most_loaded()
            if donor == -1:
                break
            ends[donor] -= 1
            partition = partitions[ends[donor]]
            receiver = balancer.least_loaded()
            if balancer.is_balanced():
                break
            self._move(topic_id, partition, receiver)
            moved += 1
        return moved


def assign_heterogeneous(members: Mapping[str, MemberSubscription],
                         topics: Mapping[uuid.UUID, int]) -> Assignment:
    """Kafka's ``UniformHeterogeneousAssignmentBuilder``, for members with different
    subscriptions.

    Each member keeps every current partition of the topics it still subscribes to. The free
    partitions are handed out topic by topic - most partitions per subscriber first, then
    fewest subscribers, then topic id - each to the topic's least loaded subscriber. Then,
    repeatedly over the topics with two or more subscribers, partitions move from a topic's
    most loaded subscribers to its least loaded ones while their loads differ by two or more.

    Once a pass over the topics moves nothing (Kafka stops after 16 passes in any case), no
    member holding a partition of a topic has two or more partitions more than another
    subscriber of that topic; overall balance is as good as that allows (Kafka's comment:
    overlapping subscriptions can end at 9/10/11 where 10/10/10 exists).
    """
    order = _member_order(members)
    if not order:
        return {}
    _check_topics(members, topics)
    targets = _HeterogeneousBuilder(order, members, topics).build()
    result: Assignment = {member_id: {} for member_id in members}
    for member_id, target in zip(order, targets, strict=True):
        result[member_id] = target
    return result


class UniformAssignor:
    """Kafka's ``UniformAssignor`` (``uniform``, the default): :func:`assign_homogeneous` when
    every member subscribes to the same topics, :func:`assign_heterogeneous` otherwise."""

    __slots__ = ()

    name = "uniform"

    def assign(self, members: Mapping[str, MemberSubscription],
               topics: Mapping[uuid.UUID, int]) -> Assignment:
        """The group's next target assignment."""
        if not members:
            return {}
        subscriptions = iter(members.values())
        first = next(subscriptions).subscribed_topic_ids
        if all(member.subscribed_topic_ids == first for member in subscriptions):
            return assign_homogeneous(members, topics)
        return assign_heterogeneous(members, topics)


# -- range ---------------------------------------------------------------------------------------


def _range_key(item: tuple[str, MemberSubscription]) -> tuple[int, bytes, bytes]:
    """Kafka's ``sortMemberIds``: static members first, by instance id, then the others by
    member id (member id also breaks ties between equal instance ids)."""
    member_id, member = item
    if member.instance_id is not None:
        return 0, _java_string_key(member.instance_id), _java_string_key(member_id)
    return 1, b"", _java_string_key(member_id)


class RangeAssignor:
    """Kafka's ``RangeAssignor`` (``range``): per topic, its subscribers - static members first
    by instance id, then the others by member id - get contiguous ranges of ``P // N``
    partitions, the first ``P % N`` of them one more.

    Kafka has a homogeneous and a heterogeneous path; both amount to this. Since every topic
    walks the same member order, members sharing a subscription get the same partition numbers
    from topics of equal size (co-partitioning). The current assignment is not looked at: a
    static member that comes back with a new member id gets its old ranges back because its
    instance id keeps its place.
    """

    __slots__ = ()

    name = "range"

    def assign(self, members: Mapping[str, MemberSubscription],
               topics: Mapping[uuid.UUID, int]) -> Assignment:
        """The group's next target assignment."""
        _check_topics(members, topics)
        subscribers: dict[uuid.UUID, list[str]] = {}
        for member_id, member in sorted(members.items(), key=_range_key):
            for topic_id in member.subscribed_topic_ids:
                subscribers.setdefault(topic_id, []).append(member_id)
        result: Assignment = {member_id: {} for member_id in members}
        for topic_id, member_ids in subscribers.items():
            count = topics[topic_id]
            quota, extra = divmod(count, len(member_ids))
            start = 0
            for position, member_id in enumerate(member_ids):
                end = min(start + quota + (1 if position < extra else 0), count)
                if start < end:
                    result[member_id][topic_id] = frozenset(range(start, end))
                start = end
        return result


#: the assignors by name (``group.consumer.assignors`` names them)
ASSIGNORS: dict[str, type[PartitionAssignor]] = {
    UniformAssignor.name: UniformAssignor,
    RangeAssignor.name: RangeAssignor,
}


def assignor(name: str) -> PartitionAssignor:
    """The assignor called ``name``; :class:`KeyError` for an unknown name."""
    return ASSIGNORS[name]()
