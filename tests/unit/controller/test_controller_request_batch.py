"""The controller's request batch: what it collects, and the LeaderAndIsr v7, UpdateMetadata v8
and StopReplica v4 requests it builds, encoded and decoded by the generated codecs."""

from __future__ import annotations

import pytest

from protocol.messages import ApiKey, request_module
from protocol.primitives import ZERO_UUID
from pybroker.controller.model import (
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    LeaderRecoveryState,
    ReplicaAssignment,
)
from pybroker.controller.request_batch import (
    BrokerEndpointNotAvailable,
    RequestBatch,
)
from tests.unit.controller.controller_cluster import (
    CONTROLLER_EPOCH,
    CONTROLLER_ID,
    broker_epoch,
    lead,
    make_context,
    topic_id,
)

A0, A1, B0 = ("a", 0), ("a", 1), ("b", 0)


def _context():
    ctx = make_context(brokers=[1, 2, 3, 4], topics={"a": [[1, 2, 3], [2, 3, 4]], "b": [[3, 4]]},
                       shutting_down=[4])
    return ctx


def test_versions_are_kafka_3_9s():
    ctx = _context()
    batch = RequestBatch(ctx)
    info = lead(ctx, A0, 1, [1, 2, 3])
    batch.add_leader_and_isr([2], A0, info, ctx.partition_full_replica_assignment(A0), False)
    batch.add_stop_replica([3], A1, delete_partition=False)
    versions = {(r.api_key, r.version) for r in batch.requests(CONTROLLER_ID, 5, "PLAINTEXT")}
    assert versions == {(ApiKey.LEADER_AND_ISR, 7), (ApiKey.UPDATE_METADATA, 8),
                        (ApiKey.STOP_REPLICA, 4)}


def test_a_leader_and_isr_also_goes_into_every_registered_brokers_update_metadata():
    ctx = _context()
    batch = RequestBatch(ctx)
    info = lead(ctx, A0, 1, [1, 2, 3], leader_epoch=3, partition_epoch=9)
    batch.add_leader_and_isr([1, 2, 3], A0, info, ctx.partition_full_replica_assignment(A0),
                             is_new=False)
    assert set(batch.leader_and_isr) == {1, 2, 3}
    assert batch.update_metadata_brokers == {1, 2, 3, 4}  # the shutting-down broker too
    assert set(batch.update_metadata_partitions) == {A0}


def test_is_new_and_delete_stay_set_and_the_latest_state_wins():
    ctx = _context()
    batch = RequestBatch(ctx)
    assignment = ctx.partition_full_replica_assignment(A0)
    batch.add_leader_and_isr([2], A0, lead(ctx, A0, 1, [1, 2, 3]), assignment, is_new=True)
    batch.add_leader_and_isr([2], A0, lead(ctx, A0, 2, [2, 3], leader_epoch=1), assignment,
                             is_new=False)
    state = batch.leader_and_isr[2][A0]
    assert (state.leader, state.leader_epoch, state.isr, state.is_new) == (2, 1, [2, 3], True)
    batch.add_stop_replica([3], A1, delete_partition=True)
    batch.add_stop_replica([3], A1, delete_partition=False)
    assert batch.stop_replica[3][A1].delete_partition is True
    batch.add_stop_replica([-1], A1, delete_partition=False)  # no leader: nobody
    assert set(batch.stop_replica) == {3}


def test_update_metadata_content():
    ctx = _context()
    ctx.remove_live_brokers([3])
    batch = RequestBatch(ctx)
    lead(ctx, A1, 2, [2, 4], leader_epoch=4, partition_epoch=6)
    lead(ctx, B0, 4, [4], leader_epoch=2, partition_epoch=3)
    ctx.queue_topic_deletion(["b"])
    batch.add_update_metadata([1], [A0, A1, B0])  # A0 has no leader yet: left out
    assert set(batch.update_metadata_partitions) == {A1, B0}
    a1 = batch.update_metadata_partitions[A1]
    # 3 is dead and 4 is shutting down: both count as offline replicas
    assert (a1.leader, a1.leader_epoch, a1.isr, a1.zk_version, a1.offline_replicas) == (
        2, 4, (2, 4), 6, (3, 4))
    b0 = batch.update_metadata_partitions[B0]
    assert (b0.leader, b0.leader_epoch, b0.isr, b0.zk_version) == (-2, 0, (4,), 0)


def test_stop_replica_leader_epochs():
    ctx = _context()
    lead(ctx, A0, 1, [1, 2, 3], leader_epoch=6)
    ctx.queue_topic_deletion(["b"])
    lead(ctx, B0, 3, [3, 4], leader_epoch=2)
    batch = RequestBatch(ctx)
    batch.add_stop_replica([2], A0, delete_partition=False)
    batch.add_stop_replica([2], A1, delete_partition=False)
    batch.add_stop_replica([3], B0, delete_partition=True)
    assert batch.stop_replica[2][A0].leader_epoch == 6
    assert batch.stop_replica[2][A1].leader_epoch == -1  # no leader
    assert batch.stop_replica[3][B0].leader_epoch == -2  # being deleted


def _full_batch():
    ctx = _context()
    batch = RequestBatch(ctx)
    a0 = lead(ctx, A0, 1, [1, 2, 3], leader_epoch=3, partition_epoch=9)
    batch.add_leader_and_isr([1, 2, 3], A0, a0, ctx.partition_full_replica_assignment(A0),
                             is_new=False)
    reassigning = ReplicaAssignment([2, 3, 4]).reassign_to([3, 1])
    ctx.update_partition_full_replica_assignment(A1, reassigning)
    a1 = LeaderIsrAndControllerEpoch(
        LeaderAndIsr(3, 8, (3,), LeaderRecoveryState.RECOVERING, 11), CONTROLLER_EPOCH - 1)
    ctx.put_partition_leadership_info(A1, a1)
    batch.add_leader_and_isr([3, 1, 9], A1, a1, reassigning, is_new=True)  # 9: not registered
    batch.add_stop_replica([2], B0, delete_partition=True)
    batch.add_stop_replica([2, 9], A1, delete_partition=False)
    return ctx, batch


def test_requests_go_in_kafkas_order_to_registered_brokers_with_their_epochs():
    ctx, batch = _full_batch()
    requests = batch.requests(CONTROLLER_ID, CONTROLLER_EPOCH, "PLAINTEXT")
    assert [(r.api_key, r.broker_id) for r in requests] == [
        (ApiKey.LEADER_AND_ISR, 1), (ApiKey.LEADER_AND_ISR, 2), (ApiKey.LEADER_AND_ISR, 3),
        (ApiKey.UPDATE_METADATA, 1), (ApiKey.UPDATE_METADATA, 2), (ApiKey.UPDATE_METADATA, 3),
        (ApiKey.UPDATE_METADATA, 4),
        (ApiKey.STOP_REPLICA, 2)]
    for r in requests:
        body = r.request
        assert (body.controller_id, body.controller_epoch, body.broker_epoch,
                body.is_kraft_controller) == (CONTROLLER_ID, CONTROLLER_EPOCH,
                                              broker_epoch(r.broker_id), False)


def test_leader_and_isr_request_fields():
    ctx, batch = _full_batch()
    requests = batch.requests(CONTROLLER_ID, CONTROLLER_EPOCH, "PLAINTEXT")
    (to_1,) = [r.request for r in requests if r.api_key is ApiKey.LEADER_AND_ISR
               and r.broker_id == 1]
    (topic,) = to_1.topic_states
    assert (topic.topic_name, topic.topic_id) == ("a", topic_id("a"))
    p0, p1 = topic.partition_states
    assert (p0.partition_index, p0.controller_epoch, p0.leader, p0.leader_epoch, p0.isr,
            p0.partition_epoch, p0.replicas, p0.adding_replicas, p0.removing_replicas,
            p0.is_new, p0.leader_recovery_state) == (
        0, CONTROLLER_EPOCH, 1, 3, [1, 2, 3], 9, [1, 2, 3], [], [], False, 0)
    assert (p1.partition_index, p1.controller_epoch, p1.leader, p1.leader_epoch, p1.isr,
            p1.partition_epoch, p1.replicas, p1.adding_replicas, p1.removing_replicas,
            p1.is_new, p1.leader_recovery_state) == (
        1, CONTROLLER_EPOCH - 1, 3, 8, [3], 11, [3, 1, 2, 4], [1], [2, 4], True, 1)
    # the endpoints of the leaders named, on the inter-broker listener
    assert [(lead.broker_id, lead.host_name, lead.port) for lead in to_1.live_leaders] == [
        (1, "127.0.0.1", 9091), (3, "127.0.0.1", 9093)]
    other = batch.requests(CONTROLLER_ID, CONTROLLER_EPOCH, "CONTROLLER_LINK")[0].request
    assert [lead.port for lead in other.live_leaders] == [9191, 9193]
    with pytest.raises(BrokerEndpointNotAvailable):
        batch.requests(CONTROLLER_ID, CONTROLLER_EPOCH, "EXTERNAL")


def test_update_metadata_request_fields():
    ctx, batch = _full_batch()
    ctx.all_topics.add("c")
    (um,) = [r.request for r in batch.requests(CONTROLLER_ID, CONTROLLER_EPOCH, "PLAINTEXT")
             if r.api_key is ApiKey.UPDATE_METADATA and r.broker_id == 4]
    assert [b.id for b in um.live_brokers] == [1, 2, 3, 4]  # shutting-down 4 included
    endpoints = um.live_brokers[0].endpoints
    assert [(e.listener, e.host, e.port, e.security_protocol) for e in endpoints] == [
        ("PLAINTEXT", "127.0.0.1", 9091, 0), ("CONTROLLER_LINK", "127.0.0.1", 9191, 3)]
    assert um.live_brokers[0].rack is None
    (topic,) = um.topic_states
    assert topic.topic_id == topic_id("a")
    assert [(p.partition_index, p.leader, p.offline_replicas) for p in topic.partition_states] == [
        (0, 1, []), (1, 3, [4])]


def test_stop_replica_request_fields():
    ctx, batch = _full_batch()
    (sr,) = [r.request for r in batch.requests(CONTROLLER_ID, CONTROLLER_EPOCH, "PLAINTEXT")
             if r.api_key is ApiKey.STOP_REPLICA]
    assert sr.delete_partitions is False
    assert [(t.topic_name, [(p.partition_index, p.leader_epoch, p.delete_partition)
                            for p in t.partition_states]) for t in sr.topic_states] == [
        ("a", [(1, 8, False)]), ("b", [(0, -1, True)])]


def test_a_topic_without_an_id_goes_with_the_zero_uuid():
    ctx = make_context(brokers=[1], topics={"a": [[1]]})
    ctx.topic_ids.clear()
    batch = RequestBatch(ctx)
    info = lead(ctx, A0, 1, [1])
    batch.add_leader_and_isr([1], A0, info, ctx.partition_full_replica_assignment(A0), True)
    lai, um = batch.requests(CONTROLLER_ID, CONTROLLER_EPOCH, "PLAINTEXT")
    assert lai.request.topic_states[0].topic_id == ZERO_UUID
    assert um.request.topic_states[0].topic_id == ZERO_UUID


def test_broker_list_only_update_metadata():
    ctx = _context()
    batch = RequestBatch(ctx)
    assert batch.is_empty() and batch.requests(CONTROLLER_ID, 5, "PLAINTEXT") == []
    batch.add_update_metadata([2])
    (um,) = batch.requests(CONTROLLER_ID, 5, "PLAINTEXT")
    assert um.broker_id == 2 and um.request.topic_states == []
    assert len(um.request.live_brokers) == 4


def test_requests_encode_and_decode_at_their_versions():
    ctx, batch = _full_batch()
    requests = batch.requests(CONTROLLER_ID, CONTROLLER_EPOCH, "PLAINTEXT")
    assert len({r.api_key for r in requests}) == 3
    for r in requests:
        codec = request_module(r.api_key)
        data = codec.encode(r.request, r.version)
        assert codec.decode(data, r.version) == r.request
        assert codec.encode(codec.decode(data, r.version), r.version) == data
