"""The replica state machine's decisions, driven as the controller core drives them: the ZooKeeper
reads and writes are the test's, reported back as their outcomes."""

from __future__ import annotations

import pytest

from pybroker.controller.model import (
    BAD_VERSION,
    LeaderAndIsr,
    PartitionAndReplica,
    ZkError,
)
from pybroker.controller.replica_state_machine import ReplicaState, ReplicaStateMachine
from pybroker.controller.request_batch import RequestBatch
from tests.unit.controller.controller_cluster import (
    CONTROLLER_EPOCH,
    CONTROLLER_ID,
    lead,
    make_context,
    read,
)

R = ReplicaState
P0, P1, P2, P3, P4 = (("orders", p) for p in range(5))


def replicas(broker: int, *partitions):
    return [PartitionAndReplica(tp, broker) for tp in partitions]


def _cluster():
    ctx = make_context(brokers=[1, 3], topics={"orders": [[1, 2, 3]] * 5})
    lead(ctx, P0, 1, [1, 2, 3])
    lead(ctx, P1, 2, [2, 3])
    lead(ctx, P2, 2, [2])
    lead(ctx, P4, 1, [1])  # P3 has no leader yet
    for tp in (P0, P1, P2, P3, P4):
        for r in (1, 2, 3):
            ctx.put_replica_state(PartitionAndReplica(tp, r), R.ONLINE)
    return ctx, ReplicaStateMachine(ctx, CONTROLLER_ID)


def test_a_dead_broker_leaves_every_isr():
    ctx, machine = _cluster()
    batch = RequestBatch(ctx)
    change = machine.handle_state_changes(batch, replicas(2, P0, P1, P2, P3, P4), R.OFFLINE)
    # StopReplica (keep the log) for all of them; P3 has no leader: Offline at once
    assert {tp: s.delete_partition for tp, s in batch.stop_replica[2].items()} == {
        tp: False for tp in (P0, P1, P2, P3, P4)}
    assert ctx.replica_state(PartitionAndReplica(P3, 2)) is R.OFFLINE
    assert change.next_isr_removal() == (2, [P0, P1, P2, P4])
    writes = machine.remove_replica_from_isr(change, {
        P0: read(1, [1, 2, 3], 3, 10), P1: read(2, [2, 3], 5, 20), P2: read(2, [2], 1, 30),
        P4: read(1, [1], 0, 40)})
    assert writes == {
        P0: LeaderAndIsr(1, 4, (1, 3), partition_epoch=10),
        P1: LeaderAndIsr(-1, 6, (3,), partition_epoch=20),  # it led: no leader
        P2: LeaderAndIsr(-1, 2, (2,), partition_epoch=30),  # the ISR is never emptied
    }
    # P4's ISR does not have 2: done with the state as read
    assert ctx.replica_state(PartitionAndReplica(P4, 2)) is R.OFFLINE
    assert ctx.partition_leadership_info(P4) == read(1, [1], 0, 40)
    machine.on_isr_removed(change, {P0: 11, P1: ZkError(BAD_VERSION), P2: 31})
    assert ctx.partition_leadership_info(P0) == read(1, [1, 3], 4, 11)
    assert ctx.replica_state(PartitionAndReplica(P1, 2)) is R.ONLINE
    # the lost compare-and-set is read and decided again
    assert change.next_isr_removal() == (2, [P1])
    writes = machine.remove_replica_from_isr(change, {P1: read(3, [2, 3], 6, 21)})
    assert writes == {P1: LeaderAndIsr(3, 7, (3,), partition_epoch=21)}
    machine.on_isr_removed(change, {P1: 22})
    assert change.next_isr_removal() is None and change.done and change.failed == {}
    assert all(ctx.replica_state(r) is R.OFFLINE for r in replicas(2, P0, P1, P2, P3, P4))
    # the other replicas hear of each new state; 2 itself does not
    assert set(batch.leader_and_isr) == {1, 3}
    assert set(batch.leader_and_isr[1]) == {P0, P1, P2, P4}
    assert batch.leader_and_isr[3][P1].leader == 3
    assert batch.update_metadata_brokers == {1, 3}
    assert set(batch.update_metadata_partitions) == {P0, P1, P2, P4}  # P3: no leader to tell


def test_brokers_leave_isrs_one_at_a_time():
    ctx, machine = _cluster()
    change = machine.handle_state_changes(RequestBatch(ctx), replicas(3, P0) + replicas(1, P0),
                                          R.OFFLINE)
    assert change.next_isr_removal() == (1, [P0])
    writes = machine.remove_replica_from_isr(change, {P0: read(1, [1, 2, 3], 0, 0)})
    assert writes == {P0: LeaderAndIsr(-1, 1, (2, 3), partition_epoch=0)}
    machine.on_isr_removed(change, {P0: 1})
    assert change.next_isr_removal() == (3, [P0])
    # broker 3's removal starts from what broker 1's wrote
    assert machine.remove_replica_from_isr(change, {P0: read(-1, [2, 3], 1, 1)}) == {
        P0: LeaderAndIsr(-1, 2, (2,), partition_epoch=1)}
    with pytest.raises(RuntimeError, match="outcomes of the previous ISR removal"):
        change.next_isr_removal()


def test_isr_removal_failures_keep_the_replica_state():
    ctx, machine = _cluster()
    change = machine.handle_state_changes(RequestBatch(ctx), replicas(2, P0, P1, P2, P4),
                                          R.OFFLINE)
    change.next_isr_removal()
    writes = machine.remove_replica_from_isr(change, {
        P0: None, P1: read(2, [2, 3], 5, 20, controller_epoch=CONTROLLER_EPOCH + 1),
        P2: ZkError("CONNECTIONLOSS"), P4: read(1, [1, 2], 0, 40)})
    machine.on_isr_removed(change, {tp: ZkError("SESSIONEXPIRED") for tp in writes})
    assert change.next_isr_removal() is None
    failed = {r.topic_partition: str(f) for r, f in change.failed.items()}
    assert failed == {
        P0: "Failed to change state of replica 2 for partition orders-0 since the leader and isr "
            "path in zookeeper is empty",
        P1: "Leader and isr path written by another controller. This probably means the current "
            "controller with epoch 5 went through a soft failure and another controller was "
            "elected with epoch 6. Aborting state change by this controller",
        P2: "KeeperErrorCode = CONNECTIONLOSS",
        P4: "KeeperErrorCode = SESSIONEXPIRED",
    }
    assert all(ctx.replica_state(r) is R.ONLINE for r in replicas(2, P0, P1, P2, P4))


def test_a_topic_being_deleted_gets_no_leader_and_isr():
    ctx, machine = _cluster()
    ctx.queue_topic_deletion(["orders"])
    batch = RequestBatch(ctx)
    change = machine.handle_state_changes(batch, replicas(2, P0, P1), R.OFFLINE)
    change.next_isr_removal()
    writes = machine.remove_replica_from_isr(change, {P0: read(1, [1, 2, 3], 3, 10), P1: None})
    machine.on_isr_removed(change, {tp: 11 for tp in writes})
    assert change.failed == {}  # a missing state of a topic being deleted is no failure
    assert ctx.replica_state(PartitionAndReplica(P0, 2)) is R.OFFLINE
    assert ctx.replica_state(PartitionAndReplica(P1, 2)) is R.ONLINE
    assert batch.leader_and_isr == {}
    assert batch.stop_replica[2][P0].leader_epoch == -2


def test_a_new_replica_that_would_lead_is_refused():
    ctx = make_context(topics={"orders": [[1, 2, 3]]})
    lead(ctx, P0, 2, [2])
    machine = ReplicaStateMachine(ctx, CONTROLLER_ID)
    batch = RequestBatch(ctx)
    change = machine.handle_state_changes(batch, replicas(2, P0) + replicas(3, P0), R.NEW)
    assert str(change.failed[PartitionAndReplica(P0, 2)]) == (
        "Replica 2 for partition orders-0 cannot be moved to NewReplica state as it is being "
        "requested to become leader")
    assert ctx.replica_state(PartitionAndReplica(P0, 2)) is R.NON_EXISTENT
    assert ctx.replica_state(PartitionAndReplica(P0, 3)) is R.NEW
    assert set(batch.leader_and_isr) == {3}


def test_a_new_replica_outside_the_assignment_joins_it_when_online():
    ctx = make_context(brokers=[1, 2, 3, 4], topics={"orders": [[1, 2, 3]]})
    machine = ReplicaStateMachine(ctx, CONTROLLER_ID)
    machine.handle_state_changes(RequestBatch(ctx), replicas(4, P0), R.NEW)
    machine.handle_state_changes(RequestBatch(ctx), replicas(4, P0), R.ONLINE)
    assert ctx.partition_replica_assignment(P0) == (1, 2, 3, 4)


def test_start_up_states():
    ctx = make_context(brokers=[1, 3], topics={"orders": [[1, 2], [3, 1]]})
    ctx.replicas_on_offline_dirs[3] = {("orders", 1)}
    machine = ReplicaStateMachine(ctx, CONTROLLER_ID)
    machine.initialize_replica_states()
    assert ctx.replica_states == {
        PartitionAndReplica(P0, 1): R.ONLINE,
        PartitionAndReplica(P0, 2): R.DELETION_INELIGIBLE,
        PartitionAndReplica(P1, 3): R.DELETION_INELIGIBLE,
        PartitionAndReplica(P1, 1): R.ONLINE,
    }
    online, offline = machine.startup_transitions()
    assert online == [PartitionAndReplica(P0, 1), PartitionAndReplica(P1, 1)]
    assert offline == [PartitionAndReplica(P0, 2), PartitionAndReplica(P1, 3)]


def test_deleting_a_replica():
    ctx, machine = _cluster()
    ctx.queue_topic_deletion(["orders"])
    replica = PartitionAndReplica(P0, 3)
    change = machine.handle_state_changes(RequestBatch(ctx), [replica], R.OFFLINE)
    assert change.next_isr_removal() == (3, [P0])
    writes = machine.remove_replica_from_isr(change, {P0: read(1, [1, 2, 3], 3, 10)})
    machine.on_isr_removed(change, {tp: 11 for tp in writes})
    assert change.next_isr_removal() is None
    batch = RequestBatch(ctx)
    change = machine.handle_state_changes(batch, [replica], R.DELETION_STARTED)
    assert change.done and ctx.replica_state(replica) is R.DELETION_STARTED
    assert (batch.stop_replica[3][P0].delete_partition, batch.stop_replica[3][P0].leader_epoch) \
        == (True, -2)
    machine.handle_state_changes(RequestBatch(ctx), [replica], R.DELETION_SUCCESSFUL)
    machine.handle_state_changes(RequestBatch(ctx), [replica], R.NON_EXISTENT)
    assert replica not in ctx.replica_states
    assert ctx.partition_replica_assignment(P0) == (1, 2)
