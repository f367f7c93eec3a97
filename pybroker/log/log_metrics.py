"""The storage layer's metrics, as Kafka's ``LogManager``, ``LogFlushStats``, ``LogCleaner``
and ``LogCleanerManager`` register them (the per-partition ``kafka.log:type=Log`` gauges are
the replica manager's, which knows the partitions).

- ``kafka.log:type=LogManager``: OfflineLogDirectoryCount, and LogDirectoryOffline per
  ``logDirectory`` (1 while that dir is offline);
- ``kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs``: the fsyncs of logs the flusher
  made (a log whose ``flush.ms`` came due), and how long each took;
- ``kafka.log:type=LogCleaner``: max-clean-time-secs, max-buffer-utilization-percent and
  cleaner-recopy-percent of the last pass that cleaned a log, DeadThreadCount (1 once the
  cleaner's task ended by an error), max-compaction-delay-secs (how far past
  max.compaction.lag.ms the most overdue compacted log was when the cleaner last chose); ``kafka.log:type=LogCleanerManager``: max-dirty-percent
  (the cleanable share of the log the last pass chose), time-since-last-run-ms, and per
  ``logDirectory`` uncleanable-partitions-count and uncleanable-bytes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pybroker.metrics.registry import MetricsRegistry, mbean

if TYPE_CHECKING:
    from pybroker.log.cleaner import LogCleaner
    from pybroker.log.log import Log
    from pybroker.log.manager import LogManager


def register_log_manager(registry: MetricsRegistry, logs: LogManager) -> None:
    logs.flush_timer = registry.timer(mbean("kafka.log", "LogFlushStats",
                                            "LogFlushRateAndTimeMs"))
    live = lambda: set(logs.live_log_dirs)  # noqa: E731
    registry.gauge(mbean("kafka.log", "LogManager", "OfflineLogDirectoryCount"),
                   lambda: len(logs.log_dirs) - len(live()))
    def offline(log_dir: Path) -> Callable[[], int]:
        return lambda: int(log_dir not in live())

    for log_dir in logs.log_dirs:
        registry.gauge(mbean("kafka.log", "LogManager", "LogDirectoryOffline",
                             logDirectory=log_dir), offline(log_dir))


def register_cleaner(registry: MetricsRegistry, cleaner: LogCleaner,
                     task: Callable[[], asyncio.Task[None] | None],
                     now_ms: Callable[[], int]) -> None:
    def gauge(type_: str, name: str, read: Callable[[], float], **tags: object) -> None:
        registry.gauge(mbean("kafka.log", type_, name, **tags), read)

    def last(read: Callable[[], float]) -> Callable[[], float]:
        return lambda: read() if cleaner.last_stats is not None else 0.0

    gauge("LogCleaner", "max-clean-time-secs", lambda: cleaner.last_elapsed_s)
    gauge("LogCleaner", "max-buffer-utilization-percent",
          last(lambda: 100 * cleaner.last_stats.buffer_utilization))  # type: ignore[union-attr]
    gauge("LogCleaner", "cleaner-recopy-percent", last(
        lambda: 100 * cleaner.last_stats.bytes_written  # type: ignore[union-attr]
        / max(1, cleaner.last_stats.bytes_read)))  # type: ignore[union-attr]

    def dead() -> float:
        t = task()
        return int(t is not None and t.done() and not t.cancelled())

    gauge("LogCleaner", "DeadThreadCount", dead)
    gauge("LogCleaner", "max-compaction-delay-secs",
          lambda: cleaner.max_compaction_delay_ms // 1000)
    gauge("LogCleanerManager", "max-dirty-percent",
          last(lambda: 100 * cleaner.last_stats.cleanable_ratio))  # type: ignore[union-attr]
    gauge("LogCleanerManager", "time-since-last-run-ms",
          lambda: now_ms() - cleaner.last_run_ms if cleaner.last_run_ms >= 0 else 0)
    logs = cleaner.log_manager

    def uncleanable(log_dir: Path) -> list[Log]:
        return [log for tp, log in logs.all_logs().items()
                if tp in cleaner.uncleanable and log.dir.parent == log_dir]

    def count(log_dir: Path) -> Callable[[], float]:
        return lambda: len(uncleanable(log_dir))

    def size(log_dir: Path) -> Callable[[], float]:
        return lambda: sum(log.size_in_bytes for log in uncleanable(log_dir))

    for log_dir in logs.log_dirs:
        gauge("LogCleanerManager", "uncleanable-partitions-count", count(log_dir),
              logDirectory=log_dir)
        gauge("LogCleanerManager", "uncleanable-bytes", size(log_dir), logDirectory=log_dir)
