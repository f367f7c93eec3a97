"""DescribeLogDirs (35): each log dir with the size of the partition logs it holds.

As Kafka's ``ReplicaManager.describeLogDirs``: every dir of ``log.dirs`` is listed by its
absolute path, even when it holds none of the partitions asked about; a partition's size is the
sum of its segment files; partitions asked about that are not hosted are left out, and so is a
topic with none left. A dir that cannot be used answers KAFKA_STORAGE_ERROR and nothing else.
v4 adds the size and the free space of the dir's file system.
"""

from __future__ import annotations

import os
from pathlib import Path

from protocol.errors import ErrorCode
from protocol.messages import describe_log_dirs_response as m
from pybroker.api.registry import api

LONG_MAX = (1 << 63) - 1
INVALID_OFFSET_LAG = -1


def _offset_lag(ctx, topic: str, partition_index: int, log_end_offset: int) -> int:
    """How far the high watermark is ahead of the log end (0 on a leader)."""
    partition = ctx.broker.replica_manager.get_partition(topic, partition_index)
    if partition is None or partition.log is None:
        return INVALID_OFFSET_LAG
    return max(partition.high_watermark - log_end_offset, 0)


def _volume(log_dir: Path) -> os.statvfs_result | None:
    try:
        return os.statvfs(log_dir)
    except OSError:
        return None


def _describe_dir(ctx, log_dir: Path,
                  wanted: set[tuple[str, int]] | None) -> m.DescribeLogDirsResult:
    logs = ctx.broker.log_manager
    result = m.DescribeLogDirsResult(log_dir=str(log_dir.absolute()))
    fs = _volume(log_dir) if logs.is_log_dir_online(log_dir) else None
    if fs is None:
        result.error_code = ErrorCode.KAFKA_STORAGE_ERROR
        return result
    by_topic: dict[str, list[m.DescribeLogDirsPartition]] = {}
    for (topic, partition), log in sorted(logs.all_logs().items()):
        if logs.log_dir_of(topic, partition) != log_dir:
            continue
        if wanted is not None and (topic, partition) not in wanted:
            continue
        by_topic.setdefault(topic, []).append(m.DescribeLogDirsPartition(
            partition_index=partition,
            partition_size=log.size_in_bytes,
            offset_lag=_offset_lag(ctx, topic, partition, log.log_end_offset),
            is_future_key=False,
        ))
    result.error_code = ErrorCode.NONE
    result.topics = [m.DescribeLogDirsTopic(name=t, partitions=ps) for t, ps in by_topic.items()]
    result.total_bytes = min(fs.f_frsize * fs.f_blocks, LONG_MAX)
    result.usable_bytes = min(fs.f_frsize * fs.f_bavail, LONG_MAX)
    return result


@api(35, 0, 4)
def handle(ctx, request) -> m.DescribeLogDirsResponse:
    wanted = None if request.topics is None else {
        (t.topic, p) for t in request.topics for p in t.partitions
    }
    return m.DescribeLogDirsResponse(
        throttle_time_ms=0,
        error_code=ErrorCode.NONE,
        results=[_describe_dir(ctx, d, wanted) for d in ctx.broker.log_manager.log_dirs],
    )
