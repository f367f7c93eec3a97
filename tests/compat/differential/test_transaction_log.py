"""Differential test of transactions in the log: the requests a transaction coordinator and a
transactional producer send a partition leader (InitProducerId without a transactional id,
transactional Produce, WriteTxnMarkers), then what consumers see (Fetch and ListOffsets at both
isolation levels, DescribeProducers), against pybroker and Apache Kafka 3.9 (see differ.py).

Producer ids and the markers' timestamps come from each broker, so they are masked (and with
them the batches' CRCs, which cover both).

Kafka 3.9 refuses transactional records in a Produce without a transactional id
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and with one it asks its transaction coordinator whether
the partition is in the transaction (KIP-890's verification). The producer here names a
transactional id, and this module's brokers run with
``transaction.partition.verification.enable=false``, so that the log side is compared on its own,
with no coordinator involved (the verification is compared in test_transaction_coordinator.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    describe_producers_request as dp,
    init_producer_id_request as ip,
    init_producer_id_response as ipr,
    write_txn_markers_request as wm,
)
from protocol.records.record import build_batch
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from tests.compat.differential import requests as rq, steps
from tests.compat.differential.conftest import Pair
from tests.compat.differential.differ import Known, Recorder
from tests.conftest import REFERENCE_OVERRIDES

INIT_PRODUCER_ID, WRITE_TXN_MARKERS, DESCRIBE_PRODUCERS = 22, 27, 61
READ_COMMITTED = 1
TRANSACTIONAL_ID = "differential-txn-log"

#: the differences from Apache Kafka these scenarios show, each with its reason
KNOWN: list[Known] = []

#: what differs by nature: each broker's producer ids, the time it wrote a marker, the CRCs
FETCH_MASK = (
    "responses[*].partitions[*].records[*].header.producer_id",
    "responses[*].partitions[*].records[*].header.crc",
    "responses[*].partitions[*].records[*].header.base_timestamp",
    "responses[*].partitions[*].records[*].header.max_timestamp",
    "responses[*].partitions[*].records[*].records[*].timestamp",
    "responses[*].partitions[*].aborted_transactions[*].producer_id",
)
MARKERS_MASK = ("markers[*].producer_id",)
PRODUCERS_MASK = ("topics[*].partitions[*].active_producers[*].producer_id",
                  "topics[*].partitions[*].active_producers[*].last_timestamp")


def _txn_batch(producer: tuple[int, int], seq: int, n: int, start: int,
               transactional: bool = True) -> bytes:
    pid, epoch = producer
    return bytes(build_batch([(b"k%d" % i, b"v%d" % i, (), rq.T0 + i)
                              for i in range(start, start + n)],
                             producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                             is_transactional=transactional))


def _markers(producer: tuple[int, int], commit: bool, coordinator_epoch: int,
             *topics: tuple[str, list[int]]) -> wm.WriteTxnMarkersRequest:
    pid, epoch = producer
    return wm.WriteTxnMarkersRequest(markers=[wm.WritableTxnMarker(
        producer_id=pid, producer_epoch=epoch, transaction_result=commit,
        coordinator_epoch=coordinator_epoch,
        topics=[wm.WritableTxnMarkerTopic(name=t, partition_indexes=ps) for t, ps in topics])])


def _produce(topic: str, records: bytes) -> object:
    request = rq.produce(topic, records)
    request.transactional_id = TRANSACTIONAL_ID
    return request


def _init_producer_id(rec: Recorder, timeout: float = 30.0) -> ipr.InitProducerIdResponse:
    """A producer id, once the broker hands them out (a freshly started Kafka answers
    COORDINATOR_LOAD_IN_PROGRESS until its producer-id block is allocated)."""
    deadline = time.monotonic() + timeout
    while True:
        init = rec.quietly(INIT_PRODUCER_ID, 4, ip.InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60_000))
        if init.error_code != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            assert init.error_code == ErrorCode.NONE, init
            return init
        if time.monotonic() > deadline:
            raise AssertionError("no producer id: the coordinator is still loading")
        time.sleep(0.2)


def _committed(fetch):
    fetch.isolation_level = READ_COMMITTED
    return fetch


def transaction_markers(rec: Recorder, names) -> None:
    """Two producers' transactions on one partition, one aborted and one committed, with a
    plain batch between them; what each isolation level reads before and after the markers;
    the markers' errors; DescribeProducers' transaction state."""
    t = names.topic
    steps.create_topics(rec, rq.topic(t, 2))
    producers = []
    for i in range(2):
        init = _init_producer_id(rec)
        rec.record(f"init producer id {i}", INIT_PRODUCER_ID, 4, init, mask=("producer_id",))
        producers.append((init.producer_id, init.producer_epoch))
    p, q = producers
    rec.call("p: transactional produce", rq.PRODUCE, 9, _produce(t, _txn_batch(p, 0, 2, 0)))
    rec.call("plain produce", rq.PRODUCE, 9, rq.produce(t, rq.batch(1, start=2)))
    rec.call("q: transactional produce", rq.PRODUCE, 9, _produce(t, _txn_batch(q, 0, 2, 3)))
    rec.call("p: non-transactional during its transaction", rq.PRODUCE, 9,
             _produce(t, _txn_batch(p, 2, 1, 5, transactional=False)))
    rec.call("latest, both levels, open", rq.LIST_OFFSETS, 7, rq.list_offsets(t, (0, -1)))
    rec.call("latest committed, open", rq.LIST_OFFSETS, 7,
             rq.list_offsets(t, (0, -1), isolation_level=READ_COMMITTED))
    rec.call("fetch committed, open", rq.FETCH, 12, _committed(rq.fetch(t, 0)), mask=FETCH_MASK)
    rec.call("describe producers, open", DESCRIBE_PRODUCERS, 0, dp.DescribeProducersRequest(
        topics=[dp.TopicRequest(name=t, partition_indexes=[0, 1])]), mask=PRODUCERS_MASK)

    rec.call("p: abort", WRITE_TXN_MARKERS, 1, _markers(p, False, 4, (t, [0])), mask=MARKERS_MASK)
    rec.call("q: commit v0, with an unknown partition and topic", WRITE_TXN_MARKERS, 0,
             _markers(q, True, 4, (t, [0, 9]), (names("missing"), [0])), mask=MARKERS_MASK)
    rec.call("q: stale coordinator epoch", WRITE_TXN_MARKERS, 1,
             _markers(q, False, 3, (t, [0])), mask=MARKERS_MASK)
    rec.call("q: a marker without a transaction, on another partition", WRITE_TXN_MARKERS, 1,
             _markers(q, True, 4, (t, [1])), mask=MARKERS_MASK)

    rec.call("fetch committed", rq.FETCH, 12, _committed(rq.fetch(t, 0)), mask=FETCH_MASK)
    rec.call("fetch uncommitted", rq.FETCH, 12, rq.fetch(t, 0), mask=FETCH_MASK)
    rec.call("fetch committed from the middle", rq.FETCH, 12, _committed(rq.fetch(t, 3)),
             mask=FETCH_MASK)
    rec.call("fetch committed, v4", rq.FETCH, 4, _committed(rq.fetch(t, 0)), mask=FETCH_MASK)
    rec.call("latest committed", rq.LIST_OFFSETS, 7,
             rq.list_offsets(t, (0, -1), (1, -1), isolation_level=READ_COMMITTED))
    rec.call("describe producers", DESCRIBE_PRODUCERS, 0, dp.DescribeProducersRequest(
        topics=[dp.TopicRequest(name=t, partition_indexes=[0, 1])]), mask=PRODUCERS_MASK)
    rec.call("p: a new transaction", rq.PRODUCE, 9, _produce(t, _txn_batch(p, 2, 1, 9)))
    control = build_batch([(b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x04", (), rq.T0)],
                          producer_id=p[0], producer_epoch=p[1], is_transactional=True,
                          is_control=True)
    rec.call("a client's control batch", rq.PRODUCE, 9, _produce(t, bytes(control)))


@pytest.fixture(scope="module")
def txn_pair(kafka_tools_lib: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    """pybroker and a reference Kafka of this module's own, neither verifying transactional
    produces with a coordinator."""
    base: Path = tmp_path_factory.mktemp("differential-txn")
    overrides = {**REFERENCE_OVERRIDES, "transaction.partition.verification.enable": "false"}
    kafka = ReferenceKafka(base / "reference-kafka", lib=kafka_tools_lib, overrides=overrides)
    broker = BrokerProcess(base / "kafka-logs", overrides=overrides, config=None)
    try:
        yield Pair(broker.start(), kafka.start())
    finally:
        broker.stop()
        kafka.stop()


def test_transaction_markers(txn_pair: Pair, names) -> None:
    txn_pair.check(transaction_markers, names, KNOWN)
