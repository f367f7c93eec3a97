"""Fetch (1): whole batches from the segment files, long-polling on max_wait_ms/min_bytes.

Fetch sessions (KIP-227) are declined by answering session id 0, which every client accepts;
v13+ (topic ids) is not offered, so clients fetch by name.
"""

from __future__ import annotations

import asyncio

from protocol.errors import ErrorCode
from protocol.messages import fetch_response as m
from protocol.records.compression import CompressionType
from protocol.records.record import iter_batches
from pybroker.api.registry import api
from pybroker.cluster.replica_manager import FetchRequestPartition, FetchResult
from pybroker.purgatory import then

NO_SESSION = 0
FINAL_EPOCH = -1
ZSTD_MIN_VERSION = 10


def _has_zstd(records) -> bool:
    data = records if isinstance(records, (bytes, bytearray, memoryview)) else records.read_bytes()
    return any(h.compression == CompressionType.ZSTD for _, h in iter_batches(data))


def _hide_zstd(results: list[FetchResult]) -> list[FetchResult]:
    """Fetch below v10 cannot carry zstd batches: Kafka answers UNSUPPORTED_COMPRESSION_TYPE.
    Only old clients get here, so reading the headers back is an acceptable cost."""
    for r in results:
        if r.error == ErrorCode.NONE and len(r.records) and _has_zstd(r.records):
            r.error = ErrorCode.UNSUPPORTED_COMPRESSION_TYPE
            r.records = b""
    return results


def _response(request, results: list[FetchResult], version: int) -> m.FetchResponse:
    if version < ZSTD_MIN_VERSION:
        results = _hide_zstd(results)
    by_topic: list[m.FetchableTopicResponse] = []
    it = iter(results)
    for topic in request.topics:
        partitions = []
        for p in topic.partitions:
            r = next(it)
            partitions.append(m.PartitionData(
                partition_index=p.partition,
                error_code=r.error,
                high_watermark=r.high_watermark,
                last_stable_offset=r.last_stable_offset,
                log_start_offset=r.log_start_offset,
                aborted_transactions=[] if r.error == ErrorCode.NONE else None,
                preferred_read_replica=-1,
                records=r.records if r.error == ErrorCode.NONE else b"",
            ))
        by_topic.append(m.FetchableTopicResponse(topic=topic.topic, partitions=partitions))
    return m.FetchResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, session_id=NO_SESSION,
                           responses=by_topic)


@api(1, 4, 12)
def handle(ctx, request):
    if request.session_id != NO_SESSION:
        # We never hand out a session, so any id the client names is unknown to us.
        return m.FetchResponse(error_code=ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
                               session_id=NO_SESSION)
    wanted = [
        FetchRequestPartition(topic.topic, p.partition, p.fetch_offset, p.partition_max_bytes,
                              p.current_leader_epoch)
        for topic in request.topics for p in topic.partitions
    ]
    max_bytes = request.max_bytes if ctx.api_version >= 3 else 0x7FFFFFFF
    outcome = ctx.broker.replica_manager.fetch_messages(
        wanted, max_bytes=max_bytes, min_bytes=request.min_bytes,
        max_wait_ms=request.max_wait_ms,
    )
    if isinstance(outcome, asyncio.Future):
        return then(outcome, lambda results: _response(request, results, ctx.api_version))
    return _response(request, outcome, ctx.api_version)
