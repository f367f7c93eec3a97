"""Transactions in the log of a broker process, written the way a transaction coordinator
writes them: a producer's transactional batches (raw Produce, after InitProducerId) ended by
WriteTxnMarkers COMMIT or ABORT, then read by a real confluent-kafka consumer.

A read_committed consumer sees exactly the committed records, a read_uncommitted one all of
them; the last stable offset stops at an open transaction, and a kill -9 of the broker keeps the
last stable offset, the aborted transactions and the open transaction, which can still be
committed after the restart. (Transactional clients need the transaction coordinator; the
end-to-end client tests are in its own module.) As the test plays the coordinator, its broker
does not verify the transactions with one (``transaction.partition.verification.enable=false``);
the Produce requests still name a transactional id, which transactional records need.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition

from protocol.errors import ErrorCode
from protocol.messages import (
    describe_producers_request as dpreq,
    fetch_request as freq,
    init_producer_id_request as ipreq,
    list_offsets_request as loreq,
    produce_request as preq,
    write_txn_markers_request as wreq,
)
from protocol.records.record import build_batch
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

from .confluent_kafka.helpers import create_topic

pytestmark = [pytest.mark.compat, pytest.mark.timeout(180)]

PRODUCE, FETCH, LIST_OFFSETS, INIT_PRODUCER_ID = 0, 1, 2, 22
WRITE_TXN_MARKERS, DESCRIBE_PRODUCERS = 27, 61
READ_UNCOMMITTED, READ_COMMITTED = 0, 1
TOPIC = "txn-log"
TRANSACTIONAL_ID = "txn-log-producer"


@dataclass
class TxnProducer:
    """A producer writing transactions over a raw connection; the test plays its
    coordinator, ending each transaction with WriteTxnMarkers."""

    client: WireClient
    producer_id: int = -1
    epoch: int = -1
    seq: int = 0
    coordinator_epoch: int = 3
    sent: list[bytes] = field(default_factory=list)

    def init(self) -> None:
        answer = self.client.call(INIT_PRODUCER_ID, 4, ipreq.InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60_000))
        assert answer.error_code == ErrorCode.NONE
        self.producer_id, self.epoch = answer.producer_id, answer.producer_epoch

    def send(self, *values: bytes, transactional: bool = True) -> int:
        batch = build_batch([(None, v) for v in values], producer_id=self.producer_id,
                            producer_epoch=self.epoch, base_sequence=self.seq,
                            is_transactional=transactional)
        answer = self.client.call(PRODUCE, 9, preq.ProduceRequest(
            transactional_id=TRANSACTIONAL_ID, acks=-1, timeout_ms=10_000,
            topic_data=[preq.TopicProduceData(
                name=TOPIC, partition_data=[preq.PartitionProduceData(index=0,
                                                                      records=bytes(batch))])]))
        [p] = answer.responses[0].partition_responses
        assert p.error_code == ErrorCode.NONE, p
        self.seq += len(values)
        return p.base_offset

    def end(self, commit: bool) -> ErrorCode:
        answer = self.client.call(WRITE_TXN_MARKERS, 1, wreq.WriteTxnMarkersRequest(markers=[
            wreq.WritableTxnMarker(
                producer_id=self.producer_id, producer_epoch=self.epoch,
                transaction_result=commit, coordinator_epoch=self.coordinator_epoch,
                topics=[wreq.WritableTxnMarkerTopic(name=TOPIC, partition_indexes=[0])])]))
        return ErrorCode(answer.markers[0].topics[0].partitions[0].error_code)


@pytest.fixture
def broker(broker_factory) -> Iterator[BrokerProcess]:
    b = broker_factory(**{"transaction.partition.verification.enable": "false"})
    create_topic(b.bootstrap, TOPIC, 1)
    yield b


def raw_fetch(client: WireClient, isolation: int, offset: int = 0):
    answer = client.call(FETCH, 12, freq.FetchRequest(
        max_wait_ms=0, min_bytes=1, isolation_level=isolation,
        topics=[freq.FetchTopic(topic=TOPIC, partitions=[
            freq.FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)])]))
    [p] = answer.responses[0].partitions
    assert p.error_code == ErrorCode.NONE
    return p


def latest(client: WireClient, isolation: int) -> int:
    answer = client.call(LIST_OFFSETS, 5, loreq.ListOffsetsRequest(
        replica_id=-1, isolation_level=isolation, topics=[loreq.ListOffsetsTopic(
            name=TOPIC, partitions=[loreq.ListOffsetsPartition(partition_index=0,
                                                              timestamp=-1)])]))
    [p] = answer.topics[0].partitions
    assert p.error_code == ErrorCode.NONE
    return p.offset


def producers(client: WireClient) -> dict[int, tuple[int, int]]:
    """producer id -> (coordinator epoch, current transaction start offset)."""
    answer = client.call(DESCRIBE_PRODUCERS, 0, dpreq.DescribeProducersRequest(
        topics=[dpreq.TopicRequest(name=TOPIC, partition_indexes=[0])]))
    [p] = answer.topics[0].partitions
    assert p.error_code == ErrorCode.NONE
    return {s.producer_id: (s.coordinator_epoch, s.current_txn_start_offset)
            for s in p.active_producers}


def consume(bootstrap: str, isolation: str, end: int, timeout: float = 30.0) -> list[bytes]:
    """The values a confluent-kafka consumer with ``isolation.level`` gets from the start of
    the partition until its position reaches ``end``."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"txn-{isolation}",
                  "enable.auto.commit": False, "isolation.level": isolation,
                  "auto.offset.reset": "earliest", "fetch.wait.max.ms": 100})
    try:
        tp = TopicPartition(TOPIC, 0, 0)
        c.assign([tp])
        values: list[bytes] = []
        deadline = time.monotonic() + timeout
        while c.position([TopicPartition(TOPIC, 0)])[0].offset < end:
            if time.monotonic() > deadline:
                raise AssertionError(f"{isolation}: position "
                                     f"{c.position([TopicPartition(TOPIC, 0)])[0].offset} "
                                     f"never reached {end}; got {values}")
            for m in c.consume(num_messages=1000, timeout=0.2):
                if m.error():
                    raise KafkaException(m.error())
                values.append(m.value())
        # nothing more arrives past the end
        for m in c.consume(num_messages=1000, timeout=0.5):
            assert m.error() is None
            values.append(m.value())
        return values
    finally:
        c.close()


def test_read_committed_sees_exactly_the_committed_records(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        p = TxnProducer(client)
        p.init()
        other = TxnProducer(client)
        other.init()
        assert p.send(b"c1-a", b"c1-b") == 0
        assert other.send(b"plain-1", transactional=False) == 2
        assert p.send(b"c1-c") == 3
        assert producers(client)[p.producer_id] == (-1, 0)
        assert latest(client, READ_COMMITTED) == 0  # held by the open transaction
        assert p.end(commit=True) == ErrorCode.NONE  # marker at 4
        assert producers(client)[p.producer_id] == (3, -1)
        assert p.send(b"a2-a", b"a2-b") == 5
        assert p.end(commit=False) == ErrorCode.NONE  # 7
        assert p.send(b"c3-a") == 8
        assert p.end(commit=True) == ErrorCode.NONE  # 9
        end = 10
        assert latest(client, READ_COMMITTED) == latest(client, READ_UNCOMMITTED) == end

        committed = raw_fetch(client, READ_COMMITTED)
        assert committed.last_stable_offset == end
        assert [(t.producer_id, t.first_offset) for t in committed.aborted_transactions] == \
            [(p.producer_id, 5)]
        assert raw_fetch(client, READ_UNCOMMITTED).aborted_transactions is None

    assert consume(broker.bootstrap, "read_committed", end) == [
        b"c1-a", b"c1-b", b"plain-1", b"c1-c", b"c3-a"]
    assert consume(broker.bootstrap, "read_uncommitted", end) == [
        b"c1-a", b"c1-b", b"plain-1", b"c1-c", b"a2-a", b"a2-b", b"c3-a"]


def test_kill_9_keeps_the_lso_the_aborted_list_and_the_open_transaction(
        broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        p, q = TxnProducer(client), TxnProducer(client)
        p.init()
        q.init()
        p.send(b"p-aborted")  # 0
        q.send(b"q-committed")  # 1
        assert p.end(commit=False) == ErrorCode.NONE  # 2
        assert q.end(commit=True) == ErrorCode.NONE  # 3
        q.send(b"q-open-1")  # 4: left open across the crash
        p.send(b"p-after")  # 5
        assert p.end(commit=True) == ErrorCode.NONE  # 6
        before = raw_fetch(client, READ_COMMITTED)
        assert before.last_stable_offset == 4
        aborted = [(t.producer_id, t.first_offset) for t in before.aborted_transactions]
        assert aborted == [(p.producer_id, 0)]

    broker.restart(hard=True)

    # Kafka's .txnindex: p's abort (offsets 0-2), written while q's transaction was open from 1
    [index] = broker.data_dir.glob(f"{TOPIC}-0/*.txnindex")
    assert index.read_bytes() == struct.pack(">hqqqq", 0, p.producer_id, 0, 2, 1)

    with WireClient(broker.bootstrap) as client:
        after = raw_fetch(client, READ_COMMITTED)
        assert (after.high_watermark, after.last_stable_offset) == (7, 4)
        assert [(t.producer_id, t.first_offset) for t in after.aborted_transactions] == aborted
        assert latest(client, READ_COMMITTED) == 4
        assert producers(client)[q.producer_id] == (3, 4)
        assert consume(broker.bootstrap, "read_committed", 4) == [b"q-committed"]
        # the coordinator finishes the open transaction after the restart
        q.client = client
        assert q.end(commit=True) == ErrorCode.NONE  # 7
        assert latest(client, READ_COMMITTED) == 8

    assert consume(broker.bootstrap, "read_committed", 8) == [
        b"q-committed", b"q-open-1", b"p-after"]
