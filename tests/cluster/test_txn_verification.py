"""KIP-890's verification across brokers: a partition's leader asks the transaction coordinator
on another broker (AddPartitionsToTxn v5, verify_only) before a producer's first transactional
batch of a transaction goes into the partition, and follows the coordinator when it moves.

A raw transactional producer (the coordinator's broker for InitProducerId, AddPartitionsToTxn,
AddOffsetsToTxn and EndTxn; the partitions' leaders for Produce; the group's coordinator for
TxnOffsetCommit) skips AddPartitionsToTxn and AddOffsetsToTxn first: nothing is written, and the
answers are Kafka's. Once the partitions are added the same batches are written and committed,
and a read_committed consumer sees exactly them. Then the coordinator's broker is stopped: the
leaders verify with the broker that took ``__transaction_state`` over. A confluent-kafka
transactional producer writing to partitions led by every broker commits as usual.

Three pybroker processes on the session's ZooKeeper, each stopped by its pid when the test ends.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    add_offsets_to_txn_request as aot,
    add_partitions_to_txn_request as apt,
    end_txn_request as et,
    find_coordinator_request as fc,
    init_producer_id_request as ipi,
    list_offsets_request as lreq,
    produce_request as preq,
    txn_offset_commit_request as toc,
)
from protocol.records.record import build_batch
from pybroker.testing.cluster import ClusterProcesses, running_cluster
from pybroker.testing.failover import agreed_states
from pybroker.testing.wire_client import WireClient
from tests.cluster.failover_clients import create_topic, wait_until
from tests.cluster.test_transaction_failover import (
    committed_values,
    describe,
    settled_coordinator,
    wait_for_state,
)

pytestmark = pytest.mark.timeout(300)

E = ErrorCode
SETTINGS = {
    "transaction.state.log.num.partitions": 3,
    "transaction.state.log.replication.factor": 3,
    "transaction.state.log.min.isr": 2,
    "offsets.topic.num.partitions": 3,
}
TIMEOUT = 60.0
TOPIC = "verified"
GROUP = "verified-readers"
NOT_ADDED = "Partition was not added to the transaction"


@pytest.fixture
def cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    with running_cluster(tmp_path / "cluster", zk_connect, overrides=SETTINGS) as c:
        yield c


def call(cluster: ClusterProcesses, broker: int, api_key: int, version: int, body: object,
         ) -> Any:
    with WireClient(cluster.broker(broker).bootstrap, timeout=40) as client:
        return client.call(api_key, version, body)


class RawProducer:
    """One transactional producer's requests, each to the broker Kafka's producer would send
    it to."""

    def __init__(self, cluster: ClusterProcesses, transactional_id: str, coordinator: int,
                 ) -> None:
        self.cluster, self.txn, self.coordinator = cluster, transactional_id, coordinator
        self.seq: dict[int, int] = {}
        self.pid = self.epoch = -1
        self.init()

    def init(self) -> None:
        answers: list[Any] = []

        def granted() -> bool:
            answers.append(call(self.cluster, self.coordinator, ApiKey.INIT_PRODUCER_ID, 4,
                                ipi.InitProducerIdRequest(transactional_id=self.txn,
                                                          transaction_timeout_ms=60_000)))
            return answers[-1].error_code == E.NONE

        wait_until(granted, TIMEOUT, f"a producer id for {self.txn}")
        self.pid, self.epoch = answers[-1].producer_id, answers[-1].producer_epoch
        self.seq.clear()

    def produce(self, leader: int, partition: int, *values: bytes, version: int = 9,
                epoch: int | None = None) -> tuple[ErrorCode, str | None]:
        seq = self.seq.get(partition, 0)
        batch = build_batch([(None, v) for v in values], producer_id=self.pid,
                            producer_epoch=self.epoch if epoch is None else epoch,
                            base_sequence=seq, is_transactional=True)
        answer = call(self.cluster, leader, ApiKey.PRODUCE, version, preq.ProduceRequest(
            transactional_id=self.txn, acks=-1, timeout_ms=15_000,
            topic_data=[preq.TopicProduceData(name=TOPIC, partition_data=[
                preq.PartitionProduceData(index=partition, records=bytes(batch))])]))
        [p] = answer.responses[0].partition_responses
        if p.error_code == E.NONE:
            self.seq[partition] = seq + len(values)
        return ErrorCode(p.error_code), p.error_message

    def add(self, *partitions: int) -> None:
        answer = call(self.cluster, self.coordinator, ApiKey.ADD_PARTITIONS_TO_TXN, 3,
                      apt.AddPartitionsToTxnRequest(
                          v3_and_below_transactional_id=self.txn,
                          v3_and_below_producer_id=self.pid,
                          v3_and_below_producer_epoch=self.epoch,
                          v3_and_below_topics=[apt.AddPartitionsToTxnTopic(
                              name=TOPIC, partitions=list(partitions))]))
        assert [r.partition_error_code for t in answer.results_by_topic_v3_and_below
                for r in t.results_by_partition] == [E.NONE] * len(partitions), answer

    def add_offsets(self) -> None:
        answer = call(self.cluster, self.coordinator, ApiKey.ADD_OFFSETS_TO_TXN, 3,
                      aot.AddOffsetsToTxnRequest(transactional_id=self.txn, producer_id=self.pid,
                                                 producer_epoch=self.epoch, group_id=GROUP))
        assert answer.error_code == E.NONE, answer

    def offsets(self, group_coordinator: int, version: int) -> ErrorCode:
        answer = call(self.cluster, group_coordinator, ApiKey.TXN_OFFSET_COMMIT, version,
                      toc.TxnOffsetCommitRequest(
                          transactional_id=self.txn, group_id=GROUP, producer_id=self.pid,
                          producer_epoch=self.epoch, generation_id=-1, member_id="",
                          topics=[toc.TxnOffsetCommitRequestTopic(name=TOPIC, partitions=[
                              toc.TxnOffsetCommitRequestPartition(partition_index=0,
                                                                  committed_offset=1)])]))
        [error] = [p.error_code for t in answer.topics for p in t.partitions]
        return ErrorCode(error)

    def commit(self) -> None:
        answer = call(self.cluster, self.coordinator, ApiKey.END_TXN, 3, et.EndTxnRequest(
            transactional_id=self.txn, producer_id=self.pid, producer_epoch=self.epoch,
            committed=True))
        assert answer.error_code == E.NONE, answer
        wait_for_state(self.cluster, self.coordinator, self.txn, "CompleteCommit")


def log_end(cluster: ClusterProcesses, leader: int, partition: int) -> int:
    answer = call(cluster, leader, ApiKey.LIST_OFFSETS, 7, lreq.ListOffsetsRequest(
        replica_id=-1, topics=[lreq.ListOffsetsTopic(name=TOPIC, partitions=[
            lreq.ListOffsetsPartition(partition_index=partition, timestamp=-1)])]))
    [p] = answer.topics[0].partitions
    assert p.error_code == E.NONE, p
    return p.offset


def group_coordinator(cluster: ClusterProcesses) -> int:
    found: list[int] = []

    def named() -> bool:
        answer = call(cluster, cluster.live()[0], ApiKey.FIND_COORDINATOR, 3,
                      fc.FindCoordinatorRequest(key=GROUP))
        if answer.error_code == E.NONE:
            found.append(answer.node_id)
        return bool(found)

    wait_until(named, TIMEOUT, f"the coordinator of {GROUP}")
    return found[-1]


def leaders(cluster: ClusterProcesses) -> dict[int, int]:
    states = agreed_states(cluster, TOPIC)
    assert states is not None
    return {p: leader for p, (leader, _, _) in states.items()}


def transactional_id_not_led_by(cluster: ClusterProcesses, led: dict[int, int]) -> tuple[str, int]:
    """A transactional id whose coordinator leads none of the partitions a producer writes
    first (so each verification crosses brokers): the id and its coordinator."""
    for i in range(30):
        txn = f"verified-writer-{i}"
        coordinator = settled_coordinator(cluster, txn)
        if coordinator not in (led[0], led[1]):
            return txn, coordinator
    raise AssertionError(f"every transactional id's coordinator leads partition 0 or 1: {led}")


def test_leaders_verify_with_the_coordinator_on_another_broker(
        cluster: ClusterProcesses) -> None:
    create_topic(cluster, TOPIC, 3)
    led = leaders(cluster)
    assert len(set(led.values())) == 3, led
    txn, coordinator = transactional_id_not_led_by(cluster, led)
    p = RawProducer(cluster, txn, coordinator)

    # AddPartitionsToTxn skipped: the leaders' verification finds the partitions not added
    assert p.produce(led[0], 0, b"early", version=9) == (E.INVALID_TXN_STATE, NOT_ADDED)
    assert p.produce(led[1], 1, b"early", version=11) == (E.TRANSACTION_ABORTABLE, None)
    assert (log_end(cluster, led[0], 0), log_end(cluster, led[1], 1)) == (0, 0)
    # AddOffsetsToTxn skipped: the group's partition is not in the transaction either
    offsets_at = group_coordinator(cluster)
    assert p.offsets(offsets_at, 3) == E.INVALID_TXN_STATE
    assert p.offsets(offsets_at, 4) == E.TRANSACTION_ABORTABLE

    p.add(0, 1)
    # a zombie's epoch: the coordinator fences it (PRODUCER_FENCED, answered as a leader does)
    assert p.produce(led[0], 0, b"zombie", epoch=p.epoch - 1) == (E.INVALID_PRODUCER_EPOCH,
                                                                   None)
    assert p.produce(led[0], 0, b"a0", b"a1") == (E.NONE, None)
    assert p.produce(led[1], 1, b"b0", version=11) == (E.NONE, None)
    assert p.produce(led[0], 0, b"a2") == (E.NONE, None)  # open: not verified again
    p.add_offsets()
    assert p.offsets(offsets_at, 3) == E.NONE
    p.commit()
    # the next transaction is verified afresh
    assert p.produce(led[0], 0, b"late") == (E.INVALID_TXN_STATE, NOT_ADDED)
    got = committed_values(cluster.bootstrap, TOPIC, 3)
    assert got == {0: [b"a0", b"a1", b"a2"], 1: [b"b0"], 2: []}, got

    # the coordinator's broker leaves: the leaders verify with its successor
    survivors = [b for b in cluster.live() if b != coordinator]
    cluster.broker(coordinator).stop()
    successor = settled_coordinator(cluster, txn, not_=coordinator)
    assert successor in survivors
    led = leaders(cluster)
    p.coordinator = successor
    p.init()
    partition = next(q for q, leader in led.items() if leader != successor)
    assert p.produce(led[partition], partition, b"c0") == (E.INVALID_TXN_STATE, NOT_ADDED)
    p.add(partition)
    assert p.produce(led[partition], partition, b"c0") == (E.NONE, None)
    p.commit()
    assert describe(cluster, successor, txn).producer_epoch == p.epoch


def test_a_client_commits_across_brokers_with_verification(cluster: ClusterProcesses) -> None:
    create_topic(cluster, TOPIC, 3)
    led = leaders(cluster)
    assert len(set(led.values())) == 3, led
    txn = "verified-client"
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": txn,
                         "linger.ms": 5})
    producer.init_transactions(60)
    for round_ in range(3):
        producer.begin_transaction()
        for i in range(30):
            producer.produce(TOPIC, value=f"{round_}-{i}".encode(), partition=i % 3)
        producer.commit_transaction(60)
    producer.flush(10)
    deadline = time.monotonic() + TIMEOUT
    got = committed_values(cluster.bootstrap, TOPIC, 3)
    while sum(map(len, got.values())) < 90 and time.monotonic() < deadline:
        got = committed_values(cluster.bootstrap, TOPIC, 3)
    for p in range(3):
        assert got[p] == [f"{r}-{i}".encode() for r in range(3) for i in range(p, 30, 3)], got
