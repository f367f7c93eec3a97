"""Reconciling one member with its target assignment (Kafka's ``CurrentAssignmentBuilder``).

The coordinator computes a target assignment for the whole group; each member moves towards
its own target one heartbeat at a time, and only as fast as the one-owner rule allows:

* a partition the member must give up is *pending revocation*; the member stays at its old
  epoch (UNREVOKED_PARTITIONS) until a heartbeat no longer lists it among the owned ones;
* a partition another member still holds (assigned or pending revocation there) is
  *unreleased*: the member reaches the new epoch without it (UNRELEASED_PARTITIONS) and gets it
  on a later heartbeat, once it is free;
* otherwise the member is STABLE at the target epoch.

Pure: :func:`reconcile` takes the member, the target, what the heartbeat said it owns and a
lookup of who holds a partition, and gives the next member.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from protocol.errors import ErrorCode, KafkaError

from .member import (
    EMPTY_ASSIGNMENT,
    MEMBER_STATES,
    Assignment,
    ConsumerGroupMember,
    MemberState,
    assignment,
    intersects,
)

#: (topic id, partition) -> the epoch of the member holding it, -1 when free
PartitionEpoch = Callable[[uuid.UUID, int], int]

FREE = -1


def _next(member: ConsumerGroupMember, epoch: int, current: Assignment, target_epoch: int,
          target: Assignment, owned: Assignment | None,
          partition_epoch: PartitionEpoch) -> ConsumerGroupMember:
    """Kafka's ``computeNextAssignment``: the member's next step from ``current`` towards
    ``target``; ``epoch`` is the epoch it keeps while it must still revoke."""
    new_assigned: dict[uuid.UUID, set[int]] = {}
    revoking: dict[uuid.UUID, frozenset[int]] = {}
    to_assign: dict[uuid.UUID, set[int]] = {}
    unreleased = False
    own_pending = member.pending_revocation
    for topic in {*current, *target}:
        tgt = target.get(topic, frozenset())
        cur = current.get(topic, frozenset())
        kept = cur & tgt
        revoke = cur - kept
        wanted = set(tgt - kept)
        # a partition held elsewhere waits; one this member is itself revoking does not
        # (KAFKA-19449: it comes straight back)
        mine = own_pending.get(topic, frozenset())
        held = {p for p in wanted if partition_epoch(topic, p) != FREE and p not in mine}
        if held:
            unreleased = True
            wanted -= held
        if kept:
            new_assigned[topic] = set(kept)
        if revoke:
            revoking[topic] = revoke
        if wanted:
            to_assign[topic] = wanted
    pending = assignment(revoking)
    if pending and intersects(owned, pending):
        state = MemberState.UNREVOKED_PARTITIONS
        nxt = member.with_epoch(epoch, state=state, assigned=assignment(new_assigned),
                                pending_revocation=pending)
    else:
        for topic, parts in to_assign.items():
            new_assigned.setdefault(topic, set()).update(parts)
        state = (MemberState.UNRELEASED_PARTITIONS if unreleased else MemberState.STABLE)
        nxt = member.with_epoch(target_epoch, state=state, assigned=assignment(new_assigned),
                                pending_revocation=EMPTY_ASSIGNMENT)
    MEMBER_STATES.check(member.member_id, member.state, state)
    return nxt


def reconcile(member: ConsumerGroupMember, target_epoch: int, target: Assignment,
              owned: Assignment | None, partition_epoch: PartitionEpoch) -> ConsumerGroupMember:
    """The member after one heartbeat that reported ``owned`` (None: not sent, which counts as
    still owning everything); the member itself when nothing changes.

    Raises FENCED_MEMBER_EPOCH for a member in a state this coordinator does not know (written
    by a newer one) that still reports partitions: it must rejoin from nothing."""
    state = member.state
    if state is MemberState.STABLE:
        if member.member_epoch == target_epoch:
            return member
        return _next(member, member.member_epoch, member.assigned, target_epoch, target, owned,
                     partition_epoch)
    if state is MemberState.UNREVOKED_PARTITIONS:
        if intersects(owned, member.pending_revocation):
            return member
        # the revocation is done: on to the target (member epoch + 1 if yet another
        # revocation is due, as it was never bumped when this one started)
        return _next(member, min(member.member_epoch + 1, target_epoch), member.assigned,
                     target_epoch, target, owned, partition_epoch)
    if state is MemberState.UNRELEASED_PARTITIONS:
        return _next(member, member.member_epoch, member.assigned, target_epoch, target, owned,
                     partition_epoch)
    if owned is None or owned:
        raise KafkaError(ErrorCode.FENCED_MEMBER_EPOCH,
                         f"The consumer group member {member.member_id} is in an unknown state "
                         "and must rejoin the group without partitions.")
    return _next(member, target_epoch, EMPTY_ASSIGNMENT, target_epoch, target, owned,
                 partition_epoch)
