"""Differential tests of the data path: topics, Metadata, Produce, Fetch, ListOffsets.

Each scenario runs against pybroker and against Apache Kafka 3.9 (see differ.py); the answers
must agree field by field except where KNOWN (below) says why not.
"""

from __future__ import annotations

import time
import uuid

from protocol.messages import delete_records_request as dr
from protocol.records import legacy
from protocol.records.batch import write_crc
from protocol.records.compression import CompressionType, compress
from protocol.records.record import build_batch
from tests.compat.differential import requests as rq, steps
from tests.compat.differential.differ import Known, Recorder

#: the differences from Apache Kafka these scenarios show, each with its reason
KNOWN: list[Known] = [
    Known("metadata_answers", "auto-create", "topics{T-auto}.*",
          "pybroker creates an auto-created topic before it answers, so the first Metadata "
          "already names the leader; Kafka (ZooKeeper mode) answers LEADER_NOT_AVAILABLE until "
          "its controller has elected one. Clients retry on that error either way."),
]


def create(rec: Recorder, *topics, label: str | None = None) -> None:
    """Create ``topics``: recorded under ``label`` when given, else as unrecorded set-up."""
    if label is None:
        steps.create_topics(rec, *topics)
        return
    rec.call(label, rq.CREATE_TOPICS, 7, rq.create_topics(*topics))
    steps.wait_for_leaders(rec, *(t.name for t in topics))


# -- scenarios -------------------------------------------------------------------------------


def create_topics_rules(rec: Recorder, names) -> None:
    """CreateTopics: success, duplicates, bad names, counts and configs, validate_only."""
    t = names.topic
    for version in (0, 2, 4, 5, 7):
        rec.call(f"create v{version}", rq.CREATE_TOPICS, version,
                 rq.create_topics(rq.topic(names(f"v{version}"), 3)))
    rec.call("duplicate", rq.CREATE_TOPICS, 7, rq.create_topics(rq.topic(names("v7"), 3)))
    rec.call("validate only", rq.CREATE_TOPICS, 7,
             rq.create_topics(rq.topic(t, 2, configs={"cleanup.policy": "compact"}),
                              validate_only=True))
    rec.call("invalid name", rq.CREATE_TOPICS, 7, rq.create_topics(rq.topic(t + "/bad")))
    rec.call("dot name", rq.CREATE_TOPICS, 7, rq.create_topics(rq.topic("..")))
    rec.call("too long", rq.CREATE_TOPICS, 7, rq.create_topics(rq.topic("x" * 250)))
    rec.call("zero partitions", rq.CREATE_TOPICS, 7, rq.create_topics(rq.topic(names("p0"), 0)))
    rec.call("rf 3 on one broker", rq.CREATE_TOPICS, 7,
             rq.create_topics(rq.topic(names("rf3"), 1, 3)))
    rec.call("rf 0", rq.CREATE_TOPICS, 7, rq.create_topics(rq.topic(names("rf0"), 1, 0)))
    rec.call("defaults (-1, -1)", rq.CREATE_TOPICS, 7,
             rq.create_topics(rq.topic(names("defaults"), -1, -1)))
    rec.call("unknown config", rq.CREATE_TOPICS, 7,
             rq.create_topics(rq.topic(names("cfg1"), configs={"no.such.config": "1"})))
    rec.call("bad config value", rq.CREATE_TOPICS, 7,
             rq.create_topics(rq.topic(names("cfg2"), configs={"retention.ms": "soon"})))
    rec.call("bad cleanup policy", rq.CREATE_TOPICS, 7,
             rq.create_topics(rq.topic(names("cfg3"), configs={"cleanup.policy": "sometimes"})))
    rec.call("configs at v5", rq.CREATE_TOPICS, 5, rq.create_topics(
        rq.topic(names("cfg4"), 2, configs={"retention.ms": "3600000",
                                             "cleanup.policy": "compact"})))


def metadata_answers(rec: Recorder, names) -> None:
    """Metadata of existing and unknown topics at several versions, without auto-creation."""
    create(rec, rq.topic(names.topic, 3))
    for version in (0, 1, 4, 7, 9, 10, 12):
        req = rq.metadata(names.topic, names("missing"))
        if version < 4:
            req.allow_auto_topic_creation = True  # (cannot be switched off before v4)
            req.topics = req.topics[:1]
        rec.call(f"metadata v{version}", rq.METADATA, version, req)
    rec.call("invalid name", rq.METADATA, 12, rq.metadata("bad/name"))
    rec.call("auto-create", rq.METADATA, 12, rq.metadata(names("auto"), auto_create=True))
    steps.wait_for_leaders(rec, names("auto"))
    rec.call("after auto-create", rq.METADATA, 12, rq.metadata(names("auto")))
    rec.call("auto-create of an invalid name", rq.METADATA, 12,
             rq.metadata("bad/name", auto_create=True))


def produce_and_fetch(rec: Recorder, names) -> None:
    """Produce at several versions (each codec), then Fetch it all back."""
    t = names.topic
    create(rec, rq.topic(t, 2))
    codecs = [CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY,
              CompressionType.LZ4, CompressionType.ZSTD]
    start = 0
    for version, codec in zip((3, 5, 7, 8, 9), codecs, strict=True):
        rec.call(f"produce v{version} codec {codec}", rq.PRODUCE, version,
                 rq.produce(t, rq.batch(4, start=start, codec=codec, ts=rq.T0 + start)))
        start += 4
    rec.call("produce acks=1", rq.PRODUCE, 9, rq.produce(t, rq.batch(2, start=start), acks=1))
    for version in (4, 7, 10, 11, 12):
        rec.call(f"fetch v{version} from 0", rq.FETCH, version, rq.fetch(t, 0))
    rec.call("fetch from the middle of a batch", rq.FETCH, 12, rq.fetch(t, 5))
    rec.call("fetch at the end", rq.FETCH, 12, rq.fetch(t, start + 2))
    rec.call("fetch small partition_max_bytes", rq.FETCH, 12,
             rq.fetch(t, 0, partition_max_bytes=10))
    rec.call("fetch partition 1 (empty)", rq.FETCH, 12, rq.fetch(t, 0, partition=1))


def produce_errors(rec: Recorder, names) -> None:
    """Produce refusals: unknown partition and topic, acks, CRC, v2 required, empty batch."""
    t = names.topic
    create(rec, rq.topic(t, 1))
    rec.call("unknown partition", rq.PRODUCE, 9, rq.produce(t, rq.batch(1), partition=7))
    rec.call("unknown topic (auto-create off in Produce)", rq.PRODUCE, 9,
             rq.produce(names("missing"), rq.batch(1)))
    rec.call("acks=2", rq.PRODUCE, 9, rq.produce(t, rq.batch(1), acks=2))
    bad = bytearray(rq.batch(2))
    bad[-1] ^= 0xFF  # a value byte: the CRC no longer matches
    rec.call("bad crc", rq.PRODUCE, 9, rq.produce(t, bytes(bad)))
    wrong_base = bytearray(rq.batch(2))
    wrong_base[0:8] = (5).to_bytes(8, "big")  # clients send base offset 0; brokers overwrite it
    write_crc(wrong_base)
    rec.call("non-zero base offset", rq.PRODUCE, 9, rq.produce(t, bytes(wrong_base)))
    rec.call("after the errors", rq.FETCH, 12, rq.fetch(t, 0))
    steps.ensure_offsets_topic(rec)
    rec.call("internal topic", rq.PRODUCE, 9, rq.produce("__consumer_offsets", rq.batch(1)))
    strict = names("strict")
    create(rec, rq.topic(strict, 1, configs={"message.timestamp.before.max.ms": "3600000"}))
    # (the messages name the bounds, which come from each broker's clock)
    rec.call("timestamp too old", rq.PRODUCE, 9, rq.produce(strict, rq.batch(2)),
             mask=("responses[*].partition_responses[*].record_errors[*].batch_index_error_message",))
    # the first and the largest timestamps are in range; the middle record is a day old
    now = int(time.time() * 1000)
    mixed = bytes(build_batch([(b"k%d" % i, b"v", [], ts)
                               for i, ts in enumerate((now, rq.T0, now + 10))]))
    rec.call("one record in the middle too old", rq.PRODUCE, 9, rq.produce(strict, mixed),
             mask=("responses[*].partition_responses[*].record_errors[*].batch_index_error_message",))
    rec.call("zstd at v5", rq.PRODUCE, 5, rq.produce(t, rq.batch(1, codec=CompressionType.ZSTD)))
    # min.insync.replicas above the replication factor counts as the replication factor
    isr2 = names("isr2")
    create(rec, rq.topic(isr2, 1, configs={"min.insync.replicas": "2"}))
    rec.call("acks=all, min.insync.replicas 2, one replica", rq.PRODUCE, 9,
             rq.produce(isr2, rq.batch(1)))


def fetch_errors(rec: Recorder, names) -> None:
    """Fetch: offsets out of range either side, unknown partitions and topics."""
    t = names.topic
    create(rec, rq.topic(t, 1))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(3)))
    rec.call("offset past the end", rq.FETCH, 12, rq.fetch(t, 100))
    rec.call("negative offset", rq.FETCH, 12, rq.fetch(t, -5))
    rec.call("unknown partition", rq.FETCH, 12, rq.fetch(t, 0, partition=3))
    rec.call("unknown topic v12", rq.FETCH, 12, rq.fetch(names("missing"), 0))
    rec.call("unknown topic v4", rq.FETCH, 4, rq.fetch(names("missing"), 0))
    rec.call("long poll times out", rq.FETCH, 12,
             rq.fetch(t, 3, max_wait_ms=200, min_bytes=1))
    read_committed = rq.fetch(t, 0)
    read_committed.isolation_level = 1
    rec.call("read committed", rq.FETCH, 12, read_committed)
    rec.call("session epoch 0 asks for a session", rq.FETCH, 12, rq.fetch(t, 0, session_epoch=0))
    zstd = names("zstd")
    create(rec, rq.topic(zstd, 1, configs={"compression.type": "zstd"}))
    rec.quietly(rq.PRODUCE, 9, rq.produce(zstd, rq.batch(2, codec=CompressionType.ZSTD)))
    rec.call("zstd topic at v9", rq.FETCH, 9, rq.fetch(zstd, 0))
    rec.call("zstd topic at v10", rq.FETCH, 10, rq.fetch(zstd, 0))
    rec.quietly(rq.DELETE_RECORDS, 2, dr.DeleteRecordsRequest(
        topics=[dr.DeleteRecordsTopic(name=t, partitions=[
            dr.DeleteRecordsPartition(partition_index=0, offset=2)])], timeout_ms=30_000))
    rec.call("below the log start", rq.FETCH, 12, rq.fetch(t, 0))
    rec.call("at the log start", rq.FETCH, 12, rq.fetch(t, 2))


def keyless_records_on_a_compacted_topic(rec: Recorder, names) -> None:
    """A compacted topic refuses records without a key, naming each (the first three in the
    message), whatever the codec; a batch whose records all have keys is taken; a topic that
    also deletes is compacted too."""
    t = names.topic
    create(rec, rq.topic(t, 1, configs={"cleanup.policy": "compact"}),
           rq.topic(names("both"), 1, configs={"cleanup.policy": "compact,delete"}))

    def batch(keys: list[bytes | None], codec: int = CompressionType.NONE) -> bytes:
        return bytes(build_batch([(k, b"v%d" % i, [], rq.T0 + i) for i, k in enumerate(keys)],
                                 codec=codec))

    rec.call("two keyless of four", rq.PRODUCE, 9,
             rq.produce(t, batch([b"a", None, b"c", None])))
    rec.call("five keyless, gzip", rq.PRODUCE, 9,
             rq.produce(t, batch([None] * 5, CompressionType.GZIP)))
    rec.call("every record keyed", rq.PRODUCE, 9, rq.produce(t, batch([b"a", b"b"])))
    rec.call("compact,delete", rq.PRODUCE, 9, rq.produce(names("both"), batch([None])))
    rec.call("at v3", rq.PRODUCE, 3, rq.produce(t, batch([None, b"k"])))
    rec.call("fetch: only the keyed batch", rq.FETCH, 12, rq.fetch(t, 0))


def topic_compression(rec: Recorder, names) -> None:
    """A topic whose compression.type names a codec stores every batch in it: batches produced
    in another codec (or none) come back re-compressed, with the producer's fields and
    timestamps; compression.type=uncompressed stores a compressed batch uncompressed. The
    compressed bytes (and so the CRC and length) depend on each side's codec library."""
    gz, plain_topic = names("gzip"), names("uncompressed")
    create(rec, rq.topic(gz, 1, configs={"compression.type": "gzip"}),
           rq.topic(plain_topic, 1, configs={"compression.type": "uncompressed"}))

    def batch(codec: int, **fields: int) -> bytes:
        return bytes(build_batch([(b"k%d" % i, b"v%d" % i * 20, [], rq.T0 + i) for i in range(4)],
                                 codec=codec, **fields))

    rec.call("uncompressed into gzip", rq.PRODUCE, 9, rq.produce(gz, batch(CompressionType.NONE)))
    rec.call("lz4 into gzip", rq.PRODUCE, 9, rq.produce(gz, batch(CompressionType.LZ4)))
    rec.call("gzip into gzip", rq.PRODUCE, 9, rq.produce(gz, batch(CompressionType.GZIP)))
    rec.call("idempotent zstd into gzip", rq.PRODUCE, 9, rq.produce(gz, batch(
        CompressionType.ZSTD, producer_id=4242, producer_epoch=0, base_sequence=0)))
    rec.call("snappy into uncompressed", rq.PRODUCE, 9,
             rq.produce(plain_topic, batch(CompressionType.SNAPPY)))
    masks = ("responses[*].partitions[*].records[*].header.crc",
             "responses[*].partitions[*].records[*].header.batch_length")
    rec.call("fetch the gzip topic", rq.FETCH, 12, rq.fetch(gz, 0), mask=masks)
    rec.call("fetch the uncompressed topic", rq.FETCH, 12, rq.fetch(plain_topic, 0))


def fetch_sessions(rec: Recorder, names) -> None:
    """Fetch sessions (KIP-227): a full fetch at epoch 0 opens one; incremental fetches name
    only changed partitions and are answered only with partitions that have news; forgotten
    partitions, wrong epochs, unknown ids, a session continued at a version of the other topic
    naming, and closing a session."""
    t = names.topic
    create(rec, rq.topic(t, 3))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(3)))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(2), partition=1))
    opened = rec.call("full fetch opens a session", rq.FETCH, 12,
                      rq.fetch_session(0, 0, (t, 0, 0), (t, 1, 0), (t, 2, 0)))
    sid = opened.session_id
    rec.call("incremental: new offsets, no news", rq.FETCH, 12,
             rq.fetch_session(sid, 1, (t, 0, 3), (t, 1, 2)))
    rec.call("incremental: nothing changed", rq.FETCH, 12, rq.fetch_session(sid, 2))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(4), partition=2))
    rec.call("incremental: a partition with records", rq.FETCH, 12, rq.fetch_session(sid, 3))
    rec.call("incremental: re-read from an older offset", rq.FETCH, 12,
             rq.fetch_session(sid, 4, (t, 0, 1)))
    rec.call("incremental: forget a partition", rq.FETCH, 12,
             rq.fetch_session(sid, 5, forget=(t, (2,))))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(1), partition=2))
    rec.call("forgotten partition stays out", rq.FETCH, 12, rq.fetch_session(sid, 6))
    rec.call("wrong epoch", rq.FETCH, 12, rq.fetch_session(sid, 42))
    rec.call("unknown session", rq.FETCH, 12, rq.fetch_session(sid + 1 if sid else 1, 1))
    rec.call("session by name continued by id", rq.FETCH, 13, rq.fetch_session(sid, 7))
    rec.call("still there after the errors", rq.FETCH, 12, rq.fetch_session(sid, 7))
    rec.call("close: full fetch at the final epoch", rq.FETCH, 12,
             rq.fetch_session(sid, -1, (t, 0, 3)))
    rec.call("closed session is gone", rq.FETCH, 12, rq.fetch_session(sid, 8))
    rec.call("forgetting every partition ends the session", rq.FETCH, 12,
             rq.fetch_session(rec.quietly(rq.FETCH, 12, rq.fetch_session(0, 0, (t, 1, 2)))
                              .session_id, 1, forget=(t, (1,))))


def fetch_by_topic_id(rec: Recorder, names) -> None:
    """Fetch v13-v17 (KIP-516): topics named by id, each broker's own id for the topic (from
    its Metadata); ids it does not know, the zero id, unknown partitions of a known id, and
    answers mixing known and unknown ids."""
    t = names.topic
    create(rec, rq.topic(t, 2))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(3)))
    [topic] = rec.quietly(rq.METADATA, 12, rq.metadata(t)).topics
    known = topic.topic_id
    unknown = uuid.UUID("6b1c4f4e-3d9a-4a57-9a4f-0d8f2c1e5a17")
    for version in (13, 14, 15, 16, 17):
        rec.call(f"fetch v{version} by id", rq.FETCH, version, rq.fetch_by_id((known, (0, 1))))
        rec.call(f"unknown topic id v{version}", rq.FETCH, version,
                 rq.fetch_by_id((unknown, (0,))))
    rec.call("zero topic id", rq.FETCH, 17, rq.fetch_by_id((uuid.UUID(int=0), (0,))))
    rec.call("unknown partition of a known id", rq.FETCH, 17, rq.fetch_by_id((known, (5,))))
    rec.call("unknown id before a known one", rq.FETCH, 17,
             rq.fetch_by_id((unknown, (0, 1)), (known, (0,))))
    rec.call("offset past the end by id", rq.FETCH, 17, rq.fetch_by_id((known, (0,)), offset=9))
    rec.call("current epoch ahead by id", rq.FETCH, 16,
             rq.fetch_by_id((known, (0,)), current_leader_epoch=3))


def list_offsets_answers(rec: Recorder, names) -> None:
    """ListOffsets: earliest, latest, by timestamp, max timestamp, errors."""
    t = names.topic
    create(rec, rq.topic(t, 2))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(5, ts=rq.T0)))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(5, start=5, ts=rq.T0 + 100)))
    for version in (0, 1, 2, 4, 5, 7, 8, 9):
        queries = [(0, -2), (1, -1)] if version else [(0, -1), (1, -2)]
        rec.call(f"earliest/latest v{version}", rq.LIST_OFFSETS, version,
                 rq.list_offsets(t, *queries))
    for ts in (rq.T0 - 1, rq.T0 + 3, rq.T0 + 100, rq.T0 + 102, rq.T0 + 1000):
        rec.call(f"timestamp {ts - rq.T0:+d}", rq.LIST_OFFSETS, 7, rq.list_offsets(t, (0, ts)))
    rec.call("max timestamp", rq.LIST_OFFSETS, 7, rq.list_offsets(t, (0, -3), (1, -3)))
    rec.call("unknown partition", rq.LIST_OFFSETS, 7, rq.list_offsets(t, (5, -1)))
    rec.call("unknown topic", rq.LIST_OFFSETS, 7, rq.list_offsets(names("missing"), (0, -1)))
    rec.call("read committed", rq.LIST_OFFSETS, 7, rq.list_offsets(t, (0, -1), isolation_level=1))


def leader_epoch_answers(rec: Recorder, names) -> None:
    """OffsetForLeaderEpoch (KIP-320) and Fetch's LastFetchedEpoch (v12) on partitions led in
    epoch 0: the end of each epoch, undefined epochs, fencing, and the diverging epoch."""
    t = names.topic
    create(rec, rq.topic(t, 2))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(3)))
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(2, start=3)))
    ofle = rq.OFFSET_FOR_LEADER_EPOCH
    for version in (0, 1, 2, 3, 4):
        rec.call(f"epochs v{version}", ofle, version, rq.offset_for_leader_epoch(
            t, (0, -1, 0), (0, -1, -1), (0, -1, 1), (1, -1, 0)))
    rec.call("current epoch 0", ofle, 4, rq.offset_for_leader_epoch(t, (0, 0, 0)))
    rec.call("current epoch ahead", ofle, 4, rq.offset_for_leader_epoch(t, (0, 3, 0)))
    rec.call("unknown partition", ofle, 4, rq.offset_for_leader_epoch(t, (7, -1, 0)))
    rec.call("unknown topic", ofle, 4, rq.offset_for_leader_epoch(names("missing"), (0, -1, 0)))
    rec.call("fetch, the epoch agrees", rq.FETCH, 12, rq.fetch(t, 3, last_fetched_epoch=0))
    rec.call("fetch at the end, the epoch agrees", rq.FETCH, 12,
             rq.fetch(t, 5, last_fetched_epoch=0))
    rec.call("fetch past the end of epoch 0", rq.FETCH, 12, rq.fetch(t, 7, last_fetched_epoch=0))
    rec.call("fetch with an epoch the log does not know", rq.FETCH, 12,
             rq.fetch(t, 3, last_fetched_epoch=4))
    rec.call("fetch, current epoch ahead", rq.FETCH, 12,
             rq.fetch(t, 3, last_fetched_epoch=0, current_leader_epoch=2))


LEGACY_CODECS = (CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4)
#: what each broker's own compressor decides: the size and CRC of a batch it compressed, and
#: so where a converted answer stops and how long its overflow entry is
COMPRESSED_BYTES = ("responses[*].partitions[*].records[*].header.crc",
                    "responses[*].partitions[*].records[*].header.batch_length",
                    "responses[*].partitions[*].records[*].truncated_tail_bytes")


def old_formats(rec: Recorder, names) -> None:
    """Produce v0-v2 with message sets of magic 0 and 1, stored as v2 batches (compared field
    by field at Fetch v4), and Fetch v0-v3 converting them back down: uncompressed, where every
    byte is comparable, then one topic per codec, read a wrapper at a time."""
    t = names.topic
    create(rec, rq.topic(t, 1))
    rec.call("produce v0", rq.PRODUCE, 0, rq.produce(t, rq.message_set(0, 3)))
    rec.call("produce v1", rq.PRODUCE, 1, rq.produce(t, rq.message_set(0, 3, start=3)))
    rec.call("produce v2", rq.PRODUCE, 2, rq.produce(t, rq.message_set(1, 3, start=6)))
    rec.call("produce v2 carrying a v2 batch", rq.PRODUCE, 2,
             rq.produce(t, rq.batch(3, start=9)))
    rec.call("stored", rq.FETCH, 4, rq.fetch(t, 0))
    for version in (0, 1, 2, 3):
        rec.call(f"fetch v{version}", rq.FETCH, version, rq.fetch(t, 0))
    rec.call("fetch v2 from the middle of a batch", rq.FETCH, 2, rq.fetch(t, 10))
    rec.call("fetch v1 of one batch", rq.FETCH, 1, rq.fetch(t, 9, partition_max_bytes=1))
    for codec in LEGACY_CODECS:
        name = names(codec.config_name)
        create(rec, rq.topic(name, 1))
        rec.call(f"{codec.config_name}: produce v1", rq.PRODUCE, 1,
                 rq.produce(name, rq.message_set(0, 3, codec=codec)))
        rec.call(f"{codec.config_name}: produce v2", rq.PRODUCE, 2,
                 rq.produce(name, rq.message_set(1, 3, start=3, codec=codec)))
        rec.call(f"{codec.config_name}: produce v2, wrapper at its last offset", rq.PRODUCE, 2,
                 rq.produce(name, rq.message_set(1, 3, start=6, codec=codec,
                                                 wrapper_offset=2)))
        rec.call(f"{codec.config_name}: stored", rq.FETCH, 4, rq.fetch(name, 0),
                 mask=COMPRESSED_BYTES)
        for version, offset in ((0, 0), (1, 3), (2, 4), (3, 6)):
            rec.call(f"{codec.config_name}: fetch v{version} from {offset}", rq.FETCH, version,
                     rq.fetch(name, offset, partition_max_bytes=1), mask=COMPRESSED_BYTES)


def _legacy_message(magic: int, attributes: int, key: bytes | None, value: bytes) -> bytes:
    out = bytearray()
    legacy.write_message(out, 0, magic, attributes, rq.T0, key, value)
    return bytes(out)


def old_format_errors(rec: Recorder, names) -> None:
    """What Kafka refuses in old message sets, the limits of its conversions both ways, and
    ListOffsets v0."""
    t = names.topic
    create(rec, rq.topic(t, 1))
    bad = bytearray(rq.message_set(1, 2))
    bad[-1] ^= 0xFF
    rec.call("bad crc", rq.PRODUCE, 2, rq.produce(t, bytes(bad)))
    rec.call("two wrappers", rq.PRODUCE, 2, rq.produce(
        t, rq.message_set(1, 2, codec=CompressionType.GZIP) * 2))
    rec.call("mixed magics", rq.PRODUCE, 2, rq.produce(
        t, rq.message_set(0, 1) + rq.message_set(1, 1)))
    rec.call("wrapper offset behind its inner ones", rq.PRODUCE, 2, rq.produce(
        t, rq.message_set(1, 3, codec=CompressionType.GZIP, wrapper_offset=1)))
    zstd_wrapper = bytearray()
    legacy.write_message(zstd_wrapper, 0, 1, CompressionType.ZSTD, rq.T0, None, compress(
        CompressionType.ZSTD, rq.message_set(1, 2)))
    rec.call("zstd wrapper", rq.PRODUCE, 2, rq.produce(t, bytes(zstd_wrapper)))
    nested = bytearray()
    legacy.write_message(nested, 0, 1, CompressionType.GZIP, rq.T0, None, compress(
        CompressionType.GZIP, rq.message_set(1, 2, codec=CompressionType.GZIP)))
    rec.call("compressed inner message", rq.PRODUCE, 2, rq.produce(t, bytes(nested)))
    rec.call("empty message set", rq.PRODUCE, 2, rq.produce(t, b""))
    rec.call("a truncated last message", rq.PRODUCE, 2,
             rq.produce(t, rq.message_set(1, 3)[:-2]))
    rec.call("after the errors", rq.FETCH, 2, rq.fetch(t, 0))
    rec.call("zstd at v2 in a v2 batch", rq.PRODUCE, 2,
             rq.produce(t, rq.batch(1, codec=CompressionType.ZSTD)))
    rec.call("zstd batch first, to an old fetcher", rq.FETCH, 3, rq.fetch(t, 2))
    rec.call("zstd batch later, to an old fetcher", rq.FETCH, 3, rq.fetch(t, 0))
    for label, lookup in (("latest", (0, -1)), ("earliest", (0, -2)), ("max timestamp", (0, -3)),
                          ("unknown partition", (4, -1))):
        rec.call(f"list offsets v0 {label}", rq.LIST_OFFSETS, 0, rq.list_offsets(t, lookup))
    rec.call("list offsets v0, five latest", rq.LIST_OFFSETS, 0,
             rq.list_offsets(t, (0, -1), max_num_offsets=5))

    small = names("small")
    create(rec, rq.topic(small, 1, configs={"max.message.bytes": "40"}))
    rec.call("message too large", rq.PRODUCE, 2, rq.produce(small, rq.message_set(1, 1)))
    rec.call("message within max.message.bytes", rq.PRODUCE, 1,
             rq.produce(small, rq.message_set(0, 1)))
    lat = names("lat")
    create(rec, rq.topic(lat, 1, configs={"message.timestamp.type": "LogAppendTime"}))
    rec.call("producer sets LogAppendTime", rq.PRODUCE, 2, rq.produce(
        lat, rq.message_set(1, 2, attributes=legacy.TIMESTAMP_TYPE_MASK)))
    rec.call("LogAppendTime topic", rq.PRODUCE, 2,
             rq.produce(lat, rq.message_set(1, 2, codec=CompressionType.SNAPPY)),
             mask=("responses[*].partition_responses[*].log_append_time_ms",))
    rec.call("LogAppendTime to an old fetcher", rq.FETCH, 2, rq.fetch(lat, 0),
             mask=COMPRESSED_BYTES + ("responses[*].partitions[*].records[*].wrapper.timestamp",
                                      "responses[*].partitions[*].records[*].inner[*].timestamp",
                                      "responses[*].partitions[*].records[*].inner[*].crc"))
    compacted = names("compacted")
    create(rec, rq.topic(compacted, 1, configs={"cleanup.policy": "compact"}))
    rec.call("keyless on a compacted topic", rq.PRODUCE, 2,
             rq.produce(compacted, _legacy_message(1, 0, None, b"v")))
    rec.call("keyed on a compacted topic", rq.PRODUCE, 2,
             rq.produce(compacted, _legacy_message(1, 0, b"k", b"v")))
    strict = names("strict")
    create(rec, rq.topic(strict, 1, configs={"message.timestamp.before.max.ms": "3600000"}))
    rec.call("v1 timestamp too old", rq.PRODUCE, 2, rq.produce(strict, rq.message_set(1, 2)))
    rec.call("v0 has no timestamp to check", rq.PRODUCE, 1,
             rq.produce(strict, rq.message_set(0, 2)))
    off = names("no-down-conversion")
    create(rec, rq.topic(off, 1, configs={"message.downconversion.enable": "false"}))
    rec.quietly(rq.PRODUCE, 9, rq.produce(off, rq.batch(2)))
    rec.call("down-conversion disabled", rq.FETCH, 3, rq.fetch(off, 0))
    rec.call("down-conversion disabled, v4", rq.FETCH, 4, rq.fetch(off, 0))


# -- tests -------------------------------------------------------------------------------------


def test_create_topics(pair, names) -> None:
    pair.check(create_topics_rules, names, KNOWN)


def test_metadata(pair, names) -> None:
    pair.check(metadata_answers, names, KNOWN)


def test_produce_and_fetch(pair, names) -> None:
    pair.check(produce_and_fetch, names, KNOWN)


def test_produce_errors(pair, names) -> None:
    pair.check(produce_errors, names, KNOWN)


def test_fetch_errors(pair, names) -> None:
    pair.check(fetch_errors, names, KNOWN)


def test_keyless_records_on_a_compacted_topic(pair, names) -> None:
    pair.check(keyless_records_on_a_compacted_topic, names, KNOWN)


def test_topic_compression(pair, names) -> None:
    pair.check(topic_compression, names, KNOWN)


def test_fetch_sessions(pair, names) -> None:
    pair.check(fetch_sessions, names, KNOWN)


def test_fetch_by_topic_id(pair, names) -> None:
    pair.check(fetch_by_topic_id, names, KNOWN)


def test_list_offsets(pair, names) -> None:
    pair.check(list_offsets_answers, names, KNOWN)


def test_leader_epochs(pair, names) -> None:
    pair.check(leader_epoch_answers, names, KNOWN)


def test_old_formats(pair, names) -> None:
    pair.check(old_formats, names, KNOWN)


def test_old_format_errors(pair, names) -> None:
    pair.check(old_format_errors, names, KNOWN)
