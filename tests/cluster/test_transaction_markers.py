"""Transaction markers on a replicated partition, with three broker processes on the session's
ZooKeeper: WriteTxnMarkers to the leader answers once the followers have the marker, every
replica ends with the same log and the same ``.txnindex`` bytes, and after a kill -9 of the
leader the new leader answers the same last stable offset and aborted transactions, and takes
the marker of the transaction that was still open. The test plays the transaction
coordinator, so the brokers do not verify the transactions with one
(``transaction.partition.verification.enable=false``; tests/cluster/test_txn_verification.py
has the verification across brokers).

Every broker is stopped by its pid when the test ends (ClusterProcesses.stop).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    fetch_request as freq,
    init_producer_id_request as ipreq,
    produce_request as preq,
    write_txn_markers_request as wreq,
)
from protocol.records.record import build_batch
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.failover import agreed_states
from pybroker.testing.wire_client import WireClient
from tests.cluster.test_replication import create, identical_replicas, running

pytestmark = pytest.mark.timeout(240)

PRODUCE, FETCH, INIT_PRODUCER_ID, WRITE_TXN_MARKERS = 0, 1, 22, 27
READ_COMMITTED = 1


TRANSACTIONAL_ID = "markers-producer"


@pytest.fixture
def cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    yield from running(tmp_path, zk_connect,
                       **{"transaction.partition.verification.enable": "false"})


class Txn:
    """One producer's transactions on one partition, the test playing its coordinator."""

    def __init__(self, cluster: ClusterProcesses, topic: str) -> None:
        self.cluster, self.topic = cluster, topic
        with WireClient(cluster.broker(cluster.live()[0]).bootstrap) as client:
            init = client.call(INIT_PRODUCER_ID, 4, ipreq.InitProducerIdRequest(
                transactional_id=None, transaction_timeout_ms=60_000))
        assert init.error_code == ErrorCode.NONE, init
        self.pid, self.epoch, self.seq = init.producer_id, init.producer_epoch, 0

    def send(self, leader: int, *values: bytes) -> int:
        batch = build_batch([(None, v) for v in values], producer_id=self.pid,
                            producer_epoch=self.epoch, base_sequence=self.seq,
                            is_transactional=True)
        with WireClient(self.cluster.broker(leader).bootstrap) as client:
            answer = client.call(PRODUCE, 9, preq.ProduceRequest(
                transactional_id=TRANSACTIONAL_ID, acks=-1, timeout_ms=15_000,
                topic_data=[preq.TopicProduceData(
                    name=self.topic, partition_data=[preq.PartitionProduceData(
                        index=0, records=bytes(batch))])]))
        [p] = answer.responses[0].partition_responses
        assert p.error_code == ErrorCode.NONE, p
        self.seq += len(values)
        return p.base_offset

    def end(self, leader: int, commit: bool, coordinator_epoch: int = 0) -> ErrorCode:
        with WireClient(self.cluster.broker(leader).bootstrap, timeout=40) as client:
            answer = client.call(WRITE_TXN_MARKERS, 1, wreq.WriteTxnMarkersRequest(markers=[
                wreq.WritableTxnMarker(
                    producer_id=self.pid, producer_epoch=self.epoch, transaction_result=commit,
                    coordinator_epoch=coordinator_epoch,
                    topics=[wreq.WritableTxnMarkerTopic(name=self.topic,
                                                        partition_indexes=[0])])]))
        return ErrorCode(answer.markers[0].topics[0].partitions[0].error_code)


def committed_view(cluster: ClusterProcesses, broker: int, topic: str,
                   ) -> tuple[int, int, list[tuple[int, int]]]:
    """(high watermark, last stable offset, aborted transactions) a read_committed consumer
    gets from ``broker``."""
    with WireClient(cluster.broker(broker).bootstrap) as client:
        answer = client.call(FETCH, 12, freq.FetchRequest(
            max_wait_ms=0, min_bytes=1, isolation_level=READ_COMMITTED,
            topics=[freq.FetchTopic(topic=topic, partitions=[
                freq.FetchPartition(partition=0, fetch_offset=0,
                                    partition_max_bytes=1 << 20)])]))
    [p] = answer.responses[0].partitions
    assert p.error_code == ErrorCode.NONE, p
    return (p.high_watermark, p.last_stable_offset,
            [(t.producer_id, t.first_offset) for t in p.aborted_transactions])


def txn_indexes(cluster: ClusterProcesses, broker: int, topic: str) -> dict[str, bytes]:
    directory = cluster.broker(broker).data_dir / f"{topic}-0"
    return {f.name: f.read_bytes() for f in sorted(directory.glob("*.txnindex"))}


def test_markers_replicate_and_survive_the_leaders_kill(cluster: ClusterProcesses) -> None:
    topic = f"txn-{uuid.uuid4().hex[:8]}"
    states = create(cluster, topic, 1)
    leader = states[0][0]
    a, b = Txn(cluster, topic), Txn(cluster, topic)

    a.send(leader, b"a-1", b"a-2")  # 0-1
    b.send(leader, b"b-1")  # 2
    assert a.end(leader, commit=False) == ErrorCode.NONE  # 3, answered once replicated
    assert b.end(leader, commit=True) == ErrorCode.NONE  # 4
    b.send(leader, b"b-open")  # 5: left open
    expected = (6, 5, [(a.pid, 0)])
    assert committed_view(cluster, leader, topic) == expected

    wait_for(lambda: identical_replicas(cluster, topic, 1), 30, "identical replicas")
    indexes = {broker: txn_indexes(cluster, broker, topic) for broker in cluster.brokers}
    assert len({repr(i) for i in indexes.values()}) == 1, indexes
    assert indexes[leader], "the abort must be indexed"

    cluster.broker(leader).kill()
    new = wait_for(lambda: (s := agreed_states(cluster, topic)) and s[0][0] != leader and s,
                   60, "a new leader")
    new_leader = new[0][0]
    # the new leader's high watermark reaches its log end once the survivors have fetched
    wait_for(lambda: committed_view(cluster, new_leader, topic)[0] == 6, 30,
             "the new leader's high watermark")
    assert committed_view(cluster, new_leader, topic) == expected
    assert b.end(new_leader, commit=True) == ErrorCode.NONE  # 6
    assert committed_view(cluster, new_leader, topic) == (7, 7, [(a.pid, 0)])
