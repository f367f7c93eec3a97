"""Broker behaviour that stock clients rarely show, checked over a raw socket.

Each test names the Kafka rule it checks. Requests are built with the generated codecs
(:mod:`pybroker.testing.wire_client`) so that old versions and malformed-but-decodable requests
can be sent on purpose.
"""

from __future__ import annotations

import threading
import time

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    create_topics_request as ct,
    fetch_request as fr,
    init_producer_id_request as ip,
    list_offsets_request as lo,
    produce_request as pr,
)
from protocol.records.compression import CompressionType
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

from .timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

PRODUCE, FETCH, LIST_OFFSETS, CREATE_TOPICS, INIT_PRODUCER_ID = 0, 1, 2, 19, 22


def create(client: WireClient, topic: str, partitions: int = 1) -> None:
    resp = client.call(CREATE_TOPICS, 5, ct.CreateTopicsRequest(
        topics=[ct.CreatableTopic(name=topic, num_partitions=partitions, replication_factor=1)],
        timeout_ms=10_000))
    assert resp.topics[0].error_code == ErrorCode.NONE, resp.topics[0]


def produce(client: WireClient, topic: str, records: bytes, *, version: int = 9, acks: int = -1,
            partition: int = 0):
    resp = client.call(PRODUCE, version, pr.ProduceRequest(
        acks=acks, timeout_ms=10_000,
        topic_data=[pr.TopicProduceData(name=topic, partition_data=[
            pr.PartitionProduceData(index=partition, records=records)])]))
    return resp.responses[0].partition_responses[0]


def fetch(client: WireClient, topic: str, offset: int, *, version: int = 12, max_wait_ms: int = 0,
          min_bytes: int = 1, max_bytes: int = 50 << 20, partition_max_bytes: int = 1 << 20):
    resp = client.call(FETCH, version, fr.FetchRequest(
        replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes,
        session_id=0, session_epoch=-1,
        topics=[fr.FetchTopic(topic=topic, partitions=[fr.FetchPartition(
            partition=0, fetch_offset=offset, partition_max_bytes=partition_max_bytes)])]))
    assert resp.error_code == ErrorCode.NONE
    return resp.responses[0].partitions[0]


def batch(n: int, *, codec: int = CompressionType.NONE, size: int = 10, **kw) -> bytes:
    return bytes(build_batch([(b"k%d" % i, bytes([i % 256]) * size) for i in range(n)],
                             codec=codec, **kw))


def test_fetch_below_v10_and_zstd(module_broker: BrokerProcess, topic: str) -> None:
    """As Apache Kafka 3.9 does (checked by the differential tests): Fetch < v10 is refused with
    UNSUPPORTED_COMPRESSION_TYPE for topics whose ``compression.type`` is zstd, while zstd batches
    a producer chose in a ``producer`` topic are served to old fetchers unchanged."""
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        assert produce(c, topic, batch(3, codec=CompressionType.ZSTD)).error_code == ErrorCode.NONE
        for version in (9, 10):
            served = fetch(c, topic, 0, version=version)
            assert served.error_code == ErrorCode.NONE
            _, records = decode_batch(bytes(served.records))
            assert [r.key for r in records] == [b"k0", b"k1", b"k2"]

        zstd_topic = topic + "-zstd"
        resp = c.call(CREATE_TOPICS, 5, ct.CreateTopicsRequest(
            topics=[ct.CreatableTopic(name=zstd_topic, num_partitions=1, replication_factor=1,
                                      configs=[ct.CreatableTopicConfig("compression.type", "zstd")])],
            timeout_ms=10_000))
        assert resp.topics[0].error_code == ErrorCode.NONE
        assert produce(c, zstd_topic, batch(2, codec=CompressionType.ZSTD)).error_code == 0
        old = fetch(c, zstd_topic, 0, version=9)
        assert old.error_code == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE
        assert (old.high_watermark, old.records) == (-1, None)
        assert fetch(c, zstd_topic, 0, version=10).error_code == ErrorCode.NONE


def test_produce_rules_on_the_request(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        # zstd needs Produce v7+.
        assert produce(c, topic, batch(1, codec=CompressionType.ZSTD), version=6).error_code \
            == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE
        # v3+ carries exactly one batch per partition.
        two = batch(1) + batch(1)
        assert produce(c, topic, two).error_code == ErrorCode.INVALID_RECORD
        # v0-2 carry old message sets, or one v2 batch as Kafka allows it, but never two.
        assert produce(c, topic, two, version=2).error_code == ErrorCode.INVALID_RECORD
        # Unknown acks.
        assert produce(c, topic, batch(1), acks=2).error_code == ErrorCode.INVALID_REQUIRED_ACKS
        # A flipped byte inside the CRC-covered range.
        bad = bytearray(batch(2))
        bad[-1] ^= 0xFF
        assert produce(c, topic, bytes(bad)).error_code == ErrorCode.CORRUPT_MESSAGE
        # Nothing of the above was stored.
        good = produce(c, topic, batch(2))
        assert (good.error_code, good.base_offset) == (ErrorCode.NONE, 0)


def test_idempotent_sequences(module_broker: BrokerProcess, topic: str) -> None:
    """Duplicates get the original offset back; a gap is OUT_OF_ORDER_SEQUENCE_NUMBER."""
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        init = c.call(INIT_PRODUCER_ID, 4, ip.InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60_000))
        assert init.error_code == ErrorCode.NONE and init.producer_id >= 0
        pid, epoch = init.producer_id, init.producer_epoch
        kw = {"producer_id": pid, "producer_epoch": epoch}
        first = produce(c, topic, batch(3, base_sequence=0, **kw))
        second = produce(c, topic, batch(2, base_sequence=3, **kw))
        assert (first.base_offset, second.base_offset) == (0, 3)
        dup = produce(c, topic, batch(3, base_sequence=0, **kw))
        assert (dup.error_code, dup.base_offset) == (ErrorCode.NONE, 0)
        gap = produce(c, topic, batch(1, base_sequence=7, **kw))
        assert gap.error_code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
        after = fetch(c, topic, 0)
        assert after.high_watermark == 5  # the duplicate and the gap added nothing
        # A second InitProducerId hands out a different id.
        again = c.call(INIT_PRODUCER_ID, 4, ip.InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60_000))
        assert again.producer_id != pid


def test_long_poll_fetch_is_woken_by_an_append(module_broker: BrokerProcess, topic: str) -> None:
    """A fetch waiting on min_bytes answers with the new data once another client appends."""
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)

    def append_later() -> None:
        time.sleep(0.5)
        with WireClient(module_broker.bootstrap) as p:
            produce(p, topic, batch(4))

    t = threading.Thread(target=append_later)
    # The fetch may wait 120 s but the socket gives up after 20 s: only an append waking the
    # parked fetch can answer it in time (its expiry would return the same data, too late).
    with WireClient(module_broker.bootstrap, timeout=20) as c:
        t.start()
        part = fetch(c, topic, 0, max_wait_ms=120_000, min_bytes=1)
    t.join()
    assert part.error_code == ErrorCode.NONE
    assert part.high_watermark == 4
    assert len(part.records) > 0


def test_long_poll_expires_with_an_empty_non_null_answer(module_broker: BrokerProcess,
                                                         topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        part = fetch(c, topic, 0, max_wait_ms=200, min_bytes=1)
        assert part.error_code == ErrorCode.NONE
        assert part.records is not None and len(part.records) == 0
        assert part.preferred_read_replica == -1


def test_fetch_returns_whole_batches_and_at_least_one(module_broker: BrokerProcess,
                                                       topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        for _ in range(3):
            produce(c, topic, batch(5, size=1000))
        # A limit smaller than one batch still returns that whole batch (KIP-74).
        part = fetch(c, topic, 0, max_bytes=10, partition_max_bytes=10)
        batches = list(iter_batches(bytes(part.records)))
        assert len(batches) == 1 and batches[0][1].base_offset == 0
        # A fetch from the middle of a batch returns that batch whole.
        part = fetch(c, topic, 7)
        batches = [h.base_offset for _, h in iter_batches(bytes(part.records))]
        assert batches == [5, 10]
        # Past the end: OFFSET_OUT_OF_RANGE, and (as Kafka) no offsets reported with it.
        part = fetch(c, topic, 99)
        assert part.error_code == ErrorCode.OFFSET_OUT_OF_RANGE
        assert (part.high_watermark, part.log_start_offset) == (-1, -1)


def test_list_offsets_earliest_latest_and_by_time(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        t0 = a_day_ago_ms()  # (1970 times would be past retention.ms on this module's broker)
        produce(c, topic, bytes(build_batch([(b"a", b"1", [], t0 + 1000),
                                             (b"b", b"2", [], t0 + 2000)])))
        produce(c, topic, bytes(build_batch([(b"c", b"3", [], t0 + 3000)])))

        def lookup(ts: int, version: int = 5):
            resp = c.call(LIST_OFFSETS, version, lo.ListOffsetsRequest(
                replica_id=-1, topics=[lo.ListOffsetsTopic(name=topic, partitions=[
                    lo.ListOffsetsPartition(partition_index=0, timestamp=ts)])]))
            return resp.topics[0].partitions[0]

        assert lookup(-2).offset == 0
        assert lookup(-1).offset == 3
        hit = lookup(t0 + 1500)  # inside the first batch: exact record, not the batch
        assert (hit.offset, hit.timestamp) == (1, t0 + 2000)
        assert lookup(t0 + 3001).offset == -1
        assert lookup(-1, version=0).old_style_offsets == [3]
        max_ts = lookup(-3, version=7)  # KIP-734: the record with the largest timestamp
        assert (max_ts.offset, max_ts.timestamp) == (2, t0 + 3000)
        assert lookup(-4, version=8).offset == 0  # earliest local: nothing is tiered
        assert lookup(-5, version=9).offset == -1  # latest tiered: nothing is tiered
