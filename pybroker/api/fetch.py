"""Fetch (1): whole batches from the segment files, long-polling on max_wait_ms/min_bytes.

Fetch sessions (KIP-227) are declined by answering session id 0, which every client accepts. A
follower (a replica id) reads up to the log end; from v12 a fetch names the epoch of its last
batch, and when the fetcher's log parts from this one before its fetch offset the answer for
that partition is the diverging epoch (``DivergingEpoch``) with no records, for the fetcher to
truncate first.

From v13 (KIP-516) topics are named by id, both ways: an id is resolved through the metadata
cache, a partition of an id it does not know is answered UNKNOWN_TOPIC_ID (after the partitions
that were read, as Kafka orders them), and a partition hosted here under another id than the
one asked for (a topic recreated under the same name) INCONSISTENT_TOPIC_ID. From v15 (KIP-903)
a follower names itself and its broker epoch in the tagged ``ReplicaState``. From v16 (KIP-951)
a partition answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH carries the leader and epoch
this broker knows (``CurrentLeader``), and the answer the endpoints of those leaders that are
alive (``NodeEndpoints``). v17 adds the follower's ``ReplicaDirectoryId`` (KIP-853), accepted
and not used. Records go out by sendfile at every version.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, fetch_request as req, fetch_response as m
from protocol.primitives import ZERO_UUID
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.cluster.replica_manager import FetchParams, FetchRequestPartition, FetchResult
from pybroker.purgatory import when_ready

NO_SESSION = 0
FINAL_EPOCH = -1
ZSTD_MIN_VERSION = 10
LAST_FETCHED_EPOCH_MIN_VERSION = 12
TOPIC_IDS_MIN_VERSION = 13
REPLICA_STATE_MIN_VERSION = 15
CURRENT_LEADER_MIN_VERSION = 16
READ_COMMITTED = 1
UNKNOWN_OFFSET = -1
NO_LEADER = -1
REFUSED_BEFORE_READING = frozenset({ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                    ErrorCode.UNKNOWN_TOPIC_ID,
                                    ErrorCode.UNSUPPORTED_COMPRESSION_TYPE})
#: the errors a v16+ answer names the current leader with (KIP-951)
LEADER_MOVED = frozenset({ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH})


@dataclass(slots=True)
class _Answer:
    """One partition of the answer: its topic as the request named it, and what was found."""

    topic: str
    topic_id: uuid.UUID
    partition: int
    result: FetchResult


def _wanted(ctx: RequestContext, request: req.FetchRequest, replica_id: int,
            ) -> tuple[list[FetchRequestPartition], list[_Answer]]:
    """The partitions to read, and those refused before reading: from v13, the partitions of
    topic ids the metadata cache does not know (UNKNOWN_TOPIC_ID).

    A follower's fetch may also name a topic by the id LeaderAndIsr gave this broker's own
    partitions: the controller sends a new topic's LeaderAndIsr before its UpdateMetadata, so a
    follower's first fetch can come before the metadata cache knows the id. Kafka answers that
    fetch UNKNOWN_TOPIC_ID and the follower waits ``replica.fetch.backoff.ms`` (a second) before
    the first acks=all produce to a new topic can complete; the ids of hosted partitions close
    that gap. Consumers get Kafka's answer."""
    version = ctx.api_version
    with_epochs = version >= LAST_FETCHED_EPOCH_MIN_VERSION
    by_id = version >= TOPIC_IDS_MIN_VERSION
    wanted: list[FetchRequestPartition] = []
    unknown: list[_Answer] = []
    for topic in request.topics:
        name: str | None = topic.topic
        if by_id:
            name = ctx.services.metadata_cache.topic_name(topic.topic_id)
            if name is None and replica_id >= 0:
                name = ctx.services.replica_manager.hosted_topic_name(topic.topic_id)
            if name is None:
                unknown.extend(
                    _Answer("", topic.topic_id, p.partition,
                            FetchResult(error=ErrorCode.UNKNOWN_TOPIC_ID))
                    for p in topic.partitions)
                continue
        assert name is not None
        wanted.extend(
            FetchRequestPartition(name, p.partition, p.fetch_offset, p.partition_max_bytes,
                                  p.current_leader_epoch,
                                  last_fetched_epoch=p.last_fetched_epoch if with_epochs else -1,
                                  log_start_offset=p.log_start_offset,
                                  topic_id=topic.topic_id if by_id else None)
            for p in topic.partitions)
    return wanted, unknown


def _refuse_zstd_topics(ctx: RequestContext, answers: list[_Answer]) -> None:
    """Fetch below v10 cannot carry zstd. Like Kafka, the refusal goes by the topic's
    ``compression.type``: a zstd topic answers UNSUPPORTED_COMPRESSION_TYPE to old fetchers,
    while zstd batches a producer chose in a ``producer`` topic are served as they are."""
    zstd: dict[str, bool] = {}
    for a in answers:
        if a.result.error != ErrorCode.NONE:
            continue
        if a.topic not in zstd:
            zstd[a.topic] = ctx.services.configs.log_config(a.topic).compression_type == "zstd"
        if zstd[a.topic]:
            a.result.error = ErrorCode.UNSUPPORTED_COMPRESSION_TYPE


def current_leader(ctx: RequestContext, topic: str, partition: int) -> tuple[int, int]:
    """The leader and leader epoch this broker knows for a partition (Kafka's
    ``getCurrentLeader``): the hosted partition's own, else the metadata cache's, else none."""
    hosted = ctx.services.replica_manager.get_partition(topic, partition)
    if hosted is not None and hosted.log is not None:
        return hosted.leader_id, hosted.leader_epoch
    info = ctx.services.metadata_cache.partition(topic, partition)
    if info is not None:
        return info.leader, info.leader_epoch
    return NO_LEADER, -1


def _partition_data(a: _Answer, read_committed: bool) -> m.PartitionData:
    r = a.result
    if r.error == ErrorCode.NONE:
        data = m.PartitionData(
            partition_index=a.partition,
            error_code=r.error,
            high_watermark=r.high_watermark,
            last_stable_offset=r.last_stable_offset,
            log_start_offset=r.log_start_offset,
            # no transactions are written here, so there is never one to report
            aborted_transactions=[] if read_committed else None,
            preferred_read_replica=-1,
            records=r.records,
        )
        if r.diverging_epoch is not None:
            epoch, end_offset = r.diverging_epoch
            data.diverging_epoch = m.EpochEndOffset(epoch=epoch, end_offset=end_offset)
        return data
    # As Kafka: an erroneous partition reports no offsets. Refusals made before the log is
    # read (unknown partition or topic id, zstd to an old fetcher) carry an empty list of
    # aborted transactions, failed reads none; the zstd refusal has null records.
    refused_early = r.error in REFUSED_BEFORE_READING
    return m.PartitionData(
        partition_index=a.partition, error_code=r.error,
        high_watermark=UNKNOWN_OFFSET, last_stable_offset=UNKNOWN_OFFSET,
        log_start_offset=UNKNOWN_OFFSET,
        aborted_transactions=[] if refused_early else None,
        preferred_read_replica=-1,
        records=None if r.error == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE else b"",
    )


def build_response(ctx: RequestContext, request: req.FetchRequest,
                   answers: list[_Answer]) -> m.FetchResponse:
    """The answer in the order given, consecutive partitions of one topic under one entry (as
    Kafka's ``FetchResponse.of`` groups them), with v16's leader hints."""
    version = ctx.api_version
    read_committed = request.isolation_level == READ_COMMITTED
    by_id = version >= TOPIC_IDS_MIN_VERSION
    hint_leaders = version >= CURRENT_LEADER_MIN_VERSION
    topics: list[m.FetchableTopicResponse] = []
    nodes: dict[int, m.NodeEndpoint] = {}
    for a in answers:
        data = _partition_data(a, read_committed)
        if hint_leaders and a.result.error in LEADER_MOVED:
            leader, epoch = current_leader(ctx, a.topic, a.partition)
            data.current_leader = m.LeaderIdAndEpoch(leader_id=leader, leader_epoch=epoch)
            node = ctx.services.metadata_cache.brokers_for(ctx.listener).get(leader)
            if node is not None:
                nodes[leader] = m.NodeEndpoint(node_id=node.node_id, host=node.host,
                                               port=node.port, rack=node.rack)
        last = topics[-1] if topics else None
        if last is not None and (last.topic_id == a.topic_id if by_id else last.topic == a.topic):
            last.partitions.append(data)
        else:
            topics.append(m.FetchableTopicResponse(topic=a.topic, topic_id=a.topic_id,
                                                   partitions=[data]))
    return m.FetchResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, session_id=NO_SESSION,
                           responses=topics, node_endpoints=[nodes[n] for n in sorted(nodes)])


@api(ApiKey.FETCH, 4, 17)
def handle(ctx: RequestContext, request: req.FetchRequest) -> Response[m.FetchResponse]:
    if request.session_id != NO_SESSION:
        # We never hand out a session, so any id the client names is unknown to us.
        return m.FetchResponse(error_code=ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
                               session_id=NO_SESSION)
    version = ctx.api_version
    # from v15 a follower names itself (and its broker epoch) in a tagged ReplicaState
    replica = request.replica_state if version >= REPLICA_STATE_MIN_VERSION else None
    replica_id = replica.replica_id if replica is not None else request.replica_id
    wanted, unknown = _wanted(ctx, request, replica_id)
    params = FetchParams(
        replica_id=replica_id,
        replica_epoch=replica.replica_epoch if replica is not None else -1,
        max_wait_ms=request.max_wait_ms,
        min_bytes=request.min_bytes,
        max_bytes=request.max_bytes if version >= 3 else 0x7FFFFFFF,
    )
    outcome = ctx.services.replica_manager.fetch_messages(params, wanted, now_ms=ctx.now_ms)

    def respond(results: list[FetchResult]) -> m.FetchResponse:
        answers = [_Answer(w.topic, w.topic_id or ZERO_UUID, w.partition, r)
                   for w, r in zip(wanted, results, strict=True)]
        if version < ZSTD_MIN_VERSION:
            _refuse_zstd_topics(ctx, answers)
        # Kafka answers the partitions it refused before reading after those it read
        return build_response(ctx, request, answers + unknown)

    return when_ready(outcome, respond)
