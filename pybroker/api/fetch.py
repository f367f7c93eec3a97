"""Fetch (1): whole batches from the segment files, long-polling on max_wait_ms/min_bytes.

Fetch sessions (KIP-227) are declined by answering session id 0, which every client accepts;
v13+ (topic ids) is not offered, so clients fetch by name. A follower (a replica id) reads up to
the log end; from v12 a fetch names the epoch of its last batch, and when the fetcher's log
parts from this one before its fetch offset the answer for that partition is the diverging
epoch (``DivergingEpoch``) with no records, for the fetcher to truncate first.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, fetch_request as req, fetch_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.cluster.replica_manager import FetchParams, FetchRequestPartition, FetchResult
from pybroker.purgatory import when_ready

NO_SESSION = 0
FINAL_EPOCH = -1
ZSTD_MIN_VERSION = 10
LAST_FETCHED_EPOCH_MIN_VERSION = 12
READ_COMMITTED = 1
UNKNOWN_OFFSET = -1
REFUSED_BEFORE_READING = frozenset({ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                    ErrorCode.UNSUPPORTED_COMPRESSION_TYPE})


def _refuse_zstd_topics(ctx: RequestContext, request: req.FetchRequest,
                        results: list[FetchResult]) -> None:
    """Fetch below v10 cannot carry zstd. Like Kafka, the refusal goes by the topic's
    ``compression.type``: a zstd topic answers UNSUPPORTED_COMPRESSION_TYPE to old fetchers,
    while zstd batches a producer chose in a ``producer`` topic are served as they are."""
    it = iter(results)
    for topic in request.topics:
        served = [r for r in (next(it) for _ in topic.partitions) if r.error == ErrorCode.NONE]
        if served and ctx.services.configs.log_config(topic.topic).compression_type == "zstd":
            for r in served:
                r.error = ErrorCode.UNSUPPORTED_COMPRESSION_TYPE


def _response(request: req.FetchRequest, results: list[FetchResult]) -> m.FetchResponse:
    read_committed = request.isolation_level == READ_COMMITTED
    by_topic: list[m.FetchableTopicResponse] = []
    it = iter(results)
    for topic in request.topics:
        partitions = []
        for p in topic.partitions:
            r = next(it)
            if r.error == ErrorCode.NONE:
                data = m.PartitionData(
                    partition_index=p.partition,
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
                partitions.append(data)
            else:
                # As Kafka: an erroneous partition reports no offsets. Refusals made before the
                # log is read (unknown partition, zstd to an old fetcher) carry an empty list of
                # aborted transactions, failed reads none; the zstd refusal has null records.
                refused_early = r.error in REFUSED_BEFORE_READING
                partitions.append(m.PartitionData(
                    partition_index=p.partition, error_code=r.error,
                    high_watermark=UNKNOWN_OFFSET, last_stable_offset=UNKNOWN_OFFSET,
                    log_start_offset=UNKNOWN_OFFSET,
                    aborted_transactions=[] if refused_early else None,
                    preferred_read_replica=-1,
                    records=None if r.error == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE else b"",
                ))
        by_topic.append(m.FetchableTopicResponse(topic=topic.topic, partitions=partitions))
    return m.FetchResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, session_id=NO_SESSION,
                           responses=by_topic)


@api(ApiKey.FETCH, 4, 12)
def handle(ctx: RequestContext, request: req.FetchRequest) -> Response[m.FetchResponse]:
    if request.session_id != NO_SESSION:
        # We never hand out a session, so any id the client names is unknown to us.
        return m.FetchResponse(error_code=ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
                               session_id=NO_SESSION)
    version = ctx.api_version
    with_epochs = version >= LAST_FETCHED_EPOCH_MIN_VERSION
    wanted = [
        FetchRequestPartition(topic.topic, p.partition, p.fetch_offset, p.partition_max_bytes,
                              p.current_leader_epoch,
                              last_fetched_epoch=p.last_fetched_epoch if with_epochs else -1,
                              log_start_offset=p.log_start_offset)
        for topic in request.topics for p in topic.partitions
    ]
    # from v15 a follower names itself (and its broker epoch) in a tagged ReplicaState
    replica = request.replica_state if version >= 15 else None
    params = FetchParams(
        replica_id=replica.replica_id if replica is not None else request.replica_id,
        replica_epoch=replica.replica_epoch if replica is not None else -1,
        max_wait_ms=request.max_wait_ms,
        min_bytes=request.min_bytes,
        max_bytes=request.max_bytes if version >= 3 else 0x7FFFFFFF,
    )
    outcome = ctx.services.replica_manager.fetch_messages(params, wanted, now_ms=ctx.now_ms)

    def respond(results: list[FetchResult]) -> m.FetchResponse:
        if version < ZSTD_MIN_VERSION:
            _refuse_zstd_topics(ctx, request, results)
        return _response(request, results)

    return when_ready(outcome, respond)
