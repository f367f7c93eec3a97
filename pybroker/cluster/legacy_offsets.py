"""ListOffsets v0's answer: the old "offsets before a time" lookup, as Kafka 3.9 keeps it
for v0 (``UnifiedLog.legacyFetchOffsetsBefore`` and ``Partition.legacyFetchOffsetsForTimestamp``).

v0 asks for up to ``max_num_offsets`` offsets and goes by segment files, not record
timestamps: the candidates are each segment's base offset (at least the log start), paired with
the segment file's last-modified time, then the log end offset paired with *now* when the last
segment holds any bytes. LATEST (-1) starts from the last candidate, EARLIEST (-2) from the
first, a time from the last candidate modified at or before it; the answer walks back from
there, newest first. A consumer never sees an offset above the high watermark: those are
replaced by the high watermark.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pybroker.cluster.partition import (
    CONSUMER_REPLICA_ID,
    DEBUGGING_REPLICA_ID,
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
)

if TYPE_CHECKING:
    from pybroker.cluster.partition import Partition


def offsets_before(candidates: list[tuple[int, int]], timestamp: int,
                   max_num_offsets: int) -> list[int]:
    """The offsets of ``candidates`` (``(offset, last modified ms)``, oldest first) that v0
    answers for ``timestamp``, largest first."""
    if timestamp == LATEST_TIMESTAMP:
        start = len(candidates) - 1
    elif timestamp == EARLIEST_TIMESTAMP:
        start = 0
    else:
        start = len(candidates) - 1
        while start >= 0 and candidates[start][1] > timestamp:
            start -= 1
    count = max(0, min(max_num_offsets, start + 1))
    return sorted((candidates[start - j][0] for j in range(count)), reverse=True)


def bounded_by_high_watermark(offsets: list[int], high_watermark: int) -> list[int]:
    """A consumer's view: offsets above the high watermark give way to it."""
    if not any(o > high_watermark for o in offsets):
        return offsets
    return [high_watermark] + [o for o in offsets if o <= high_watermark]


def legacy_fetch_offsets(partition: Partition, timestamp: int, max_num_offsets: int,
                         replica_id: int, now_ms: int) -> list[int]:
    """ListOffsets v0 for one partition; raises the role errors a v4- lookup raises."""
    log = partition.local_log_with_epoch(-1, require_leader=replica_id != DEBUGGING_REPLICA_ID)
    start = log.log_start_offset
    segments = log.segments
    candidates = [(max(s.base_offset, start), os.stat(s.log_path).st_mtime_ns // 1_000_000)
                  for s in segments]
    if segments and segments[-1].size > 0:
        candidates.append((log.log_end_offset, now_ms))
    offsets = offsets_before(candidates, timestamp, max_num_offsets)
    if replica_id == CONSUMER_REPLICA_ID:
        offsets = bounded_by_high_watermark(offsets, partition.high_watermark)
    return offsets
