"""The ZooKeeper-mode controller's values (LeaderAndIsr, ReplicaAssignment) and its context."""

from __future__ import annotations

import uuid

import pytest

from pybroker.controller.model import (
    LeaderAndIsr,
    LeaderRecoveryState,
    PartitionAndReplica,
    ReplicaAssignment,
)
from pybroker.controller.partition_state_machine import PartitionState
from pybroker.controller.replica_state_machine import ReplicaState
from pybroker.kernel.types import tp_str
from tests.unit.controller.controller_cluster import lead, make_context

A0, A1, B0 = ("a", 0), ("a", 1), ("b", 0)


# -- values -----------------------------------------------------------------------------------


def test_leader_and_isr_helpers_bump_the_leader_epoch():
    lai = LeaderAndIsr(1, 4, (1, 2, 3), LeaderRecoveryState.RECOVERED, 9)
    assert LeaderAndIsr.initial(2, [2, 3]) == LeaderAndIsr(2, 0, (2, 3), 0, 0)
    assert lai.new_leader(2) == LeaderAndIsr(2, 5, (1, 2, 3), 0, 9)
    assert lai.new_leader_and_isr(3, [3]) == LeaderAndIsr(3, 5, (3,), 0, 9)
    assert lai.new_recovering_leader_and_isr(3, [3]) == LeaderAndIsr(
        3, 5, (3,), LeaderRecoveryState.RECOVERING, 9)
    assert lai.new_epoch() == LeaderAndIsr(1, 5, (1, 2, 3), 0, 9)
    assert lai.with_partition_epoch(10).partition_epoch == 10
    assert LeaderAndIsr.during_delete([1, 2]) == LeaderAndIsr(-2, 0, (1, 2), 0, 0)
    assert lai.leader_opt == 1 and LeaderAndIsr(-1).leader_opt is None
    assert lai.equals_allow_stale_partition_epoch(lai.with_partition_epoch(10))
    assert not lai.with_partition_epoch(10).equals_allow_stale_partition_epoch(lai)
    assert str(lai) == ("LeaderAndIsr(leader=1, leaderEpoch=4, isr=[1,2,3], "
                        "leaderRecoveryState=RECOVERED, partitionEpoch=9)")


def test_replica_assignment_during_a_reassignment():
    # Kafka's {1,2,3} -> {4,5,6}: the full set is target first, then the origin replicas
    moving = ReplicaAssignment([1, 2, 3]).reassign_to([4, 5, 6])
    assert moving == ReplicaAssignment([4, 5, 6, 1, 2, 3], [4, 5, 6], [1, 2, 3])
    assert moving.is_being_reassigned
    assert moving.origin_replicas == (1, 2, 3) and moving.target_replicas == (4, 5, 6)
    overlapping = ReplicaAssignment([1, 2, 3]).reassign_to([3, 4])
    assert overlapping == ReplicaAssignment([3, 4, 1, 2], [4], [1, 2])
    # a new target while one is in progress starts from the original replicas
    assert overlapping.reassign_to([2, 5]) == ReplicaAssignment([2, 5, 3, 1], [5], [3, 1])
    assert moving.remove_replica(1) == ReplicaAssignment([4, 5, 6, 2, 3], [4, 5, 6], [2, 3])
    assert not ReplicaAssignment([1, 2]).is_being_reassigned


def test_printing_as_kafka_prints():
    assert tp_str(("orders", 3)) == "orders-3"
    assert str(PartitionAndReplica(("orders", 3), 2)) == "[Topic=orders,Partition=3,Replica=2]"
    assert str(PartitionState.ONLINE) == "OnlinePartition"
    assert str(ReplicaState.DELETION_INELIGIBLE) == "ReplicaDeletionIneligible"


# -- brokers ----------------------------------------------------------------------------------


def test_shutting_down_brokers_are_registered_but_not_live():
    ctx = make_context(brokers=[1, 2, 3], topics={"a": [[1, 2]]}, shutting_down=[2])
    assert ctx.live_broker_ids == {1, 3}
    assert ctx.live_or_shutting_down_broker_ids == {1, 2, 3}
    assert ctx.is_live_broker(1) and not ctx.is_live_broker(2) and not ctx.is_live_broker(7)
    assert ctx.is_replica_online(1, A0)
    assert not ctx.is_replica_online(2, A0)
    assert ctx.is_replica_online(2, A0, include_shutting_down_brokers=True)
    ctx.replicas_on_offline_dirs[1] = {A0}
    assert not ctx.is_replica_online(1, A0) and ctx.is_replica_online(1, A1)
    ctx.remove_live_brokers([3])
    assert ctx.live_or_shutting_down_broker_ids == {1, 2}
    assert sorted(ctx.live_broker_id_and_epochs) == [1, 2]
    assert [b.id for b in ctx.live_or_shutting_down_brokers] == [1, 2]
    assert ctx.live_or_shutting_down_broker(3) is None


def test_online_and_offline_replicas():
    ctx = make_context(brokers=[1, 2], topics={"a": [[1, 3]], "b": [[2, 1]]}, shutting_down=[2])
    online, offline = ctx.online_and_offline_replicas()
    assert online == {PartitionAndReplica(A0, 1), PartitionAndReplica(B0, 1)}
    assert offline == {PartitionAndReplica(A0, 3), PartitionAndReplica(B0, 2)}


# -- topics -----------------------------------------------------------------------------------


def test_topic_ids_must_agree():
    ctx = make_context(topics={"a": [[1]]})
    ctx.add_topic_id("a", ctx.topic_ids["a"])  # the same again is fine
    with pytest.raises(ValueError, match="did not match existing ID"):
        ctx.add_topic_id("a", uuid.uuid4())
    ctx.all_topics.add("b")
    with pytest.raises(ValueError, match="did not match existing name"):
        ctx.add_topic_id("b", ctx.topic_ids["a"])
    with pytest.raises(ValueError, match="not contained in all topics"):
        ctx.add_topic_id("c", uuid.uuid4())
    assert ctx.topic_name(ctx.topic_ids["a"]) == "a"


def test_partition_queries():
    ctx = make_context(brokers=[1, 2, 3], topics={"a": [[1, 2], [2, 3]], "b": [[3]]})
    assert ctx.all_partitions() == {A0, A1, B0}
    assert ctx.partitions_for_topic("a") == {A0, A1}
    assert ctx.partitions_on_broker(2) == {A0, A1}
    assert ctx.replicas_on_brokers({1, 3}) == {
        PartitionAndReplica(A0, 1), PartitionAndReplica(A1, 3), PartitionAndReplica(B0, 3)}
    assert ctx.replicas_for_topic("b") == {PartitionAndReplica(B0, 3)}
    assert ctx.replicas_for_partition([A1]) == {
        PartitionAndReplica(A1, 2), PartitionAndReplica(A1, 3)}
    assert ctx.partition_replica_assignment_for_topic("a") == {A0: (1, 2), A1: (2, 3)}
    assert ctx.partition_replica_assignment(("a", 9)) == ()
    assert ctx.partition_full_replica_assignment(("zz", 0)) == ReplicaAssignment()


def test_leadership_queries():
    ctx = make_context(brokers=[1, 2], topics={"a": [[1, 2], [3, 1]], "b": [[1]]},
                       shutting_down=[2])
    lead(ctx, A0, 1, [1, 2], leader_epoch=4)
    lead(ctx, A1, 3, [3, 1])
    lead(ctx, B0, 1, [1])
    assert ctx.leader_epoch(A0) == 4 and ctx.leader_epoch(("a", 7)) == -1
    assert ctx.partitions_with_offline_leader() == {A1}
    # single-replica partitions are not counted as movable
    assert ctx.partition_leaders_on_broker(1) == {A0}
    assert ctx.partition_with_leaders_count == 3
    led, followed = ctx.controlled_shutdown_partitions(1)
    assert (led, followed) == ({A0}, {A1})
    ctx.queue_topic_deletion(["a"])
    assert ctx.leader_epoch(A0) == -2
    assert ctx.partitions_with_leaders() == {B0}
    assert ctx.controlled_shutdown_partitions(1) == (set(), set())


def test_partition_and_replica_state_queries():
    ctx = make_context(topics={"a": [[1, 2], [2, 3]]})
    ctx.put_partition_state(A0, PartitionState.ONLINE)
    ctx.put_partition_state(A1, PartitionState.OFFLINE)
    assert ctx.partitions_in_states({PartitionState.OFFLINE}) == {A1}
    assert ctx.partitions_in_states({PartitionState.ONLINE, PartitionState.OFFLINE}, "a") == {
        A0, A1}
    for r in ctx.replicas_for_topic("a"):
        ctx.put_replica_state(r, ReplicaState.OFFLINE)
    ctx.put_replica_state(PartitionAndReplica(A0, 1), ReplicaState.DELETION_STARTED)
    assert ctx.replicas_in_state("a", ReplicaState.DELETION_STARTED) == {
        PartitionAndReplica(A0, 1)}
    assert ctx.is_any_replica_in_state("a", ReplicaState.DELETION_STARTED)
    assert not ctx.are_all_replicas_in_state("a", ReplicaState.OFFLINE)
    ctx.put_replica_state_if_not_exists(PartitionAndReplica(A0, 1), ReplicaState.ONLINE)
    assert ctx.replica_state(PartitionAndReplica(A0, 1)) is ReplicaState.DELETION_STARTED


def test_preferred_replica_imbalance_count():
    ctx = make_context(topics={"a": [[1, 2], [2, 1]], "b": [[1, 2]]})
    lead(ctx, A0, 2, [1, 2])
    lead(ctx, A1, 2, [2, 1])
    lead(ctx, B0, 2, [1, 2])
    assert ctx.preferred_replica_imbalance_count == 2
    lead(ctx, A0, 1, [1, 2])
    assert ctx.preferred_replica_imbalance_count == 1
    # a reassignment adding the preferred replica counts as balanced until it joins the ISR
    ctx.update_partition_full_replica_assignment(A1, ReplicaAssignment([2, 1]).reassign_to([3]))
    assert ctx.preferred_replica_imbalance_count == 1
    lead(ctx, A1, 2, [2, 1, 3])
    assert ctx.preferred_replica_imbalance_count == 2
    ctx.update_partition_full_replica_assignment(A1, ReplicaAssignment([2, 1]))
    assert ctx.preferred_replica_imbalance_count == 1
    ctx.queue_topic_deletion(["b"])
    assert ctx.preferred_replica_imbalance_count == 0
    ctx.remove_topic("b")
    assert ctx.preferred_replica_imbalance_count == 0
    ctx.remove_topic("a")
    assert ctx.all_topics == set() and ctx.partitions_leadership_info == {}
    assert ctx.topic_ids == {} and ctx.topic_names == {}


def test_deletion_eligibility():
    ctx = make_context(topics={"a": [[1]], "b": [[1]]})
    ctx.queue_topic_deletion(["a", "b"])
    ctx.topics_ineligible_for_deletion.add("b")
    assert ctx.is_topic_eligible_for_deletion("a") and not ctx.is_topic_eligible_for_deletion("b")
    ctx.begin_topic_deletion(["a"])
    assert ctx.is_topic_deletion_in_progress("a") and not ctx.is_topic_deletion_in_progress("b")


def test_reset_forgets_everything():
    ctx = make_context(topics={"a": [[1]]}, shutting_down=[1])
    lead(ctx, A0, 1, [1])
    ctx.reset()
    assert (ctx.epoch, ctx.epoch_zk_version) == (0, 0)
    assert ctx.live_or_shutting_down_broker_ids == frozenset()
    assert ctx.shutting_down_broker_ids == set() and ctx.all_partitions() == set()
    assert ctx.partition_leadership_info(A0) is None
