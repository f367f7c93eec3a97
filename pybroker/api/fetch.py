"""Fetch (1): whole batches from the segment files, long-polling on max_wait_ms/min_bytes.

Fetch sessions (KIP-227) are Kafka's (:mod:`pybroker.cluster.fetch_session`): a full fetch at
epoch 0 opens one when the cache has room, an incremental fetch reads every partition of its
session and answers those with news. A
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
and not used. From v4 records go out by sendfile, as they are in the segment files.

v0-v3 know only the old message formats: their answers are read as for v4 and the records
converted down (:mod:`pybroker.api.fetch_legacy`); these versions carry no log start offset,
last stable offset or aborted transactions, and v0-v2 no ``max_bytes``.

From v4 every answer carries the partition's last stable offset. A consumer fetching with
``isolation_level`` 1 (read_committed, KIP-98) reads below it and gets the aborted transactions
overlapping the batches it was sent (an empty list when none), whose records it drops itself;
read_uncommitted answers have none (null), as Kafka's.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable
from dataclasses import dataclass

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, fetch_request as req, fetch_response as m
from protocol.primitives import ZERO_UUID
from pybroker.api import fetch_legacy
from pybroker.api.context import RequestContext
from pybroker.api.leader_hints import current_leader, leader_endpoint
from pybroker.api.registry import api
from pybroker.cluster.fetch_session import CachedPartition, PartitionKey
from pybroker.cluster.replica_fetch import FetchParams, FetchRequestPartition, FetchResult
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation, ResourceType

NO_SESSION = 0
FINAL_EPOCH = -1
ZSTD_MIN_VERSION = 10
#: up to v2 a fetch never gets more than partition_max_bytes, not even one batch (KIP-74 is v3)
HARD_MAX_BYTES_MAX_VERSION = 2
LAST_FETCHED_EPOCH_MIN_VERSION = 12
TOPIC_IDS_MIN_VERSION = 13
REPLICA_STATE_MIN_VERSION = 15
CURRENT_LEADER_MIN_VERSION = 16
READ_COMMITTED = 1
UNKNOWN_OFFSET = -1
REFUSED_BEFORE_READING = frozenset({ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                    ErrorCode.UNKNOWN_TOPIC_ID,
                                    ErrorCode.TOPIC_AUTHORIZATION_FAILED,
                                    ErrorCode.UNSUPPORTED_COMPRESSION_TYPE})
#: the bytes of a partition's answer besides its records (index, error, offsets, lists)
PARTITION_OVERHEAD = 46
#: the errors a v16+ answer names the current leader with (KIP-951)
LEADER_MOVED = frozenset({ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH})


@dataclass(slots=True)
class _Answer:
    """One partition of the answer: its topic as the request named it, and what was found."""

    topic: str
    topic_id: uuid.UUID
    partition: int
    result: FetchResult


def _requested(ctx: RequestContext, request: req.FetchRequest, replica_id: int,
               ) -> list[CachedPartition]:
    """The partitions the request names, with their topic names; from v13 a topic id the
    metadata cache does not know has none (it is answered UNKNOWN_TOPIC_ID).

    A follower's fetch may also name a topic by the id LeaderAndIsr gave this broker's own
    partitions: the controller sends a new topic's LeaderAndIsr before its UpdateMetadata, so a
    follower's first fetch can come before the metadata cache knows the id. Kafka answers that
    fetch UNKNOWN_TOPIC_ID and the follower waits ``replica.fetch.backoff.ms`` (a second) before
    the first acks=all produce to a new topic can complete; the ids of hosted partitions close
    that gap. Consumers get Kafka's answer."""
    version = ctx.api_version
    with_epochs = version >= LAST_FETCHED_EPOCH_MIN_VERSION
    by_id = version >= TOPIC_IDS_MIN_VERSION
    requested: list[CachedPartition] = []
    for topic in request.topics:
        name: str | None = topic.topic
        topic_id = ZERO_UUID
        if by_id:
            topic_id = topic.topic_id
            name = _topic_name(ctx, topic_id, replica_id)
        requested.extend(
            CachedPartition(name, topic_id, p.partition, p.fetch_offset, p.partition_max_bytes,
                            p.current_leader_epoch,
                            last_fetched_epoch=p.last_fetched_epoch if with_epochs else -1,
                            log_start_offset=p.log_start_offset)
            for p in topic.partitions)
    return requested


def _topic_name(ctx: RequestContext, topic_id: uuid.UUID, replica_id: int) -> str | None:
    name = ctx.services.metadata_cache.topic_name(topic_id)
    if name is None and replica_id >= 0:
        name = ctx.services.replica_manager.hosted_topic_name(topic_id)
    return name


def _forgotten(request: req.FetchRequest, by_id: bool) -> list[PartitionKey]:
    return [(t.topic_id if by_id else t.topic, p)
            for t in request.forgotten_topics_data for p in t.partitions]


def _refuse_zstd_topics(ctx: RequestContext,
                        answers: list[tuple[CachedPartition, FetchResult]]) -> None:
    """Fetch below v10 cannot carry zstd. Like Kafka, the refusal goes by the topic's
    ``compression.type``: a zstd topic answers UNSUPPORTED_COMPRESSION_TYPE to old fetchers,
    while zstd batches a producer chose in a ``producer`` topic are served as they are."""
    zstd: dict[str, bool] = {}
    for p, result in answers:
        if result.error != ErrorCode.NONE or p.topic is None:
            continue
        if p.topic not in zstd:
            zstd[p.topic] = ctx.services.configs.log_config(p.topic).compression_type == "zstd"
        if zstd[p.topic]:
            result.error = ErrorCode.UNSUPPORTED_COMPRESSION_TYPE


def _aborted(r: FetchResult, read_committed: bool) -> list[m.AbortedTransaction] | None:
    if not read_committed:
        return None
    return [m.AbortedTransaction(producer_id=t.producer_id, first_offset=t.first_offset)
            for t in r.aborted_transactions or ()]


def _partition_data(a: _Answer, read_committed: bool) -> m.PartitionData:
    r = a.result
    if r.error == ErrorCode.NONE:
        data = m.PartitionData(
            partition_index=a.partition,
            error_code=r.error,
            high_watermark=r.high_watermark,
            last_stable_offset=r.last_stable_offset,
            log_start_offset=r.log_start_offset,
            aborted_transactions=_aborted(r, read_committed),
            preferred_read_replica=-1,
            records=r.records,
        )
        if r.diverging_epoch is not None:
            epoch, end_offset = r.diverging_epoch
            data.diverging_epoch = m.EpochEndOffset(epoch=epoch, end_offset=end_offset)
        return data
    # As Kafka: an erroneous partition reports no offsets. Refusals made before the log is
    # read (unknown partition or topic id, not authorized, zstd to an old fetcher) carry an empty list of
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


def build_response(ctx: RequestContext, request: req.FetchRequest, answers: list[_Answer],
                   session_id: int = NO_SESSION) -> m.FetchResponse:
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
            node = leader_endpoint(ctx, leader)
            if node is not None:
                nodes[leader] = m.NodeEndpoint(node_id=node.node_id, host=node.host,
                                               port=node.port, rack=node.rack)
        last = topics[-1] if topics else None
        if last is not None and (last.topic_id == a.topic_id if by_id else last.topic == a.topic):
            last.partitions.append(data)
        else:
            topics.append(m.FetchableTopicResponse(topic=a.topic, topic_id=a.topic_id,
                                                   partitions=[data]))
    return m.FetchResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, session_id=session_id,
                           responses=topics, node_endpoints=[nodes[n] for n in sorted(nodes)])


def _throttle(ctx: RequestContext, pairs: list[tuple[CachedPartition, FetchResult]]) -> int:
    """Charge a consumer's answer to its byte-rate quota before it is sent (Kafka's
    ``handleFetchRequest``): the throttle time. A throttled answer carries no records, so its
    bytes are taken back, and the connection reads nothing more for that time. The size
    charged is the records' and a partition header's each (Kafka charges the encoded
    response; the records are nearly all of it)."""
    fetch_quota = ctx.services.quotas.fetch
    size = sum(len(r.records) + PARTITION_OVERHEAD for _, r in pairs)
    user, client_id = ctx.principal.name, ctx.client_id or ""
    now_ms = fetch_quota.clock.milliseconds()
    throttle_ms = fetch_quota.record(user, client_id, size, now_ms)
    if throttle_ms:
        fetch_quota.unrecord(user, client_id, size, now_ms)
        fetch_quota.throttled(user, client_id, throttle_ms, now_ms)
        ctx.throttle_ms = max(ctx.throttle_ms, throttle_ms)
    return throttle_ms


@api(ApiKey.FETCH, 0, 17)
def handle(ctx: RequestContext, request: req.FetchRequest,
           ) -> m.FetchResponse | Awaitable[m.FetchResponse]:
    version = ctx.api_version
    # from v15 a follower names itself (and its broker epoch) in a tagged ReplicaState
    replica = request.replica_state if version >= REPLICA_STATE_MIN_VERSION else None
    replica_id = replica.replica_id if replica is not None else request.replica_id
    by_id = version >= TOPIC_IDS_MIN_VERSION
    session = ctx.services.fetch_sessions.new_context(
        version, request.session_id, request.session_epoch, privileged=replica_id >= 0,
        requested=_requested(ctx, request, replica_id), forgotten=_forgotten(request, by_id),
        resolve=lambda topic_id: _topic_name(ctx, topic_id, replica_id), now_ms=ctx.now_ms)
    if session.error != ErrorCode.NONE:
        return m.FetchResponse(error_code=session.error, session_id=NO_SESSION)
    readable = [p for p in session.partitions if p.topic is not None]
    unknown = [p for p in session.partitions if p.topic is None]
    # followers need CLUSTER_ACTION on the cluster, consumers READ on each topic
    acls = ctx.services.acls
    if replica_id >= 0:
        allowed = ({p.topic for p in readable if p.topic is not None}
                   if acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION) else set())
    else:
        allowed = acls.authorized(ctx, AclOperation.READ, ResourceType.TOPIC,
                                  (p.topic for p in readable if p.topic is not None))
    denied = [p for p in readable if p.topic not in allowed]
    readable = [p for p in readable if p.topic in allowed]
    wanted = [FetchRequestPartition(p.topic, p.partition, p.fetch_offset, p.max_bytes,
                                    p.current_leader_epoch,
                                    last_fetched_epoch=p.last_fetched_epoch,
                                    log_start_offset=p.log_start_offset,
                                    topic_id=p.topic_id if by_id else None)
              for p in readable if p.topic is not None]  # (narrows the type)
    max_bytes = request.max_bytes if version >= 3 else 0x7FFFFFFF
    min_bytes = request.min_bytes
    fetch_quota = ctx.services.quotas.fetch
    quota_applies = replica_id < 0 and fetch_quota.enabled
    if quota_applies:
        # one fetch may not take more than the quota's whole window (Kafka's
        # getMaxValueInQuotaWindow), so that a throttle is never certain
        window_bytes = fetch_quota.max_value_in_window(ctx.principal.name, ctx.client_id or "")
        if window_bytes < max_bytes:
            max_bytes = int(window_bytes)
            min_bytes = min(min_bytes, max_bytes)
    params = FetchParams(
        replica_id=replica_id,
        replica_epoch=replica.replica_epoch if replica is not None else -1,
        max_wait_ms=request.max_wait_ms,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        min_one_batch=version > HARD_MAX_BYTES_MAX_VERSION,
        isolation_level=request.isolation_level,
    )
    outcome = ctx.services.replica_manager.fetch_messages(params, wanted, now_ms=ctx.now_ms)

    def respond(results: list[FetchResult]) -> m.FetchResponse:
        # Kafka answers the partitions it refused before reading after those it read
        pairs = list(zip(readable, results, strict=True))
        pairs += [(p, FetchResult(error=ErrorCode.UNKNOWN_TOPIC_ID)) for p in unknown]
        pairs += [(p, FetchResult(error=ErrorCode.TOPIC_AUTHORIZATION_FAILED)) for p in denied]
        if version < ZSTD_MIN_VERSION:
            _refuse_zstd_topics(ctx, pairs)
        if quota_applies:
            throttle_ms = _throttle(ctx, pairs)
            if throttle_ms:
                throttled = session.throttled()
                return m.FetchResponse(throttle_time_ms=throttle_ms, error_code=throttled.error,
                                       session_id=throttled.session_id)
        answer = session.finish(pairs)
        if answer.error != ErrorCode.NONE:
            return m.FetchResponse(error_code=answer.error, session_id=answer.session_id)
        answers = [_Answer(p.topic or "", p.topic_id, p.partition, r)
                   for p, r in answer.partitions]
        return build_response(ctx, request, answers, answer.session_id)

    answered = when_ready(outcome, respond)
    if version <= fetch_legacy.LEGACY_MAX_VERSION:
        offsets = {(p.topic, p.partition): p.fetch_offset for p in wanted}
        return fetch_legacy.down_convert(ctx, answered, offsets, from_follower=replica_id >= 0)
    return answered
