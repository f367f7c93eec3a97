"""Leader election strategies of the ZooKeeper-mode controller, on the cases of Kafka's
``Election.scala`` (kafka-cluster-internals.md §7)."""

from __future__ import annotations

from pybroker.controller import election
from pybroker.controller.election import (
    CONTROLLED_SHUTDOWN,
    OFFLINE,
    OFFLINE_ALLOW_UNCLEAN,
    PREFERRED_REPLICA,
    REASSIGN,
    ElectionResult,
)
from pybroker.controller.model import LeaderAndIsr, LeaderRecoveryState, ReplicaAssignment
from tests.unit.controller.controller_cluster import lead, make_context

TP = ("orders", 0)
RECOVERED = LeaderRecoveryState.RECOVERED
RECOVERING = LeaderRecoveryState.RECOVERING


def state(leader: int, isr: list[int], epoch: int = 7, partition_epoch: int = 12) -> LeaderAndIsr:
    return LeaderAndIsr(leader, epoch, tuple(isr), RECOVERED, partition_epoch)


def expect(result: ElectionResult, leader: int, isr: list[int], recipients: list[int],
           recovery: LeaderRecoveryState = RECOVERED) -> None:
    # every election bumps the leader epoch by one and keeps the version to compare-and-set
    assert result.leader_and_isr == LeaderAndIsr(leader, 8, tuple(isr), recovery, 12)
    assert result.recipients == tuple(recipients)


# -- offline ----------------------------------------------------------------------------------


def test_offline_elects_the_first_live_isr_member_in_assignment_order():
    # the leader (1) died; 3 comes before 2 in the assignment
    ctx = make_context(brokers=[2, 3, 4], topics={"orders": [[1, 3, 2, 4]]})
    result = election.elect(ctx, OFFLINE, TP, state(1, [1, 2, 3]))
    expect(result, 3, [2, 3], [3, 2, 4])


def test_offline_skips_a_live_replica_outside_the_isr():
    ctx = make_context(brokers=[2, 3], topics={"orders": [[1, 3, 2]]})
    result = election.elect(ctx, OFFLINE, TP, state(1, [1, 2]))
    expect(result, 2, [2], [3, 2])


def test_offline_without_a_live_isr_member_and_unclean_disabled_elects_no_one():
    ctx = make_context(brokers=[3], topics={"orders": [[1, 2, 3]]})
    lai = state(1, [1, 2])
    assert election.needs_unclean_config(ctx, TP, lai, OFFLINE)
    result = election.elect(ctx, OFFLINE, TP, lai, unclean_enabled=False)
    assert result.leader_and_isr is None
    assert result.recipients == (3,)


def test_offline_without_a_live_isr_member_and_unclean_enabled_by_the_topic():
    ctx = make_context(brokers=[3, 4], topics={"orders": [[1, 2, 4, 3]]})
    result = election.elect(ctx, OFFLINE, TP, state(1, [1, 2]), unclean_enabled=True)
    # the first live replica in assignment order leads alone, and is recovering (KIP-704)
    expect(result, 4, [4], [4, 3], RECOVERING)


def test_offline_unclean_allowed_by_the_strategy_needs_no_topic_config():
    ctx = make_context(brokers=[3], topics={"orders": [[1, 2, 3]]})
    lai = state(1, [1, 2])
    assert not election.needs_unclean_config(ctx, TP, lai, OFFLINE_ALLOW_UNCLEAN)
    result = election.elect(ctx, OFFLINE_ALLOW_UNCLEAN, TP, lai, unclean_enabled=False)
    expect(result, 3, [3], [3], RECOVERING)


def test_offline_unclean_before_ibp_3_2_is_not_marked_recovering():
    ctx = make_context(brokers=[3], topics={"orders": [[1, 2, 3]]})
    result = election.elect(ctx, OFFLINE_ALLOW_UNCLEAN, TP, state(1, [1, 2]),
                            leader_recovery_supported=False)
    expect(result, 3, [3], [3], RECOVERED)


def test_offline_with_a_live_isr_member_is_clean_even_when_unclean_is_allowed():
    ctx = make_context(brokers=[2, 3], topics={"orders": [[3, 1, 2]]})
    lai = state(1, [1, 2])
    assert not election.needs_unclean_config(ctx, TP, lai, OFFLINE)
    result = election.elect(ctx, OFFLINE_ALLOW_UNCLEAN, TP, lai, unclean_enabled=True)
    expect(result, 2, [2], [3, 2])


def test_offline_keeps_the_recovery_state_of_a_clean_election():
    ctx = make_context(brokers=[2], topics={"orders": [[1, 2]]})
    lai = LeaderAndIsr(1, 7, (1, 2), RECOVERING, 12)
    expect(election.elect(ctx, OFFLINE, TP, lai), 2, [2], [2], RECOVERING)


def test_offline_treats_a_shutting_down_broker_as_not_live():
    # 2 is in the ISR but shutting down; 3 is live but not in the ISR
    ctx = make_context(brokers=[2, 3], topics={"orders": [[1, 2, 3]]}, shutting_down=[2])
    result = election.elect(ctx, OFFLINE, TP, state(1, [1, 2]))
    assert result.leader_and_isr is None
    assert result.recipients == (3,)


def test_offline_treats_a_replica_on_an_offline_log_dir_as_not_live():
    ctx = make_context(brokers=[2, 3], topics={"orders": [[1, 2, 3]]})
    ctx.replicas_on_offline_dirs[2] = {TP}
    result = election.elect(ctx, OFFLINE, TP, state(1, [1, 2, 3]))
    expect(result, 3, [3], [3])


def test_offline_without_a_state_elects_no_one():
    ctx = make_context(topics={"orders": [[1, 2, 3]]})
    result = election.leader_for_offline(ctx, TP, None, unclean_enabled=True)
    assert result.leader_and_isr is None and result.recipients == (1, 2, 3)


def test_offline_when_the_leader_is_still_live_re_elects_it():
    # the New/Offline retry after a broker came back: the first ISR member in assignment order
    ctx = make_context(topics={"orders": [[1, 2, 3]]})
    expect(election.elect(ctx, OFFLINE, TP, state(2, [2, 3])), 2, [2, 3], [1, 2, 3])


# -- reassign ---------------------------------------------------------------------------------


def _reassigning(brokers: list[int]):
    ctx = make_context(brokers=brokers, topics={"orders": [[1, 2, 3]]})
    ctx.update_partition_full_replica_assignment(
        TP, ReplicaAssignment([1, 2, 3]).reassign_to([4, 5, 6]))
    return ctx


def test_reassign_elects_the_first_live_target_replica_in_the_isr():
    ctx = _reassigning([1, 2, 3, 5, 6])
    # 4 is dead, 6 is in the ISR before 5, but target order decides; ISR unchanged
    result = election.elect(ctx, REASSIGN, TP, state(1, [1, 6, 5, 2, 3, 4]))
    expect(result, 5, [1, 6, 5, 2, 3, 4], [4, 5, 6])


def test_reassign_without_a_target_replica_in_the_isr_elects_no_one():
    ctx = _reassigning([1, 2, 3, 4, 5, 6])
    result = election.elect(ctx, REASSIGN, TP, state(1, [1, 2, 3]))
    assert result.leader_and_isr is None and result.recipients == (4, 5, 6)


# -- preferred replica ------------------------------------------------------------------------


def test_preferred_replica_elects_the_first_replica():
    ctx = make_context(topics={"orders": [[2, 1, 3]]})
    expect(election.elect(ctx, PREFERRED_REPLICA, TP, state(1, [1, 2, 3])), 2, [1, 2, 3],
           [2, 1, 3])


def test_preferred_leader_not_in_the_isr_elects_no_one():
    ctx = make_context(topics={"orders": [[2, 1, 3]]})
    result = election.elect(ctx, PREFERRED_REPLICA, TP, state(1, [1, 3]))
    assert result.leader_and_isr is None and result.recipients == (2, 1, 3)


def test_preferred_leader_dead_or_shutting_down_elects_no_one():
    dead = make_context(brokers=[1, 3], topics={"orders": [[2, 1, 3]]})
    assert election.elect(dead, PREFERRED_REPLICA, TP, state(1, [1, 2, 3])).leader_and_isr is None
    stopping = make_context(topics={"orders": [[2, 1, 3]]}, shutting_down=[2])
    assert election.elect(stopping, PREFERRED_REPLICA, TP,
                          state(1, [1, 2, 3])).leader_and_isr is None


# -- controlled shutdown ----------------------------------------------------------------------


def test_controlled_shutdown_moves_leadership_off_the_stopping_broker():
    ctx = make_context(topics={"orders": [[1, 2, 3]]}, shutting_down=[1])
    result = election.elect(ctx, CONTROLLED_SHUTDOWN, TP, state(1, [1, 2, 3]))
    # the stopping broker leaves the ISR, and still hears of the change
    expect(result, 2, [2, 3], [1, 2, 3])


def test_controlled_shutdown_drops_every_stopping_broker_from_the_isr():
    ctx = make_context(brokers=[1, 2, 3, 4], topics={"orders": [[1, 2, 3, 4]]},
                       shutting_down=[1, 2])
    ctx.remove_live_brokers([4])  # a dead replica does not hear of it
    result = election.elect(ctx, CONTROLLED_SHUTDOWN, TP, state(1, [1, 2, 3, 4]))
    expect(result, 3, [3, 4], [1, 2, 3])


def test_controlled_shutdown_with_no_other_isr_member_elects_no_one():
    ctx = make_context(topics={"orders": [[1, 2, 3]]}, shutting_down=[1])
    result = election.elect(ctx, CONTROLLED_SHUTDOWN, TP, state(1, [1]))
    assert result.leader_and_isr is None and result.recipients == (1, 2, 3)


# -- the algorithms on plain lists ------------------------------------------------------------


def test_algorithms():
    assert election.offline_partition_leader_election([1, 2, 3], [3, 2], {2, 3}, False) == 2
    assert election.offline_partition_leader_election([1, 2, 3], [1], {2, 3}, False) is None
    assert election.offline_partition_leader_election([1, 2, 3], [1], {2, 3}, True) == 2
    assert election.offline_partition_leader_election([1, 2, 3], [1], set(), True) is None
    assert election.reassign_partition_leader_election([4, 5], [5, 4], {4, 5}) == 4
    assert election.preferred_replica_partition_leader_election([], [1], {1}) is None
    assert election.controlled_shutdown_partition_leader_election(
        [1, 2, 3], [1, 2, 3], {1, 2, 3}, {1, 2}) == 3


def test_strategies_print_as_kafkas():
    assert str(OFFLINE) == "OfflinePartitionLeaderElectionStrategy(false)"
    assert str(OFFLINE_ALLOW_UNCLEAN) == "OfflinePartitionLeaderElectionStrategy(true)"
    assert str(PREFERRED_REPLICA) == "PreferredReplicaPartitionLeaderElectionStrategy"
    assert str(REASSIGN) == "ReassignPartitionLeaderElectionStrategy"
    assert str(CONTROLLED_SHUTDOWN) == "ControlledShutdownPartitionLeaderElectionStrategy"


# -- automatic rebalancing --------------------------------------------------------------------


def test_auto_rebalance_picks_the_imbalanced_brokers_partitions_that_can_move():
    ctx = make_context(topics={"a": [[1, 2], [1, 3], [1, 2], [2, 1]], "b": [[3, 1]]})
    lead(ctx, ("a", 0), 2, [1, 2])  # not preferred, 1 in the ISR: can move back
    lead(ctx, ("a", 1), 3, [3])  # not preferred, 1 not in the ISR: cannot
    lead(ctx, ("a", 2), 1, [1, 2])
    lead(ctx, ("a", 3), 2, [2, 1])
    lead(ctx, ("b", 0), 1, [1])  # broker 3's only partition, off its preferred leader, stuck
    # broker 1: 2 of 3 partitions off their preferred leader (66% > 10%); broker 3: 1 of 1
    assert election.auto_rebalance_candidates(ctx, 10) == {1: [("a", 0)], 3: []}
    # at 70% broker 1 is within bounds; at 100% no broker is over
    assert election.auto_rebalance_candidates(ctx, 70) == {3: []}
    assert election.auto_rebalance_candidates(ctx, 100) == {}
    ctx.queue_topic_deletion(["b"])
    assert election.auto_rebalance_candidates(ctx, 10) == {1: [("a", 0)]}
