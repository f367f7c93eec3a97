"""Fetch v13-v17 as the leader answers it, without sockets: requests go through the real
dispatcher and codecs to a broker of tests/unit/cluster/replication_harness. Topics by id (KIP-516):
UNKNOWN_TOPIC_ID after the partitions read, INCONSISTENT_TOPIC_ID for a topic recreated under
another id; the follower's ReplicaState (KIP-903) reaching its follower state; v16's
CurrentLeader and NodeEndpoints (KIP-951), and Produce v10's; records left as file splices at
every version."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.client import ClientConnection
from protocol.errors import ErrorCode
from protocol.framing import FrameDecoder
from protocol.messages import (
    ApiKey,
    fetch_request as freq,
    fetch_response as fresp,
    produce_request as preq,
    produce_response as presp,
)
from protocol.primitives import ZERO_UUID
from protocol.records.record import build_batch
from pybroker.cluster.metadata_cache import BrokerNode, PartitionInfo, PartitionUpdate
from pybroker.log import FileSlice
from pybroker.metadata.model import PartitionRecord
from tests.unit.cluster.replication_harness import T0, TOPIC, TOPIC_ID, Cluster, Node
from tests.unit.network.helpers import LoopbackPeer

OTHER_ID = uuid.UUID("5f1d0c3e-9a4b-4c2d-8e7f-0000000000ff")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    c[1].become(leader=1, epoch=2)
    c[2].become(leader=1, epoch=2)
    for node in c.nodes.values():  # both brokers alive, as UpdateMetadata names them
        node.cache.update_metadata(1, [
            BrokerNode(b, (("PLAINTEXT", "127.0.0.1", 9000 + b),), rack="r1" if b == 1 else None)
            for b in (1, 2)], [PartitionUpdate(TOPIC, TOPIC_ID,
                                               PartitionInfo(0, 1, 2, (1, 2), (1, 2)))])
    batch = build_batch([(None, b"v%d" % i, (), T0) for i in range(3)])
    result, _ = c[1].rm.append_to_leader(TOPIC, 0, batch, required_acks=1, now_ms=T0)
    assert result.error == ErrorCode.NONE
    yield c
    c.close()


def fetch(node: Node, version: int, topics: list[freq.FetchTopic], *, replica_id: int = -1,
          replica_epoch: int = -1) -> tuple[Any, fresp.FetchResponse]:
    """Send a Fetch through ``node``'s dispatcher; the encoded answer and its decoding."""
    request = freq.FetchRequest(max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, topics=topics)
    if version >= 15:
        request.replica_state = freq.ReplicaState(replica_id=replica_id,
                                                  replica_epoch=replica_epoch)
    else:
        request.replica_id = replica_id
    conn = ClientConnection("test")
    _, frame = conn.send_request(ApiKey.FETCH, version, request)
    [raw] = FrameDecoder().feed(frame)
    encoded = node.dispatcher.dispatch(raw, LoopbackPeer())  # type: ignore[arg-type]
    assert not isinstance(encoded, asyncio.Future)
    [(_, response)] = conn.receive_data(encoded.to_bytes())
    assert isinstance(response, fresp.FetchResponse)
    return encoded, response


def by_id(topic_id: uuid.UUID, *partitions: int, offset: int = 0,
          current_leader_epoch: int = -1) -> freq.FetchTopic:
    return freq.FetchTopic(topic_id=topic_id, partitions=[
        freq.FetchPartition(partition=p, fetch_offset=offset, partition_max_bytes=1 << 20,
                            current_leader_epoch=current_leader_epoch) for p in partitions])


def summary(response: fresp.FetchResponse) -> list[tuple[uuid.UUID, int, str]]:
    return [(t.topic_id, p.partition_index, ErrorCode(p.error_code).name)
            for t in response.responses for p in t.partitions]


@pytest.mark.parametrize("version", [13, 14, 15, 16, 17])
def test_a_fetch_by_topic_id_reads_by_sendfile(cluster, version: int) -> None:
    # the follower reads up to the log end (a consumer would stop at the high watermark, 0)
    encoded, response = fetch(cluster[1], version, [by_id(TOPIC_ID, 0)], replica_id=2,
                              replica_epoch=9)
    assert summary(response) == [(TOPIC_ID, 0, "NONE")]
    [topic] = response.responses
    assert topic.topic == ""  # names are not on the wire any more
    [p] = topic.partitions
    assert (p.high_watermark, p.log_start_offset) == (0, 0)
    # the records leave as a splice of the segment file, not a copy
    assert [type(obj) for _, obj in encoded.splices] == [FileSlice]
    assert response.node_endpoints == []


def test_an_unknown_topic_id_is_answered_after_the_partitions_read(cluster) -> None:
    unknown = uuid.UUID("00000000-0000-0000-0000-00000000beef")
    _, response = fetch(cluster[1], 17, [by_id(unknown, 0, 1), by_id(TOPIC_ID, 0),
                                         by_id(ZERO_UUID, 4)])
    assert summary(response) == [(TOPIC_ID, 0, "NONE"), (unknown, 0, "UNKNOWN_TOPIC_ID"),
                                 (unknown, 1, "UNKNOWN_TOPIC_ID"),
                                 (ZERO_UUID, 4, "UNKNOWN_TOPIC_ID")]
    refused = response.responses[1].partitions[0]
    # as Kafka answers a partition refused before reading: no offsets, empty records
    assert (refused.high_watermark, refused.last_stable_offset, refused.log_start_offset,
            refused.aborted_transactions) == (-1, -1, -1, [])
    assert refused.records is not None and len(refused.records) == 0
    assert refused.current_leader == fresp.LeaderIdAndEpoch()


def test_a_topic_recreated_under_another_id_is_inconsistent(cluster) -> None:
    leader = cluster[1]
    # the metadata cache already names the new topic; this broker still hosts the old one
    leader.cache.update_metadata(1, [], [PartitionUpdate(
        TOPIC, OTHER_ID, PartitionInfo(0, 1, 3, (1, 2), (1, 2)))])
    _, response = fetch(leader, 13, [by_id(OTHER_ID, 0)])
    assert summary(response) == [(OTHER_ID, 0, "INCONSISTENT_TOPIC_ID")]
    # by name (v12) there is no id to disagree with
    _, old = fetch(leader, 12, [freq.FetchTopic(topic=TOPIC, partitions=[
        freq.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)])])
    assert old.responses[0].partitions[0].error_code == ErrorCode.NONE


def test_a_followers_replica_state_reaches_its_follower_state(cluster) -> None:
    _, response = fetch(cluster[1], 17, [by_id(TOPIC_ID, 0, offset=3)], replica_id=2,
                        replica_epoch=4242)
    assert summary(response) == [(TOPIC_ID, 0, "NONE")]
    partition = cluster[1].rm.get_partition(TOPIC, 0)
    assert partition is not None
    follower = partition.remote_replicas[2]
    assert (follower.log_end_offset, follower.broker_epoch) == (3, 4242)
    assert partition.high_watermark == 3
    # before v15 the replica id is the request's and the epoch unknown
    fetch(cluster[1], 14, [by_id(TOPIC_ID, 0, offset=3)], replica_id=2)
    assert follower.broker_epoch == -1


@pytest.mark.parametrize("version", [15, 16, 17])
def test_v16_names_the_current_leader_where_the_leader_moved(cluster, version: int) -> None:
    # a consumer at a follower, and at the leader with an old leader epoch
    _, at_follower = fetch(cluster[2], version, [by_id(TOPIC_ID, 0)])
    _, fenced = fetch(cluster[1], version, [by_id(TOPIC_ID, 0, current_leader_epoch=1)])
    [[moved]] = [t.partitions for t in at_follower.responses]
    [[old_epoch]] = [t.partitions for t in fenced.responses]
    assert moved.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert old_epoch.error_code == ErrorCode.FENCED_LEADER_EPOCH
    if version < 16:
        assert moved.current_leader == old_epoch.current_leader == fresp.LeaderIdAndEpoch()
        return
    assert moved.current_leader == old_epoch.current_leader == fresp.LeaderIdAndEpoch(
        leader_id=1, leader_epoch=2, unknown_tagged_fields=None)
    leader = [fresp.NodeEndpoint(node_id=1, host="127.0.0.1", port=9001, rack="r1")]
    assert at_follower.node_endpoints == fenced.node_endpoints == leader


def test_no_node_endpoint_for_a_leader_not_alive(cluster) -> None:
    follower = cluster[2]
    follower.cache.update_metadata(1, [BrokerNode(2, (("PLAINTEXT", "127.0.0.1", 9002),))],
                                   [PartitionUpdate(TOPIC, TOPIC_ID,
                                                    PartitionInfo(0, 1, 2, (1, 2), (1, 2)))])
    _, response = fetch(follower, 16, [by_id(TOPIC_ID, 0)])
    [[p]] = [t.partitions for t in response.responses]
    assert (p.error_code, p.current_leader.leader_id) == (ErrorCode.NOT_LEADER_OR_FOLLOWER, 1)
    assert response.node_endpoints == []


def test_a_follower_fetch_before_update_metadata_reads_by_the_hosted_partitions_id(
        tmp_path: Path) -> None:
    """The controller sends a new topic's LeaderAndIsr before its UpdateMetadata: a follower
    may fetch by an id the leader's metadata cache does not know yet. The leader's own
    partition has that id from LeaderAndIsr, so the follower reads; a consumer gets Kafka's
    UNKNOWN_TOPIC_ID until the metadata cache knows the topic."""
    c = Cluster(tmp_path)
    try:
        leader = c[1]
        leader.rm.become_leader_or_follower(
            TOPIC, [PartitionRecord(0, (1, 2), (1, 2), 1, 0)], T0)
        partition = leader.rm.get_partition(TOPIC, 0)
        assert partition is not None
        partition.topic_id = TOPIC_ID  # from LeaderAndIsr; no UpdateMetadata yet
        assert leader.cache.topic_name(TOPIC_ID) is None
        _, answer = fetch(leader, 17, [by_id(TOPIC_ID, 0)], replica_id=2, replica_epoch=7)
        assert summary(answer) == [(TOPIC_ID, 0, "NONE")]
        _, consumer = fetch(leader, 17, [by_id(TOPIC_ID, 0)])
        assert summary(consumer) == [(TOPIC_ID, 0, "UNKNOWN_TOPIC_ID")]
    finally:
        c.close()


def produce(node: Node, version: int) -> presp.ProduceResponse:
    """Send a one-record Produce (acks=1) through ``node``'s dispatcher."""
    batch = bytes(build_batch([(None, b"x", (), T0)]))
    request = preq.ProduceRequest(acks=1, timeout_ms=1000, topic_data=[preq.TopicProduceData(
        name=TOPIC, partition_data=[preq.PartitionProduceData(index=0, records=batch)])])
    conn = ClientConnection("test")
    _, frame = conn.send_request(ApiKey.PRODUCE, version, request)
    [raw] = FrameDecoder().feed(frame)
    encoded = node.dispatcher.dispatch(raw, LoopbackPeer())  # type: ignore[arg-type]
    assert not isinstance(encoded, asyncio.Future)
    [(_, response)] = conn.receive_data(bytes(encoded))
    assert isinstance(response, presp.ProduceResponse)
    return response


@pytest.mark.parametrize("version", [9, 10, 11])
def test_produce_v10_names_the_current_leader_to_a_producer_at_a_follower(
        cluster, version: int) -> None:
    """KIP-951 for Produce: NOT_LEADER_OR_FOLLOWER from v10 carries the leader and its
    endpoint, so the producer can retry there without a Metadata request first."""
    response = produce(cluster[2], version)
    [[p]] = [t.partition_responses for t in response.responses]
    assert p.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
    if version < 10:
        assert p.current_leader == presp.LeaderIdAndEpoch() and response.node_endpoints == []
        return
    assert (p.current_leader.leader_id, p.current_leader.leader_epoch) == (1, 2)
    assert response.node_endpoints == [
        presp.NodeEndpoint(node_id=1, host="127.0.0.1", port=9001, rack="r1")]
    # at the leader there is nothing to say
    at_leader = produce(cluster[1], version)
    [[ok]] = [t.partition_responses for t in at_leader.responses]
    assert ok.error_code == ErrorCode.NONE and at_leader.node_endpoints == []
    assert ok.current_leader == presp.LeaderIdAndEpoch()
