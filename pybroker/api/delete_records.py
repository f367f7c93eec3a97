"""DeleteRecords (21): move partitions' log start offsets forward (-1 = the high watermark)."""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import delete_records_response as m
from pybroker.api.registry import api

HIGH_WATERMARK = -1


def _delete(ctx, topic: str, partition_index: int, offset: int) -> tuple[int, ErrorCode]:
    broker = ctx.broker
    partition = broker.replica_manager.get_partition(topic, partition_index)
    if partition is None:
        return -1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    try:
        log = partition.leader_log()
        target = partition.high_watermark if offset == HIGH_WATERMARK else offset
        if target < 0 or target > partition.high_watermark:
            raise KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE)
        if "delete" not in log.config.cleanup_policy.split(","):
            raise KafkaError(ErrorCode.POLICY_VIOLATION,
                             "Records of partitions of compacted topics cannot be deleted")
        low = log.delete_records_before(target, ctx.now_ms)
    except KafkaError as e:
        return -1, e.code
    return low, ErrorCode.NONE


@api(21, 0, 2)
def handle(ctx, request) -> m.DeleteRecordsResponse:
    topics = []
    for t in request.topics:
        partitions = []
        for p in t.partitions:
            low, error = _delete(ctx, t.name, p.partition_index, p.offset)
            partitions.append(m.DeleteRecordsPartitionResult(
                partition_index=p.partition_index, low_watermark=low, error_code=error))
        topics.append(m.DeleteRecordsTopicResult(name=t.name, partitions=partitions))
    # The new log start offsets are durable before the client hears of them.
    ctx.broker.log_manager.checkpoint()
    return m.DeleteRecordsResponse(throttle_time_ms=0, topics=topics)
