"""ListOffsets (2): earliest, latest, or the first offset at or after a timestamp."""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import list_offsets_response as m
from pybroker.api.registry import api

LATEST = -1
EARLIEST = -2
MAX_TIMESTAMP = -3  # v7+ (KIP-734)
EARLIEST_LOCAL = -4  # v8+ (KIP-405): no tiered storage here, so the log start offset
LATEST_TIERED = -5  # v9+ (KIP-1005): nothing is tiered, so no offset, as Kafka answers then
READ_COMMITTED = 1


def _lookup(ctx, topic: str, req) -> m.ListOffsetsPartitionResponse:
    resp = m.ListOffsetsPartitionResponse(partition_index=req.partition_index)
    try:
        partition = ctx.broker.replica_manager.get_partition(topic, req.partition_index)
        if partition is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        log = partition.leader_log()
        if ctx.api_version >= 4:
            partition.check_leader_epoch(req.current_leader_epoch)
        ts = req.timestamp
        if ts == LATEST:
            # Consumers see up to the high watermark (the last stable offset, with no transactions).
            offset, found_ts = partition.high_watermark, -1
        elif ts == EARLIEST or (ts == EARLIEST_LOCAL and ctx.api_version >= 8):
            offset, found_ts = log.log_start_offset, -1
        elif ts == LATEST_TIERED and ctx.api_version >= 9:
            offset, found_ts = -1, -1
        elif ts == MAX_TIMESTAMP and ctx.api_version >= 7:
            found = log.max_timestamp_and_offset()
            if found is None or found[0] >= partition.high_watermark:
                offset, found_ts = -1, -1
            else:
                offset, found_ts = found
        elif ts < 0:
            raise KafkaError(ErrorCode.UNSUPPORTED_VERSION,
                             f"timestamp spec {ts} needs a newer ListOffsets version")
        else:
            found = log.offset_for_timestamp(ts)
            if found is None or found[0] >= partition.high_watermark:
                offset, found_ts = -1, -1
            else:
                offset, found_ts = found
    except KafkaError as e:
        resp.error_code = e.code
        if ctx.api_version == 0:
            resp.old_style_offsets = []
        return resp
    resp.error_code = ErrorCode.NONE
    resp.offset = offset
    resp.timestamp = found_ts
    # (no offset found: no epoch either, as Kafka answers)
    resp.leader_epoch = partition.leader_epoch if offset >= 0 else -1
    if ctx.api_version == 0:
        resp.old_style_offsets = [offset] if offset >= 0 else []
    return resp


@api(2, 0, 9)
def handle(ctx, request) -> m.ListOffsetsResponse:
    topics = []
    seen: set[tuple[str, int]] = set()
    for topic in request.topics:
        partitions = []
        for req in topic.partitions:
            key = (topic.name, req.partition_index)
            if key in seen and ctx.api_version >= 1:
                partitions.append(m.ListOffsetsPartitionResponse(
                    partition_index=req.partition_index, error_code=ErrorCode.INVALID_REQUEST))
                continue
            seen.add(key)
            partitions.append(_lookup(ctx, topic.name, req))
        topics.append(m.ListOffsetsTopicResponse(name=topic.name, partitions=partitions))
    return m.ListOffsetsResponse(throttle_time_ms=0, topics=topics)
