"""All partition logs of the broker, spread over ``log.dirs``.

Each log dir holds ``<topic>-<partition>`` directories plus Kafka's bookkeeping files:
``recovery-point-offset-checkpoint``, ``log-start-offset-checkpoint`` and, between a clean
shutdown and the next startup, ``.kafka_cleanshutdown``. Anything else in a log dir (the
broker's metadata, ``meta.properties``) is left alone.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from protocol.errors import ErrorCode, KafkaError

from .checkpoints import (
    CLEAN_SHUTDOWN_MARKER,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    CheckpointError,
    atomic_write,
    fsync_dir,
    read_offset_checkpoint,
    write_offset_checkpoint,
)
from .config import LogConfig
from .log import Log, parse_partition_dir, partition_dir_name

logger = logging.getLogger(__name__)

DELETE_DIR_SUFFIX = "-delete"
_LEGAL_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")

TopicPartition = tuple[str, int]


class LogDirError(OSError):
    """A log dir that cannot be used (not a directory, unreadable, a partition that cannot be
    opened). Start-up stops with this one-line message instead of a traceback."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"log dir {path} cannot be used: {reason}")
        self.path = path
        self.reason = reason


class LogManager:
    """Loads, creates, flushes, checkpoints and deletes partition logs."""

    def __init__(self, log_dirs: list[Path], default_config: LogConfig) -> None:
        if not log_dirs:
            raise ValueError("at least one log dir is required")
        self.log_dirs = [Path(d) for d in log_dirs]
        self.default_config = default_config
        self._logs: dict[TopicPartition, Log] = {}
        self._dir_of: dict[TopicPartition, Path] = {}

    # -- startup and shutdown --------------------------------------------------------------

    def startup(
        self, now_ms: int, *, config_for: Callable[[str], LogConfig] | None = None
    ) -> None:
        """Load every partition directory; recover those not covered by a clean shutdown.

        ``config_for(topic)`` supplies per-topic configs; the default config otherwise.
        Raises :class:`LogDirError` naming the log dir when one cannot be read or written.
        """
        try:
            self._load_logs(now_ms, config_for)
        except OSError as e:
            raise self._log_dir_error(e) from e

    def _log_dir_error(self, e: OSError) -> LogDirError:
        """Which log dir an I/O error during start-up belongs to, and a one-line reason."""
        where = Path(e.filename) if e.filename else None
        log_dir = next(
            (d for d in self.log_dirs if where is not None and (where == d or d in where.parents)),
            self.log_dirs[0],
        )
        reason = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else e.strerror or str(e)
        return LogDirError(log_dir, reason)

    def _load_logs(self, now_ms: int, config_for: Callable[[str], LogConfig] | None) -> None:
        configs: dict[str, LogConfig] = {}
        for log_dir in self.log_dirs:
            log_dir.mkdir(parents=True, exist_ok=True)
            marker = log_dir / CLEAN_SHUTDOWN_MARKER
            clean = marker.exists()
            recovery_points = self._read_checkpoint(log_dir / RECOVERY_POINT_CHECKPOINT)
            start_offsets = self._read_checkpoint(log_dir / LOG_START_OFFSET_CHECKPOINT)
            loaded = 0
            for entry in sorted(log_dir.iterdir()):
                if not entry.is_dir():
                    continue
                if entry.name.endswith(DELETE_DIR_SUFFIX):
                    logger.info("Removing %s left by an unfinished partition deletion", entry)
                    shutil.rmtree(entry, ignore_errors=True)
                    continue
                tp = parse_partition_dir(entry.name)
                if tp is None:
                    continue
                if tp in self._logs:
                    raise RuntimeError(
                        f"Duplicate log directories for {entry.name}: {self._dir_of[tp]} and {log_dir}"
                    )
                if tp[0] not in configs:  # once per topic, not per partition
                    configs[tp[0]] = config_for(tp[0]) if config_for else self.default_config
                config = configs[tp[0]]
                self._logs[tp] = Log.open(
                    entry,
                    config,
                    recovery_point=recovery_points.get(tp, 0),
                    log_start_offset=start_offsets.get(tp, 0),
                    now_ms=now_ms,
                    clean_shutdown=clean,
                )
                self._dir_of[tp] = log_dir
                loaded += 1
            if loaded or clean:
                logger.info(
                    "Loaded %d logs from %s after %s shutdown",
                    loaded, log_dir, "a clean" if clean else "an unclean",
                )
            else:
                logger.info("No logs in %s yet", log_dir)
            if clean:
                marker.unlink()
                fsync_dir(log_dir)
        self.checkpoint()

    @staticmethod
    def _read_checkpoint(path: Path) -> dict[TopicPartition, int]:
        try:
            return read_offset_checkpoint(path)
        except CheckpointError as e:
            logger.warning("Ignoring unreadable checkpoint (logs will be fully recovered): %s", e)
            return {}

    def shutdown(self) -> None:
        """Flush and close every log, write the checkpoints, then the clean-shutdown markers."""
        failed = False
        for tp, log in self._logs.items():
            try:
                log.flush()
                log.close()
            except OSError:
                failed = True
                logger.exception("Failed to close log %s-%d", *tp)
        self.checkpoint()
        if not failed:
            for log_dir in self.log_dirs:
                atomic_write(log_dir / CLEAN_SHUTDOWN_MARKER, b"")
        self._logs.clear()
        self._dir_of.clear()

    # -- lookup and lifecycle --------------------------------------------------------------

    def get_log(self, topic: str, partition: int) -> Log | None:
        return self._logs.get((topic, partition))

    def all_logs(self) -> dict[TopicPartition, Log]:
        return dict(self._logs)

    def log_dir_of(self, topic: str, partition: int) -> Path | None:
        return self._dir_of.get((topic, partition))

    def is_log_dir_online(self, log_dir: Path) -> bool:
        """Whether ``log_dir`` can still be used: it is a directory the broker may list and
        write into. Kafka takes a dir offline after an I/O error in it; here the dir is checked
        when asked, which also catches a dir removed or replaced behind the broker's back."""
        try:
            return log_dir.is_dir() and os.access(log_dir, os.R_OK | os.W_OK | os.X_OK)
        except OSError:
            return False

    def get_or_create_log(self, topic: str, partition: int, config: LogConfig, now_ms: int) -> Log:
        tp = (topic, partition)
        log = self._logs.get(tp)
        if log is not None:
            return log
        if not _LEGAL_TOPIC.fullmatch(topic) or topic in (".", ".."):
            raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, f"Illegal topic name {topic!r}")
        if partition < 0:
            raise KafkaError(ErrorCode.INVALID_PARTITIONS, f"Illegal partition {partition}")
        log_dir = self._least_loaded_dir()
        log = Log.open(log_dir / partition_dir_name(topic, partition), config, now_ms=now_ms)
        fsync_dir(log_dir)
        self._logs[tp] = log
        self._dir_of[tp] = log_dir
        return log

    def _least_loaded_dir(self) -> Path:
        counts = {d: 0 for d in self.log_dirs}
        for d in self._dir_of.values():
            counts[d] = counts.get(d, 0) + 1
        return min(self.log_dirs, key=lambda d: counts[d])

    def delete_log(self, topic: str, partition: int) -> None:
        """Remove a partition's log; the directory is renamed ``*-delete`` first, as Kafka does,
        so a crash half-way leaves something startup knows to finish removing."""
        tp = (topic, partition)
        log = self._logs.pop(tp, None)
        log_dir = self._dir_of.pop(tp, None)
        if log is None or log_dir is None:
            return
        doomed = log.dir.with_name(f"{log.dir.name}.{uuid.uuid4().hex}{DELETE_DIR_SUFFIX}")
        log.dir.rename(doomed)  # open files stay valid across the rename
        fsync_dir(log_dir)
        log.dir = doomed
        log.delete()

    # -- periodic work ---------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Write both offset checkpoint files in every log dir."""
        for log_dir in self.log_dirs:
            logs = {tp: log for tp, log in self._logs.items() if self._dir_of[tp] == log_dir}
            write_offset_checkpoint(
                log_dir / RECOVERY_POINT_CHECKPOINT, {tp: log.recovery_point for tp, log in logs.items()}
            )
            write_offset_checkpoint(
                log_dir / LOG_START_OFFSET_CHECKPOINT,
                {tp: log.log_start_offset for tp, log in logs.items()},
            )

    def cleanup(self, now_ms: int) -> int:
        """Apply retention to every log (Kafka's ``log.retention.check.interval.ms`` task)."""
        return sum(log.enforce_retention(now_ms) for log in self._logs.values())

    def flush_dirty(self, now_ms: int) -> None:
        """fsync logs whose last flush is older than their ``flush.ms``."""
        for log in self._logs.values():
            if log.unflushed_messages and now_ms - log.last_flush_ms >= log.config.flush_ms:
                log.flush(now_ms=now_ms)
