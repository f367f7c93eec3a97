"""Which log the cleaner cleans next, and where each log's clean section ends (Kafka's
``LogCleanerManager``): the ``cleaner-offset-checkpoint`` of each log dir, a log's clean and dirty
sections measured against its configs, and the choice of the filthiest compacted log."""

from __future__ import annotations

import bisect
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pybroker.kernel.types import TopicPartition

from .checkpoints import CheckpointError, read_offset_checkpoint, write_offset_checkpoint
from .log import Log
from .manager import LogManager
from .segment import LogSegment

# the cleaner logs under one name, whichever of its parts speaks
logger = logging.getLogger("pybroker.log.cleaner")

CLEANER_CHECKPOINT = "cleaner-offset-checkpoint"


# -- what to clean ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LogToClean:
    """A log's clean and dirty sections as the cleaner measured them (Kafka's ``LogToClean``)."""

    topic: str
    partition: int
    log: Log
    first_dirty_offset: int
    first_uncleanable_offset: int
    clean_bytes: int
    cleanable_bytes: int
    need_compaction_now: bool  # a dirty record is older than max.compaction.lag.ms
    #: how far past max.compaction.lag.ms its oldest dirty batch is (0: not past it)
    max_compaction_delay_ms: int = 0

    @property
    def total_bytes(self) -> int:
        return self.clean_bytes + self.cleanable_bytes

    @property
    def cleanable_ratio(self) -> float:
        return self.cleanable_bytes / self.total_bytes if self.total_bytes else 0.0

    @property
    def is_cleanable(self) -> bool:
        if self.need_compaction_now and self.cleanable_bytes > 0:
            return True
        return self.cleanable_ratio > self.log.config.min_cleanable_dirty_ratio


def _segments_from(segments: Sequence[LogSegment], start: int, end: int) -> list[LogSegment]:
    """The segments of a log (all of them, in order) holding offsets in ``[start, end)``
    (Kafka's ``logSegments(from, to)``)."""
    i = max(0, bisect.bisect_right([s.base_offset for s in segments], start) - 1)
    return [s for s in segments[i:] if s.base_offset < end]


def _first_batch_timestamp(segment: LogSegment) -> int:
    header = segment.header_at(0) if segment.size else None
    return header.max_timestamp if header is not None else -1


def measure(
    topic: str, partition: int, log: Log, checkpoint: int | None, now_ms: int
) -> LogToClean:
    """Kafka's ``cleanableOffsets`` + ``calculateCleanableBytes`` + ``maxCompactionDelay``."""
    cfg = log.config
    segments = list(log.segments)
    active = segments[-1]
    start = log.log_start_offset
    if checkpoint is None or checkpoint < start or checkpoint > log.log_end_offset:
        first_dirty = start
    else:
        first_dirty = checkpoint
    dirty = _segments_from(segments, first_dirty, active.base_offset)  # never the active one

    uncleanable = active.base_offset
    # never past the last stable offset: open transactions (and decided ones not yet
    # replicated) are left as they are
    first_unstable = log.producer_state.first_unstable_offset()
    if first_unstable is not None:
        uncleanable = min(uncleanable, max(first_unstable, start))
    if cfg.min_compaction_lag_ms > 0:
        too_new = next(
            (s for s in dirty if s.largest_timestamp() > now_ms - cfg.min_compaction_lag_ms), None
        )
        if too_new is not None:
            uncleanable = min(uncleanable, too_new.base_offset)
    # Snap to the start of the segment holding it: only whole segments are cleaned.
    uncleanable = max(first_dirty, uncleanable)
    after = _segments_from(segments, uncleanable, active.base_offset)
    uncleanable = after[0].base_offset if after else active.base_offset

    cleanable_bytes = sum(s.size for s in _segments_from(segments, min(first_dirty, uncleanable), uncleanable))
    clean_bytes = sum(s.size for s in segments if s.base_offset < first_dirty)

    need_now = False
    delay_ms = 0
    clean_until = now_ms - cfg.max_compaction_lag_ms
    if clean_until > 0:
        stamps = [ts for ts in map(_first_batch_timestamp, dirty) if ts > 0]
        need_now = bool(stamps) and min(stamps) < clean_until
        delay_ms = max(0, clean_until - min(stamps)) if stamps else 0
    return LogToClean(topic, partition, log, first_dirty, uncleanable, clean_bytes, cleanable_bytes, need_now,
                      delay_ms)


class LogCleanerManager:
    """The cleaner checkpoints and the choice of a log: the part of
    :class:`~pybroker.log.cleaner.LogCleaner` Kafka calls ``LogCleanerManager``. The cleaner's
    ``__init__`` sets these attributes."""

    log_manager: LogManager
    uncleanable: set[TopicPartition]  # failed with an error; skipped until restart
    #: the largest max_compaction_delay_ms of the logs the last choice measured
    max_compaction_delay_ms: int = 0
    _first_dirty: dict[TopicPartition, tuple[Log, int]] | None

    # -- checkpoints -------------------------------------------------------------------------

    def _checkpoints(self) -> dict[TopicPartition, tuple[Log, int]]:
        """First dirty offsets, read from the log dirs on first use and bound to the log
        objects then open (a partition deleted and created again starts dirty)."""
        if self._first_dirty is None:
            self._first_dirty = {}
            manager = self.log_manager
            for log_dir in manager.log_dirs:
                try:
                    entries = read_offset_checkpoint(log_dir / CLEANER_CHECKPOINT)
                except CheckpointError as e:
                    logger.warning("Ignoring unreadable cleaner checkpoint (logs will be cleaned again): %s", e)
                    continue
                for tp, offset in entries.items():
                    log = manager.get_log(*tp)
                    if log is not None and manager.log_dir_of(*tp) == log_dir:
                        self._first_dirty[tp] = (log, offset)
        return self._first_dirty

    def checkpoint_of(self, topic: str, partition: int) -> int | None:
        """The first dirty offset recorded for a partition's current log, if any."""
        entry = self._checkpoints().get((topic, partition))
        log = self.log_manager.get_log(topic, partition)
        return entry[1] if entry is not None and entry[0] is log else None

    def _update_checkpoint(self, topic: str, partition: int, log: Log, offset: int) -> None:
        checkpoints = self._checkpoints()
        checkpoints[(topic, partition)] = (log, offset)
        log_dir = self.log_manager.log_dir_of(topic, partition)
        if log_dir is not None:
            self._write_checkpoint(log_dir)

    def _write_checkpoint(self, log_dir: Path) -> None:
        manager = self.log_manager
        current = {
            tp: offset
            for tp, (entry_log, offset) in self._checkpoints().items()
            if manager.get_log(*tp) is entry_log and manager.log_dir_of(*tp) == log_dir
        }
        write_offset_checkpoint(log_dir / CLEANER_CHECKPOINT, current)

    def _on_log_replaced(self, tp: TopicPartition, old: Log, new: Log) -> None:
        """A move to another log dir completed: the first dirty offset holds for the copy too
        (cleaning was paused while it was made), so it moves to the new dir's checkpoint and
        leaves the old one's (Kafka's ``alterCheckpointDir``)."""
        entry = self._checkpoints().get(tp)
        if entry is None or entry[0] is not old:
            return
        self._first_dirty = {**self._checkpoints(), tp: (new, entry[1])}
        for log_dir in {old.dir.parent, new.dir.parent}:
            if log_dir in self.log_manager.log_dirs:
                self._write_checkpoint(log_dir)

    # -- choosing a log ----------------------------------------------------------------------

    def grab_filthiest_log(self, now_ms: int) -> LogToClean | None:
        """The cleanable compacted log with the highest dirty ratio, if any."""
        best: LogToClean | None = None
        self.max_compaction_delay_ms = 0
        manager = self.log_manager
        for (topic, partition), log in manager.all_logs().items():
            if "compact" not in log.config.cleanup_policy.split(",") or (topic, partition) in self.uncleanable:
                continue
            if manager.is_cleaning_paused(topic, partition):  # being moved to another log dir
                continue
            ltc = measure(topic, partition, log, self.checkpoint_of(topic, partition), now_ms)
            # Kafka's PreCleanStats: the worst delay among the compacted logs looked at
            self.max_compaction_delay_ms = max(self.max_compaction_delay_ms,
                                               ltc.max_compaction_delay_ms)
            if ltc.total_bytes == 0 or not ltc.is_cleanable:
                continue
            if best is None or ltc.cleanable_ratio > best.cleanable_ratio:
                best = ltc
        return best


__all__ = [
    "CLEANER_CHECKPOINT",
    "LogCleanerManager",
    "LogToClean",
    "measure",
]
