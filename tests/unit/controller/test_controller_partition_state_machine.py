"""The partition state machine's decisions, driven as the controller core drives them: the ZooKeeper
reads and writes are the test's, reported back as their outcomes."""

from __future__ import annotations

import pytest

from pybroker.controller.election import OFFLINE, PREFERRED_REPLICA
from pybroker.controller.model import (
    BAD_VERSION,
    NO_NODE,
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    LeaderRecoveryState,
    ZkError,
)
from pybroker.controller.partition_state_machine import PartitionState, PartitionStateMachine
from pybroker.controller.request_batch import RequestBatch
from tests.unit.controller.controller_cluster import (
    CONTROLLER_EPOCH,
    CONTROLLER_ID,
    lead,
    make_context,
    read,
)

P = PartitionState
T0, T1 = ("orders", 0), ("orders", 1)


def test_new_partitions_get_their_first_leader_and_isr():
    ctx = make_context(brokers=[1, 2], topics={"orders": [[1, 2, 3], [3, 2, 1]]})
    machine = PartitionStateMachine(ctx, CONTROLLER_ID)
    batch = RequestBatch(ctx)
    machine.handle_state_changes(batch, [T0, T1], P.NEW)
    change = machine.handle_state_changes(batch, [T0, T1], P.ONLINE, OFFLINE)
    # first live replica in assignment order; every live replica in the ISR; epochs 0
    assert change.to_create == {
        T0: LeaderIsrAndControllerEpoch(LeaderAndIsr(1, 0, (1, 2)), CONTROLLER_EPOCH),
        T1: LeaderIsrAndControllerEpoch(LeaderAndIsr(2, 0, (2, 1)), CONTROLLER_EPOCH)}
    assert change.to_elect == [] and not change.done
    machine.on_created(change, {T0: 0, T1: ZkError("NODEEXISTS")})
    assert change.done
    assert ctx.partition_state(T0) is P.ONLINE and ctx.partition_state(T1) is P.NEW
    assert change.succeeded == {T0: LeaderAndIsr(1, 0, (1, 2))}
    assert change.failed[T1].zk_error == ZkError("NODEEXISTS")
    assert ctx.partition_leadership_info(T0) == read(1, [1, 2], 0, 0)
    # the ISR hears of it as new; every registered broker gets UpdateMetadata
    assert {b: [s.is_new for s in parts.values()] for b, parts in batch.leader_and_isr.items()} \
        == {1: [True], 2: [True]}
    assert batch.update_metadata_brokers == {1, 2} and set(batch.update_metadata_partitions) == {T0}


def test_a_new_partition_with_no_live_replica_stays_new():
    ctx = make_context(brokers=[4], topics={"orders": [[1, 2, 3]]})
    machine = PartitionStateMachine(ctx, CONTROLLER_ID)
    batch = RequestBatch(ctx)
    machine.handle_state_changes(batch, [T0], P.NEW)
    change = machine.handle_state_changes(batch, [T0], P.ONLINE, OFFLINE)
    assert change.done and change.to_create == {}
    assert str(change.failed[T0]) == (
        "Controller 1 epoch 5 encountered error during state change of partition orders-0 from "
        "New to Online, assigned replicas are [1,2,3], live brokers are [4]. No assigned replica "
        "is alive.")
    assert ctx.partition_state(T0) is P.NEW and batch.is_empty()


def _offline(brokers=(2, 3)):
    ctx = make_context(brokers=brokers, topics={"orders": [[1, 2, 3]]})
    lead(ctx, T0, 1, [1, 2, 3], leader_epoch=3, partition_epoch=4)
    ctx.put_partition_state(T0, P.OFFLINE)
    return ctx, PartitionStateMachine(ctx, CONTROLLER_ID)


def test_an_election_retries_after_losing_a_compare_and_set():
    ctx, machine = _offline()
    assert ctx.offline_partition_count == 1
    batch = RequestBatch(ctx)
    change = machine.handle_state_changes(batch, [T0], P.ONLINE, OFFLINE)
    assert change.to_elect == [T0]
    writes = machine.elect(change, {T0: read(1, [1, 2, 3], 3, 4)})
    assert writes == {T0: LeaderAndIsr(2, 4, (2, 3), partition_epoch=4)}
    machine.on_elected(change, {T0: ZkError(BAD_VERSION)})
    # the leader's AlterPartition shrank the ISR meanwhile: read again, elect again
    assert change.to_elect == [T0] and not change.done and batch.is_empty()
    writes = machine.elect(change, {T0: read(1, [1, 2], 3, 5)})
    assert writes == {T0: LeaderAndIsr(2, 4, (2,), partition_epoch=5)}
    machine.on_elected(change, {T0: 6})
    assert change.done and change.failed == {}
    assert change.succeeded == {T0: LeaderAndIsr(2, 4, (2,), partition_epoch=6)}
    assert ctx.partition_state(T0) is P.ONLINE and ctx.offline_partition_count == 0
    assert ctx.partition_leadership_info(T0) == read(2, [2], 4, 6)
    # LeaderAndIsr to the live replicas; the dead broker 1 gets nothing
    assert set(batch.leader_and_isr) == {2, 3}
    state = batch.leader_and_isr[2][T0]
    assert (state.leader, state.leader_epoch, state.isr, state.partition_epoch, state.is_new) == (
        2, 4, [2], 6, False)
    assert batch.update_metadata_brokers == {2, 3}


def test_an_election_that_finds_no_leader_leaves_the_partition_offline():
    ctx, machine = _offline(brokers=(3,))
    change = machine.handle_state_changes(RequestBatch(ctx), [T0], P.ONLINE, OFFLINE)
    states = {T0: read(1, [1, 2], 3, 4)}
    assert machine.unclean_config_topics(change, states) == {"orders"}
    assert machine.elect(change, states, {"orders": False}) == {}
    assert change.done and ctx.partition_state(T0) is P.OFFLINE
    failure = change.failed[T0]
    assert failure.zk_error is None
    assert str(failure) == ("Failed to elect leader for partition orders-0 under strategy "
                            "OfflinePartitionLeaderElectionStrategy(false)")


def test_unclean_election_when_the_topic_allows_it():
    ctx, machine = _offline(brokers=(3,))
    change = machine.handle_state_changes(RequestBatch(ctx), [T0], P.ONLINE, OFFLINE)
    writes = machine.elect(change, {T0: read(1, [1, 2], 3, 4)}, {"orders": True})
    assert writes == {T0: LeaderAndIsr(3, 4, (3,), LeaderRecoveryState.RECOVERING, 4)}
    machine.on_elected(change, {T0: 5})
    assert ctx.partition_leadership_info(T0).leader_and_isr.leader_recovery_state is \
        LeaderRecoveryState.RECOVERING


@pytest.mark.parametrize(("state", "message", "zk"), [
    (None, "LeaderAndIsr information doesn't exist for partition orders-0 in OfflinePartition "
           "state", None),
    (ZkError(NO_NODE), "LeaderAndIsr information doesn't exist for partition orders-0 in "
                       "OfflinePartition state", None),
    (read(1, [1, 2, 3], 3, 4, controller_epoch=CONTROLLER_EPOCH + 1),
     "Aborted leader election for partition orders-0 since the LeaderAndIsr path was already "
     "written by another controller. This probably means that the current controller 1 went "
     "through a soft failure and another controller was elected with epoch 6.", None),
    (ZkError("CONNECTIONLOSS"), "KeeperErrorCode = CONNECTIONLOSS", ZkError("CONNECTIONLOSS")),
])
def test_reads_that_stop_an_election(state, message, zk):
    ctx, machine = _offline()
    change = machine.handle_state_changes(RequestBatch(ctx), [T0], P.ONLINE, OFFLINE)
    assert machine.elect(change, {T0: state}) == {}
    assert change.done and ctx.partition_state(T0) is P.OFFLINE
    assert str(change.failed[T0]) == message and change.failed[T0].zk_error == zk


def test_a_failed_write_other_than_bad_version_is_a_failure():
    ctx, machine = _offline()
    change = machine.handle_state_changes(RequestBatch(ctx), [T0], P.ONLINE, OFFLINE)
    machine.elect(change, {T0: read(1, [1, 2, 3], 3, 4)})
    machine.on_elected(change, {T0: ZkError("CONNECTIONLOSS")})
    assert change.done and change.failed[T0].zk_error == ZkError("CONNECTIONLOSS")
    assert ctx.partition_state(T0) is P.OFFLINE


def test_outcomes_must_cover_every_partition():
    ctx, machine = _offline()
    change = machine.handle_state_changes(RequestBatch(ctx), [T0], P.ONLINE, OFFLINE)
    with pytest.raises(ValueError, match="no state read for orders-0"):
        machine.elect(change, {})
    machine.elect(change, {T0: read(1, [1, 2, 3], 3, 4)})
    with pytest.raises(ValueError, match="no write outcome for orders-0"):
        machine.on_elected(change, {})


def test_preferred_election_tells_every_replica():
    ctx = make_context(topics={"orders": [[1, 2, 3]]})
    lead(ctx, T0, 2, [1, 2, 3], leader_epoch=3, partition_epoch=4)
    ctx.put_partition_state(T0, P.ONLINE)
    assert ctx.preferred_replica_imbalance_count == 1
    machine = PartitionStateMachine(ctx, CONTROLLER_ID)
    batch = RequestBatch(ctx)
    change = machine.handle_state_changes(batch, [T0], P.ONLINE, PREFERRED_REPLICA)
    writes = machine.elect(change, {T0: read(2, [1, 2, 3], 3, 4)})
    assert writes == {T0: LeaderAndIsr(1, 4, (1, 2, 3), partition_epoch=4)}
    machine.on_elected(change, {T0: 5})
    assert set(batch.leader_and_isr) == {1, 2, 3}
    assert ctx.preferred_replica_imbalance_count == 0


def test_start_up_states_and_the_partitions_to_bring_online():
    ctx = make_context(brokers=[1, 2], topics={"orders": [[1, 2], [3, 1], [2, 1]],
                                               "gone": [[3]]})
    lead(ctx, T0, 1, [1, 2])
    lead(ctx, T1, 3, [3, 1])  # its leader is dead
    lead(ctx, ("gone", 0), 3, [3])
    machine = PartitionStateMachine(ctx, CONTROLLER_ID)
    machine.initialize_partition_states()
    assert ctx.partition_states == {T0: P.ONLINE, T1: P.OFFLINE, ("orders", 2): P.NEW,
                                    ("gone", 0): P.OFFLINE}
    assert ctx.offline_partition_count == 2
    ctx.queue_topic_deletion(["gone"])
    assert machine.partitions_to_trigger_online() == [T1, ("orders", 2)]
    assert machine.partitions_to_trigger_online("gone") == []


def test_offline_partitions_of_a_topic_being_deleted_are_not_counted():
    ctx = make_context(topics={"orders": [[1]]})
    machine = PartitionStateMachine(ctx, CONTROLLER_ID)
    batch = RequestBatch(ctx)
    machine.handle_state_changes(batch, [T0], P.NEW)
    machine.handle_state_changes(batch, [T0], P.OFFLINE)
    assert ctx.offline_partition_count == 1
    machine.handle_state_changes(batch, [T0], P.NON_EXISTENT)
    assert ctx.offline_partition_count == 0
    ctx.begin_topic_deletion(["orders"])
    ctx.partition_states.clear()
    machine.handle_state_changes(batch, [T0], P.NEW)
    machine.handle_state_changes(batch, [T0], P.OFFLINE)
    assert ctx.offline_partition_count == 0
