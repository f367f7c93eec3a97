"""Request builders shared by the differential scenarios (generated codecs, Kafka's defaults)."""

from __future__ import annotations

import uuid

from protocol.messages import (
    create_topics_request as ct,
    fetch_request as fr,
    list_offsets_request as lo,
    metadata_request as md,
    offset_for_leader_epoch_request as ofle,
    produce_request as pr,
)
from protocol.records import legacy
from protocol.records.compression import CompressionType, compress
from protocol.records.record import build_batch
from tests.compat.timestamps import a_day_ago_ms

PRODUCE, FETCH, LIST_OFFSETS, METADATA = 0, 1, 2, 3
OFFSET_FOR_LEADER_EPOCH = 23
OFFSET_COMMIT, OFFSET_FETCH, FIND_COORDINATOR = 8, 9, 10
JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP = 11, 12, 13, 14
DESCRIBE_GROUPS, LIST_GROUPS, API_VERSIONS = 15, 16, 18
CREATE_TOPICS, DELETE_TOPICS, DELETE_RECORDS, INIT_PRODUCER_ID = 19, 20, 21, 22
DESCRIBE_CONFIGS, ALTER_CONFIGS, CREATE_PARTITIONS = 32, 33, 37
DELETE_GROUPS, INCREMENTAL_ALTER_CONFIGS, OFFSET_DELETE, DESCRIBE_CLUSTER = 42, 44, 47, 60

#: one clock for record (and commit) timestamps, so both brokers store identical batches: a day
#: back, inside the 7-day retention.ms and offsets.retention.minutes, so that neither broker's
#: retention or offset-expiry task (on schedules of their own) removes what a scenario wrote
#: before it reads it back; more than the hour of message.timestamp.before.max.ms a scenario sets
T0 = a_day_ago_ms()


def create_topics(*topics: ct.CreatableTopic, validate_only: bool = False,
                  timeout_ms: int = 30_000) -> ct.CreateTopicsRequest:
    return ct.CreateTopicsRequest(topics=list(topics), timeout_ms=timeout_ms,
                                  validate_only=validate_only)


def topic(name: str, partitions: int = 1, replication_factor: int = 1,
          configs: dict[str, str | None] | None = None) -> ct.CreatableTopic:
    return ct.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=replication_factor,
        configs=[ct.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()],
    )


def metadata(*topics: str, auto_create: bool = False, all_topics: bool = False) -> md.MetadataRequest:
    return md.MetadataRequest(
        topics=None if all_topics else [md.MetadataRequestTopic(name=t) for t in topics],
        allow_auto_topic_creation=auto_create,
    )


def batch(n: int, *, start: int = 0, codec: int = CompressionType.NONE, ts: int = T0,
          **kw) -> bytes:
    """``n`` records with keys, values, a header and timestamps ``ts + i``."""
    return bytes(build_batch(
        [(b"k%d" % (start + i), b"v%d" % (start + i) * 3, [("h", b"x%d" % i)], ts + i)
         for i in range(n)],
        codec=codec, **kw,
    ))


def message_set(magic: int, n: int, *, start: int = 0, codec: int = CompressionType.NONE,
                ts: int = T0, wrapper_offset: int = 0, attributes: int = 0) -> bytes:
    """``n`` messages of magic 0 or 1 as an old producer sends them: offsets from 0, and when
    compressed one wrapper at ``wrapper_offset`` (0, as librdkafka and kafka-python write it;
    ``n - 1`` as the Java producer did). ``attributes`` adds bits to every message."""
    rows = [(i, ts + i if magic else -1, b"k%d" % (start + i), b"v%d" % (start + i) * 3)
            for i in range(n)]
    if codec == CompressionType.NONE:
        out = bytearray()
        for offset, timestamp, key, value in rows:
            legacy.write_message(out, offset, magic, attributes, timestamp, key, value)
        return bytes(out)
    inner = legacy.build_message_set(rows, magic=magic)
    payload = compress(codec, inner)
    if codec == CompressionType.LZ4 and magic == 0:
        payload = legacy.lz4_break_header_checksum(payload)
    out = bytearray()
    legacy.write_message(out, wrapper_offset, magic, codec | attributes,
                         ts + n - 1 if magic else -1, None, payload)
    return bytes(out)


def produce(name: str, records: bytes, *, partition: int = 0, acks: int = -1,
            timeout_ms: int = 30_000) -> pr.ProduceRequest:
    return pr.ProduceRequest(
        acks=acks, timeout_ms=timeout_ms,
        topic_data=[pr.TopicProduceData(name=name, partition_data=[
            pr.PartitionProduceData(index=partition, records=records)])],
    )


def fetch(name: str, offset: int, *, partition: int = 0, max_wait_ms: int = 0,
          min_bytes: int = 1, partition_max_bytes: int = 1 << 20,
          session_epoch: int = -1, last_fetched_epoch: int = -1,
          current_leader_epoch: int = -1) -> fr.FetchRequest:
    return fr.FetchRequest(
        replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=50 << 20,
        session_id=0, session_epoch=session_epoch,
        topics=[fr.FetchTopic(topic=name, partitions=[fr.FetchPartition(
            partition=partition, fetch_offset=offset, partition_max_bytes=partition_max_bytes,
            last_fetched_epoch=last_fetched_epoch,
            current_leader_epoch=current_leader_epoch)])],
    )


def fetch_session(session_id: int, epoch: int, *partitions: tuple[str, int, int],
                  forget: tuple[str, tuple[int, ...]] | None = None) -> fr.FetchRequest:
    """A Fetch v7-v12 in a fetch session (KIP-227): ``partitions`` are (topic, partition,
    fetch offset); ``forget`` names partitions of a topic to drop from the session."""
    topics: dict[str, list[fr.FetchPartition]] = {}
    for name, partition, offset in partitions:
        topics.setdefault(name, []).append(fr.FetchPartition(
            partition=partition, fetch_offset=offset, partition_max_bytes=1 << 20))
    return fr.FetchRequest(
        replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=50 << 20,
        session_id=session_id, session_epoch=epoch,
        topics=[fr.FetchTopic(topic=name, partitions=ps) for name, ps in topics.items()],
        forgotten_topics_data=[] if forget is None else [
            fr.ForgottenTopic(topic=forget[0], partitions=list(forget[1]))],
    )


def fetch_by_id(*topics: tuple[uuid.UUID, tuple[int, ...]], offset: int = 0,
                current_leader_epoch: int = -1) -> fr.FetchRequest:
    """A consumer's Fetch v13+, naming each topic by id: ``topics`` are (topic id,
    partitions)."""
    return fr.FetchRequest(
        replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=50 << 20,
        session_id=0, session_epoch=-1,
        topics=[fr.FetchTopic(topic_id=topic_id, partitions=[fr.FetchPartition(
            partition=p, fetch_offset=offset, partition_max_bytes=1 << 20,
            current_leader_epoch=current_leader_epoch) for p in partitions])
            for topic_id, partitions in topics],
    )


def offset_for_leader_epoch(name: str, *queries: tuple[int, int, int],
                            replica_id: int = -1) -> ofle.OffsetForLeaderEpochRequest:
    """``queries`` are ``(partition, current leader epoch, leader epoch)``."""
    return ofle.OffsetForLeaderEpochRequest(replica_id=replica_id, topics=[
        ofle.OffsetForLeaderTopic(topic=name, partitions=[
            ofle.OffsetForLeaderPartition(partition=p, current_leader_epoch=c, leader_epoch=e)
            for p, c, e in queries])])


def list_offsets(name: str, *queries: tuple[int, int], isolation_level: int = 0,
                 max_num_offsets: int = 1) -> lo.ListOffsetsRequest:
    """``queries`` are ``(partition, timestamp)``; -1 latest, -2 earliest, -3 max timestamp.
    ``max_num_offsets`` is v0's."""
    parts = [lo.ListOffsetsPartition(partition_index=p, timestamp=t,
                                     max_num_offsets=max_num_offsets) for p, t in queries]
    return lo.ListOffsetsRequest(replica_id=-1, isolation_level=isolation_level,
                                 topics=[lo.ListOffsetsTopic(name=name, partitions=parts)])
