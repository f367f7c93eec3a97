"""Partition leader election, as Kafka's ZooKeeper-mode controller decides it
(``controller/Election.scala`` and ``PartitionLeaderElectionAlgorithms``).

Theory of operation
-------------------
An election takes a partition's current leader and ISR (read from its ``state`` znode) and the
controller's view of which replicas are *live* - registered, not shutting down, log dir online -
and returns the new leader and ISR, or ``None`` when no replica may lead, together with the
brokers that must hear of it in a LeaderAndIsr. Every election bumps the leader epoch by one;
the partition epoch stays the version the caller will compare-and-set against.

==========================  ====================================  ====================  =========================
strategy                    leader                                new ISR               LeaderAndIsr to
==========================  ====================================  ====================  =========================
offline                     first replica, in assignment order,   ISR minus replicas    live replicas
                            live and in the ISR; if none, and     not live; unclean:
                            unclean election is allowed, the      ``[leader]``, marked
                            first live replica                    RECOVERING (KIP-704)
reassign                    first *target* replica live and in    unchanged             target replicas
                            the ISR
preferred replica           the first replica, only if live and   unchanged             all replicas
                            in the ISR
controlled shutdown         first replica in the ISR, live or     ISR minus the         live and shutting-down
                            shutting down, and not shutting down  shutting-down         replicas
==========================  ====================================  ====================  =========================

Unclean election is considered only for a partition none of whose ISR members is live: when the
strategy allows it (an ElectLeaders of type UNCLEAN from an admin client) or the topic's
``unclean.leader.election.enable`` does. :func:`needs_unclean_config` tells the caller which
partitions' topic configs it has to look up. An unclean choice is logged (a warning naming the
partition, the new leader and the ISR it was not in); the new leader logs which offsets are
lost, measured against the old leader's high watermark as it last fetched it
(:meth:`pybroker.cluster.partition.Partition.make_leader`), since only it knows its log end.

Everything here is pure: the context is read, never changed.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pybroker.controller.model import LeaderAndIsr
from pybroker.kernel.types import TopicPartition

if TYPE_CHECKING:
    from pybroker.controller.context import ControllerContext

log = logging.getLogger(__name__)


class ElectionKind(enum.Enum):
    value: str

    OFFLINE = "OfflinePartitionLeaderElectionStrategy"
    REASSIGN = "ReassignPartitionLeaderElectionStrategy"
    PREFERRED_REPLICA = "PreferredReplicaPartitionLeaderElectionStrategy"
    CONTROLLED_SHUTDOWN = "ControlledShutdownPartitionLeaderElectionStrategy"


@dataclass(frozen=True, slots=True)
class ElectionStrategy:
    kind: ElectionKind
    allow_unclean: bool = False  # offline only: unclean election without asking the topic

    def __str__(self) -> str:
        if self.kind is ElectionKind.OFFLINE:
            return f"{self.kind.value}({str(self.allow_unclean).lower()})"
        return self.kind.value


OFFLINE = ElectionStrategy(ElectionKind.OFFLINE)
OFFLINE_ALLOW_UNCLEAN = ElectionStrategy(ElectionKind.OFFLINE, allow_unclean=True)
REASSIGN = ElectionStrategy(ElectionKind.REASSIGN)
PREFERRED_REPLICA = ElectionStrategy(ElectionKind.PREFERRED_REPLICA)
CONTROLLED_SHUTDOWN = ElectionStrategy(ElectionKind.CONTROLLED_SHUTDOWN)


@dataclass(frozen=True, slots=True)
class ElectionResult:
    """``leader_and_isr`` is the state to write, ``None`` when no leader can be elected;
    ``recipients`` are the brokers to send it to in a LeaderAndIsr (Kafka's ``liveReplicas``)."""

    topic_partition: TopicPartition
    leader_and_isr: LeaderAndIsr | None
    recipients: tuple[int, ...]
    #: the leader was chosen from outside the ISR (an unclean election)
    unclean: bool = False


# -- the algorithms (PartitionLeaderElectionAlgorithms) -----------------------------------------


def offline_partition_leader_election(assignment: Sequence[int], isr: Collection[int],
                                      live_replicas: Collection[int],
                                      unclean_enabled: bool) -> int | None:
    for replica in assignment:
        if replica in live_replicas and replica in isr:
            return replica
    if unclean_enabled:
        for replica in assignment:
            if replica in live_replicas:
                return replica
    return None


def reassign_partition_leader_election(target: Sequence[int], isr: Collection[int],
                                       live_replicas: Collection[int]) -> int | None:
    for replica in target:
        if replica in live_replicas and replica in isr:
            return replica
    return None


def preferred_replica_partition_leader_election(assignment: Sequence[int], isr: Collection[int],
                                                live_replicas: Collection[int]) -> int | None:
    if assignment and assignment[0] in live_replicas and assignment[0] in isr:
        return assignment[0]
    return None


def controlled_shutdown_partition_leader_election(assignment: Sequence[int], isr: Collection[int],
                                                  live_replicas: Collection[int],
                                                  shutting_down: Collection[int]) -> int | None:
    for replica in assignment:
        if replica in live_replicas and replica in isr and replica not in shutting_down:
            return replica
    return None


# -- elections over the controller's view (Election) --------------------------------------------


def _live(ctx: ControllerContext, tp: TopicPartition, replicas: Sequence[int],
          include_shutting_down: bool = False) -> tuple[int, ...]:
    return tuple(r for r in replicas if ctx.is_replica_online(r, tp, include_shutting_down))


def has_live_isr_member(ctx: ControllerContext, tp: TopicPartition,
                        leader_and_isr: LeaderAndIsr) -> bool:
    return any(ctx.is_replica_online(r, tp) for r in leader_and_isr.isr)


def needs_unclean_config(ctx: ControllerContext, tp: TopicPartition,
                         leader_and_isr: LeaderAndIsr, strategy: ElectionStrategy) -> bool:
    """Whether an election of ``tp`` under ``strategy`` depends on its topic's
    ``unclean.leader.election.enable``: an offline election that the strategy does not already
    make unclean, of a partition with no live ISR member."""
    return (strategy.kind is ElectionKind.OFFLINE and not strategy.allow_unclean
            and not has_live_isr_member(ctx, tp, leader_and_isr))


def leader_for_offline(ctx: ControllerContext, tp: TopicPartition,
                       leader_and_isr: LeaderAndIsr | None, unclean_enabled: bool,
                       leader_recovery_supported: bool = True) -> ElectionResult:
    """``unclean_enabled`` applies only when no ISR member is live (the caller passes the
    strategy's ``allow_unclean`` or the topic's config then, ``False`` otherwise)."""
    assignment = ctx.partition_replica_assignment(tp)
    live = _live(ctx, tp, assignment)
    if leader_and_isr is None:
        return ElectionResult(tp, None, live)
    isr = leader_and_isr.isr
    leader = offline_partition_leader_election(assignment, isr, live, unclean_enabled)
    if leader is None:
        return ElectionResult(tp, None, live)
    if leader in isr:
        new_isr: tuple[int, ...] = tuple(r for r in isr if ctx.is_replica_online(r, tp))
        return ElectionResult(tp, leader_and_isr.new_leader_and_isr(leader, new_isr), live)
    log.warning("Unclean leader election for %s-%d: broker %d leads in epoch %d without having "
                "been in the ISR %s (leader %d, epoch %d); records committed beyond its log end "
                "are lost, and the other replicas truncate to it", tp[0], tp[1], leader,
                leader_and_isr.leader_epoch + 1, list(isr), leader_and_isr.leader,
                leader_and_isr.leader_epoch)
    if leader_recovery_supported:
        # the new leader was not in the ISR: its log may lack committed records
        return ElectionResult(tp, leader_and_isr.new_recovering_leader_and_isr(leader, [leader]),
                              live, unclean=True)
    return ElectionResult(tp, leader_and_isr.new_leader_and_isr(leader, [leader]), live,
                          unclean=True)


def leader_for_reassign(ctx: ControllerContext, tp: TopicPartition,
                        leader_and_isr: LeaderAndIsr) -> ElectionResult:
    target = ctx.partition_full_replica_assignment(tp).target_replicas
    live = _live(ctx, tp, target)
    leader = reassign_partition_leader_election(target, leader_and_isr.isr, live)
    return ElectionResult(tp, None if leader is None else leader_and_isr.new_leader(leader), target)


def leader_for_preferred_replica(ctx: ControllerContext, tp: TopicPartition,
                                 leader_and_isr: LeaderAndIsr) -> ElectionResult:
    assignment = ctx.partition_replica_assignment(tp)
    live = _live(ctx, tp, assignment)
    leader = preferred_replica_partition_leader_election(assignment, leader_and_isr.isr, live)
    return ElectionResult(tp, None if leader is None else leader_and_isr.new_leader(leader),
                          assignment)


def leader_for_controlled_shutdown(ctx: ControllerContext, tp: TopicPartition,
                                   leader_and_isr: LeaderAndIsr) -> ElectionResult:
    assignment = ctx.partition_replica_assignment(tp)
    live_or_shutting_down = _live(ctx, tp, assignment, include_shutting_down=True)
    shutting_down = ctx.shutting_down_broker_ids
    leader = controlled_shutdown_partition_leader_election(
        assignment, leader_and_isr.isr, live_or_shutting_down, shutting_down)
    if leader is None:
        return ElectionResult(tp, None, live_or_shutting_down)
    new_isr = [r for r in leader_and_isr.isr if r not in shutting_down]
    return ElectionResult(tp, leader_and_isr.new_leader_and_isr(leader, new_isr),
                          live_or_shutting_down)


def elect(ctx: ControllerContext, strategy: ElectionStrategy, tp: TopicPartition,
          leader_and_isr: LeaderAndIsr, unclean_enabled: bool = False,
          leader_recovery_supported: bool = True) -> ElectionResult:
    """One partition's election under ``strategy``. ``unclean_enabled`` is the topic's
    ``unclean.leader.election.enable``; it matters only to an offline election of a partition
    with no live ISR member, and the strategy's ``allow_unclean`` overrides it."""
    kind = strategy.kind
    if kind is ElectionKind.OFFLINE:
        unclean = (not has_live_isr_member(ctx, tp, leader_and_isr)
                   and (strategy.allow_unclean or unclean_enabled))
        return leader_for_offline(ctx, tp, leader_and_isr, unclean, leader_recovery_supported)
    if kind is ElectionKind.REASSIGN:
        return leader_for_reassign(ctx, tp, leader_and_isr)
    if kind is ElectionKind.PREFERRED_REPLICA:
        return leader_for_preferred_replica(ctx, tp, leader_and_isr)
    return leader_for_controlled_shutdown(ctx, tp, leader_and_isr)


# -- automatic preferred-leader rebalancing -----------------------------------------------------


def can_preferred_replica_be_leader(ctx: ControllerContext, tp: TopicPartition) -> bool:
    info = ctx.partition_leadership_info(tp)
    if info is None:
        return False
    assignment = ctx.partition_replica_assignment(tp)
    live = _live(ctx, tp, assignment)
    return preferred_replica_partition_leader_election(
        assignment, info.leader_and_isr.isr, live) is not None


def auto_rebalance_candidates(ctx: ControllerContext, imbalance_percentage: int
                              ) -> dict[int, list[TopicPartition]]:
    """The partitions ``leader.imbalance.check.interval.seconds`` would move back to their
    preferred leaders (Kafka's ``checkAndTriggerAutoLeaderRebalance``), by preferred broker:
    for each broker whose share of preferred-but-not-leading partitions exceeds
    ``leader.imbalance.per.broker.percentage``, those of them whose preferred replica can lead.
    Each broker's list is one preferred-replica election."""
    by_preferred: dict[int, list[TopicPartition]] = {}
    for tp in sorted(ctx.all_partitions()):
        if ctx.is_topic_queued_up_for_deletion(tp[0]):
            continue
        replicas = ctx.partition_replica_assignment(tp)
        if replicas:
            by_preferred.setdefault(replicas[0], []).append(tp)
    result: dict[int, list[TopicPartition]] = {}
    for broker, partitions in sorted(by_preferred.items()):
        not_preferred = []
        for tp in partitions:
            info = ctx.partition_leadership_info(tp)
            if info is not None and info.leader_and_isr.leader != broker:
                not_preferred.append(tp)
        if len(not_preferred) / len(partitions) > imbalance_percentage / 100:
            result[broker] = [tp for tp in not_preferred
                              if tp[0] in ctx.all_topics
                              and can_preferred_replica_be_leader(ctx, tp)]
    return result
