"""Old message formats over a raw socket: Produce v0-v2 with message sets of magic 0 and 1,
Fetch v0-v3 converting the stored v2 batches back down, ListOffsets v0, and the limits Kafka
3.9 applies to them (each rule here is also run against Kafka by the differential tests)."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    create_topics_request as ct,
    fetch_request as fr,
    list_offsets_request as lo,
    produce_request as pr,
)
from protocol.records import legacy
from protocol.records.compression import CompressionType
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

from .timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

PRODUCE, FETCH, LIST_OFFSETS, CREATE_TOPICS = 0, 1, 2, 19
CODECS = [CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY,
          CompressionType.LZ4]
TS = a_day_ago_ms()


def create(client: WireClient, topic: str, **configs: str) -> None:
    resp = client.call(CREATE_TOPICS, 5, ct.CreateTopicsRequest(
        topics=[ct.CreatableTopic(name=topic, num_partitions=1, replication_factor=1, configs=[
            ct.CreatableTopicConfig(k, v) for k, v in configs.items()])],
        timeout_ms=10_000))
    assert resp.topics[0].error_code == ErrorCode.NONE, resp.topics[0]


def produce(client: WireClient, topic: str, records: bytes, version: int):
    resp = client.call(PRODUCE, version, pr.ProduceRequest(
        acks=-1, timeout_ms=10_000,
        topic_data=[pr.TopicProduceData(name=topic, partition_data=[
            pr.PartitionProduceData(index=0, records=records)])]))
    return resp.responses[0].partition_responses[0]


def fetch(client: WireClient, topic: str, offset: int, version: int,
          partition_max_bytes: int = 1 << 20):
    resp = client.call(FETCH, version, fr.FetchRequest(
        replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=50 << 20,
        topics=[fr.FetchTopic(topic=topic, partitions=[fr.FetchPartition(
            partition=0, fetch_offset=offset, partition_max_bytes=partition_max_bytes)])]))
    return resp.responses[0].partitions[0]


def message_set(magic: int, codec: int, n: int, start: int = 0) -> bytes:
    """What an old producer sends: offsets from 0, a wrapper of offset 0 when compressed."""
    rows = [(i, TS + start + i if magic else -1, b"k%d" % (start + i), b"v%d" % (start + i))
            for i in range(n)]
    out = legacy.build_message_set(rows, magic=magic, codec=codec)
    if codec != CompressionType.NONE:
        out[0:8] = bytes(8)  # producers leave the wrapper offset at 0
        wrapper = legacy.read_message(bytes(out))
        out = bytearray()
        legacy.write_message(out, 0, magic, wrapper.attributes, wrapper.timestamp, None,
                             wrapper.value)
    return bytes(out)


def legacy_messages(records) -> list[legacy.LegacyMessage]:
    buf = bytes(records or b"")
    out: list[legacy.LegacyMessage] = []
    for pos, size in legacy.iter_entries(buf):
        message = legacy.read_message(buf, pos, size)
        assert message.crc_ok
        out.extend(legacy.inner_messages(message) if message.compression else [message])
    return out


def read_all(client: WireClient, topic: str, version: int,
             end: int) -> list[legacy.LegacyMessage]:
    """Fetch until ``end`` as an old consumer does: converted messages may not all fit in one
    answer (the last one is cut short), so each fetch starts after the last complete one."""
    out: list[legacy.LegacyMessage] = []
    for _ in range(end + 1):
        if len(out) == end:
            break
        got = fetch(client, topic, len(out), version)
        assert got.error_code == ErrorCode.NONE and got.high_watermark == end
        out += [m for m in legacy_messages(got.records) if m.offset >= len(out)]
    return out


def test_old_producers_and_old_consumers_of_every_codec(module_broker: BrokerProcess,
                                                         topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        offset = 0
        for version, magic in ((0, 0), (1, 0), (2, 1)):
            for codec in CODECS:
                answer = produce(c, topic, message_set(magic, codec, 3, start=offset), version)
                assert (answer.error_code, answer.base_offset) == (ErrorCode.NONE, offset), \
                    (version, codec)
                if version == 2:
                    assert answer.log_append_time_ms == -1
                offset += 3
        # Fetch v4+ reads one v2 batch per produce, compressed as it was sent
        got = fetch(c, topic, 0, 12)
        buf = bytes(got.records)
        batches = [decode_batch(buf, pos) for pos, _ in iter_batches(buf)]
        assert [h.compression for h, _ in batches] == CODECS * 3
        records = [r for _, rs in batches for r in rs]
        assert [(r.offset, r.key) for r in records] == [(i, b"k%d" % i) for i in range(offset)]
        assert [r.timestamp for r in records] == [-1] * 24 + [TS + i for i in range(24, 36)]
        # Fetch v0-v1 read magic 0, v2-v3 magic 1, each codec kept
        for version in range(4):
            magic = 0 if version < 2 else 1
            messages = read_all(c, topic, version, offset)
            assert [(m.offset, m.key, m.value) for m in messages] == \
                [(i, b"k%d" % i, b"v%d" % i) for i in range(offset)]
            assert {m.magic for m in messages} == {magic}
            if magic:
                assert [m.timestamp for m in messages] == \
                    [-1] * 24 + [TS + i for i in range(24, 36)]


def test_fetching_from_the_middle_of_a_batch(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        produce(c, topic, bytes(build_batch([(None, b"%d" % i) for i in range(5)])), 9)
        produce(c, topic, bytes(build_batch([(None, b"%d" % i) for i in range(5)],
                                            codec=CompressionType.GZIP)), 9)
        # uncompressed: the messages before the fetch offset are left out (and those that
        # did not fit in the bytes read come with the next fetch)
        assert [m.offset for m in legacy_messages(fetch(c, topic, 3, 2).records)][:2] == [3, 4]
        # compressed: the whole wrapper, the client skips what it did not ask for
        assert [m.offset for m in legacy_messages(fetch(c, topic, 7, 2).records)] == \
            list(range(5, 10))


def test_down_conversion_disabled_and_zstd(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic, **{"message.downconversion.enable": "false"})
        produce(c, topic, message_set(1, CompressionType.NONE, 2), 2)
        refused = fetch(c, topic, 0, 3)
        assert (refused.error_code, refused.high_watermark, refused.records) == \
            (ErrorCode.UNSUPPORTED_VERSION, -1, None)
        assert fetch(c, topic, 0, 4).error_code == ErrorCode.NONE
        zstd = topic + "-zstd"
        create(c, zstd)
        produce(c, zstd, message_set(1, CompressionType.GZIP, 2), 2)
        produce(c, zstd, bytes(build_batch([(None, b"z")], codec=CompressionType.ZSTD)), 9)
        # a zstd batch after others ends the conversion; first, it refuses the partition
        assert [m.offset for m in legacy_messages(fetch(c, zstd, 0, 3).records)] == [0, 1]
        refused = fetch(c, zstd, 2, 3)
        assert (refused.error_code, refused.records) == \
            (ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, None)


def test_log_append_time_topics(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic, **{"message.timestamp.type": "LogAppendTime"})
        answer = produce(c, topic, message_set(1, CompressionType.SNAPPY, 3), 2)
        assert answer.error_code == ErrorCode.NONE and answer.log_append_time_ms > TS
        messages = legacy_messages(fetch(c, topic, 0, 2).records)
        assert [(m.timestamp, m.is_log_append_time) for m in messages] == \
            [(answer.log_append_time_ms, True)] * 3
        # a producer may not claim the broker's timestamp type
        out = bytearray()
        legacy.write_message(out, 0, 1, legacy.TIMESTAMP_TYPE_MASK, TS, None, b"x")
        assert produce(c, topic, bytes(out), 2).error_code == ErrorCode.INVALID_TIMESTAMP


def test_list_offsets_v0(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic)
        produce(c, topic, message_set(0, CompressionType.NONE, 4), 0)

        def offsets(timestamp: int, max_num: int = 1) -> tuple[ErrorCode, list[int]]:
            resp = c.call(LIST_OFFSETS, 0, lo.ListOffsetsRequest(replica_id=-1, topics=[
                lo.ListOffsetsTopic(name=topic, partitions=[lo.ListOffsetsPartition(
                    partition_index=0, timestamp=timestamp, max_num_offsets=max_num)])]))
            p = resp.topics[0].partitions[0]
            return p.error_code, p.old_style_offsets

        assert offsets(-1) == (ErrorCode.NONE, [4])
        assert offsets(-2) == (ErrorCode.NONE, [0])
        assert offsets(-1, 5) == (ErrorCode.NONE, [4, 0])
        assert offsets(-3) == (ErrorCode.UNSUPPORTED_VERSION, [])
