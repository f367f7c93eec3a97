"""All partition logs of the broker, spread over ``log.dirs``.

Each log dir holds ``<topic>-<partition>`` directories plus Kafka's bookkeeping files:
``recovery-point-offset-checkpoint``, ``log-start-offset-checkpoint`` and, between a clean
shutdown and the next startup, ``.kafka_cleanshutdown``. Anything else in a log dir (the
broker's metadata, ``meta.properties``) is left alone.

Moving a partition to another log dir (AlterReplicaLogDirs, KIP-113) is Kafka's *future log*:
a second log of the partition in the destination dir, ``<topic>-<partition>.<id>-future``,
which the replica manager's mover (:mod:`pybroker.cluster.alter_log_dirs`) fills from the
current log. Once it has caught up, :meth:`LogManager.replace_current_with_future` swaps it in
within one call: the current directory is renamed ``<topic>-<partition>.<id>-delete`` first,
then the future one takes the partition's name. A crash between the two renames leaves a future
log without a current one, which start-up promotes (it had caught up); a crash before them
leaves both, and the move resumes. The log cleaner leaves a partition alone while it moves
(:meth:`LogManager.abort_and_pause_cleaning`).
"""

from __future__ import annotations

import bisect
import logging
import os
import re
import shutil
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from protocol.errors import ErrorCode, KafkaError
from pybroker.kernel.types import TopicPartition
from pybroker.metrics.registry import Timer

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
from .dir_failure import LogDirFailureChannel, log_dir_key, storage_error
from .leader_epoch import LEADER_EPOCH_CHECKPOINT, LeaderEpochFileCache, Submit
from .log import Log, parse_partition_dir, partition_dir_name

logger = logging.getLogger(__name__)

DELETE_DIR_SUFFIX = "-delete"
FUTURE_DIR_SUFFIX = "-future"
#: the longest directory name a file system takes: a partition whose future directory name
#: would be longer cannot move (Kafka's KAFKA-4893 check)
MAX_DIR_NAME_LENGTH = 255
_LEGAL_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")
_FUTURE_DIR = re.compile(r"^(?P<name>.+)\.(?P<id>[0-9a-f]{32})" + re.escape(FUTURE_DIR_SUFFIX) + "$")

LONG_MAX = (1 << 63) - 1
#: ``(partition, log replaced, log replacing it)``: a move between log dirs completed
LogReplacedListener = Callable[[TopicPartition, Log, Log], None]


def future_dir_name(topic: str, partition: int) -> str:
    """Kafka's ``logFutureDirName``: ``<topic>-<partition>.<32 hex digits>-future``."""
    return f"{partition_dir_name(topic, partition)}.{uuid.uuid4().hex}{FUTURE_DIR_SUFFIX}"


def future_dir_name_fits(topic: str, partition: int) -> bool:
    """Whether the partition's future directory name stays within 255 characters."""
    return len(future_dir_name(topic, partition)) <= MAX_DIR_NAME_LENGTH


def parse_future_dir(name: str) -> TopicPartition | None:
    """``("t", 0)`` for ``t-0.<id>-future``; None for anything else."""
    m = _FUTURE_DIR.match(name)
    return parse_partition_dir(m.group("name")) if m is not None else None


def _delete_dir_name(name: str) -> str:
    return f"{name}.{uuid.uuid4().hex}{DELETE_DIR_SUFFIX}"


class LogDirError(OSError):
    """A log dir that cannot be used (not a directory, unreadable, a partition that cannot be
    opened). Start-up stops with this one-line message instead of a traceback."""

    def __init__(self, path: Path, reason: str, *, message: str | None = None) -> None:
        super().__init__(message or f"log dir {path} cannot be used: {reason}")
        self.path = path
        self.reason = reason


def _remove_now(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


class BackgroundIO:
    """One thread of its own for the storage work that may block for long — removing a
    deleted log's directory (gigabytes of segments), writing and fsyncing the checkpoint
    files — so that it never holds up the event loop. Work runs in the order it was asked
    for. Once closed, work runs at once in the caller (the broker's last checkpoints at
    shutdown)."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="storage-io")
        self._closed = False

    def submit(self, fn: Callable[..., None], *args: object) -> Future[None]:
        if self._closed:
            done: Future[None] = Future()
            try:
                fn(*args)
            except BaseException as e:  # handed to whoever waits, as the executor would
                done.set_exception(e)
            else:
                done.set_result(None)
            return done
        return self._executor.submit(fn, *args)

    def remove_dir(self, path: Path) -> None:
        """Remove a directory (renamed ``*-delete`` first: a removal cut short by a crash is
        finished at the next start-up)."""
        self.submit(_remove_now, path)

    def close(self) -> None:
        """Wait for the work asked for so far; later work runs in the caller."""
        self._closed = True
        self._executor.shutdown(wait=True)


class LogManager:
    """Loads, creates, flushes, checkpoints and deletes partition logs.

    ``remove_dir`` removes a deleted log's directory: at once by default; the broker passes
    :meth:`BackgroundIO.remove_dir`. ``failures``: where the logs report I/O errors in their
    dirs (KIP-112); the broker's handler takes a failed dir out of service
    (:meth:`handle_log_dir_failure`)."""

    def __init__(self, log_dirs: list[Path], default_config: LogConfig, *,
                 remove_dir: Callable[[Path], None] = _remove_now,
                 io: Submit | None = None,
                 failures: LogDirFailureChannel | None = None) -> None:
        if not log_dirs:
            raise ValueError("at least one log dir is required")
        self.remove_dir = remove_dir
        self.failures = failures if failures is not None else LogDirFailureChannel()
        #: log dirs taken out of service after an I/O error in them (until a restart)
        self._offline_dirs: set[Path] = set()
        #: kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs, when metrics are kept
        self.flush_timer: Timer | None = None
        #: the storage thread, where the logs write their leader epoch checkpoints and fsync
        #: their rolled segments (at once when None)
        self.io = io
        self.log_dirs = [Path(d) for d in log_dirs]
        self.default_config = default_config
        self._logs: dict[TopicPartition, Log] = {}
        self._dir_of: dict[TopicPartition, Path] = {}
        #: partitions being moved to another log dir: the future log and its dir
        self._future_logs: dict[TopicPartition, Log] = {}
        self._future_dir_of: dict[TopicPartition, Path] = {}
        #: where a partition not hosted yet is to be created (AlterReplicaLogDirs before it)
        self._preferred_dirs: dict[TopicPartition, Path] = {}
        #: partitions the log cleaner must leave alone (being moved)
        self._cleaning_paused: set[TopicPartition] = set()
        #: logs a move replaced, deleted at the time given (``file.delete.delay.ms`` later, so
        #: fetch responses holding slices of them can still be sent)
        self._doomed: list[tuple[int, Log]] = []
        self._replaced_listeners: list[LogReplacedListener] = []

    # -- startup and shutdown --------------------------------------------------------------

    def startup(
        self, now_ms: int, *, config_for: Callable[[str], LogConfig] | None = None
    ) -> None:
        """Load every partition directory; recover those not covered by a clean shutdown.

        ``config_for(topic)`` supplies per-topic configs; the default config otherwise. A log
        dir that cannot be read or written is taken offline (reported to :attr:`failures`, as
        Kafka's start-up does) and the others load; when none can be used this raises
        :class:`LogDirError` naming the dir and the reason.
        """
        configs: dict[str, LogConfig] = {}

        def config_of(topic: str) -> LogConfig:
            if topic not in configs:  # once per topic, not per partition
                configs[topic] = config_for(topic) if config_for else self.default_config
            return configs[topic]

        failed: dict[Path, OSError] = {}
        found = []
        for log_dir in self.log_dirs:
            try:
                found.append((log_dir, self._scan_log_dir(log_dir)))
            except OSError as e:
                failed[log_dir] = e
        try:
            self._promote_lone_futures(found)
        except OSError as e:
            log_dir = self._log_dir_error(e).path
            failed[log_dir] = e
            found = [f for f in found if f[0] != log_dir]
        for log_dir, listing in found:
            try:
                self._load_dir(log_dir, listing, now_ms, config_of)
            except OSError as e:
                failed[log_dir] = e
                for _, log in self._forget_dir(log_dir):
                    log.mark_offline()
        if len(failed) == len(self.log_dirs):
            raise self._all_failed(failed)
        for log_dir, error in failed.items():
            self._offline_dirs.add(log_dir)
            self.failures.maybe_add_offline_log_dir(
                log_dir, f"Error while loading log dir {log_dir.absolute()}", error)
        self.checkpoint()

    def _all_failed(self, failed: Mapping[Path, OSError]) -> LogDirError:
        """The start-up error when no log dir can be used: the one dir's error, or all of
        them."""
        errors = [self._log_dir_error(e, log_dir) for log_dir, e in failed.items()]
        if len(errors) == 1:
            return errors[0]
        reasons = "; ".join(f"{e.path}: {e.reason}" for e in errors)
        return LogDirError(errors[0].path, f"all log dirs have failed ({reasons})",
                           message=f"all log dirs in {', '.join(map(str, self.log_dirs))} "
                                   f"have failed: {reasons}")

    def _log_dir_error(self, e: OSError, log_dir: Path | None = None) -> LogDirError:
        """Which log dir an I/O error during start-up belongs to, and a one-line reason."""
        where = Path(e.filename) if e.filename else None
        if log_dir is None:
            log_dir = next(
                (d for d in self.log_dirs
                 if where is not None and (where == d or d in where.parents)),
                self.log_dirs[0],
            )
        reason = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else e.strerror or str(e)
        return LogDirError(log_dir, reason)

    def _forget_dir(self, log_dir: Path) -> list[tuple[TopicPartition, Log]]:
        """Drop every log (current and future) of ``log_dir`` from the manager; the logs
        dropped."""
        dropped = []
        for logs, dirs in ((self._logs, self._dir_of), (self._future_logs, self._future_dir_of)):
            for tp in [tp for tp, d in dirs.items() if d == log_dir]:
                dropped.append((tp, logs.pop(tp)))
                del dirs[tp]
                if logs is self._future_logs:
                    self._cleaning_paused.discard(tp)
        return dropped

    def _load_dir(self, log_dir: Path,
                  listing: tuple[list[tuple[Path, TopicPartition]],
                                 list[tuple[Path, TopicPartition]]],
                  now_ms: int, config_of: Callable[[str], LogConfig]) -> None:
        currents, futures = listing
        marker = log_dir / CLEAN_SHUTDOWN_MARKER
        clean = marker.exists()
        recovery_points = self._read_checkpoint(log_dir / RECOVERY_POINT_CHECKPOINT)
        start_offsets = self._read_checkpoint(log_dir / LOG_START_OFFSET_CHECKPOINT)
        loaded = 0
        for entry, tp, future in [*((e, tp, False) for e, tp in currents),
                                  *((e, tp, True) for e, tp in futures)]:
            logs, dir_of = ((self._future_logs, self._future_dir_of) if future
                            else (self._logs, self._dir_of))
            if tp in logs:
                raise RuntimeError(
                    f"Duplicate {'future ' if future else ''}log directories for "
                    f"{tp[0]}-{tp[1]}: {dir_of[tp]} and {log_dir}"
                )
            logs[tp] = Log.open(
                entry,
                config_of(tp[0]),
                recovery_point=recovery_points.get(tp, 0),
                log_start_offset=start_offsets.get(tp, 0),
                now_ms=now_ms,
                clean_shutdown=clean,
                topic_partition=tp,
                io=self.io,
                failures=self.failures,
            )
            dir_of[tp] = log_dir
            loaded += 1
            if future:
                # the cleaner keeps off the partition from now on, not only once its move
                # resumes: a copy of uncleaned batches would stay uncleaned below the first
                # dirty offset the swap carries over
                self._cleaning_paused.add(tp)
                logger.info("Found the future log %s: moving %s-%d to %s resumes once the "
                            "partition is hosted", entry.name, tp[0], tp[1], log_dir)
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

    @staticmethod
    def _scan_log_dir(log_dir: Path) -> tuple[list[tuple[Path, TopicPartition]],
                                              list[tuple[Path, TopicPartition]]]:
        """The partition directories of a log dir, current and future; what an unfinished
        deletion left is removed."""
        log_dir.mkdir(parents=True, exist_ok=True)
        currents, futures = [], []
        for entry in sorted(log_dir.iterdir()):
            if not entry.is_dir():
                continue
            if entry.name.endswith(DELETE_DIR_SUFFIX):
                logger.info("Removing %s left by an unfinished partition deletion", entry)
                shutil.rmtree(entry, ignore_errors=True)
                continue
            tp = parse_future_dir(entry.name)
            if tp is not None:
                futures.append((entry, tp))
                continue
            tp = parse_partition_dir(entry.name)
            if tp is not None:
                currents.append((entry, tp))
        return currents, futures

    @staticmethod
    def _promote_lone_futures(
        found: list[tuple[Path, tuple[list[tuple[Path, TopicPartition]],
                                      list[tuple[Path, TopicPartition]]]]]) -> None:
        """A future log whose partition has no current log anywhere is what a crash between
        the two renames of a swap leaves (the current one was already renamed for deletion):
        it had caught up, so it takes the partition's name."""
        hosted = {tp for _, (currents, _) in found for _, tp in currents}
        for log_dir, (currents, futures) in found:
            for entry, tp in list(futures):
                if tp in hosted:
                    continue
                final = log_dir / partition_dir_name(*tp)
                logger.warning("%s has no current log: completing the interrupted move of "
                               "%s-%d to %s", entry.name, tp[0], tp[1], log_dir)
                entry.rename(final)
                fsync_dir(log_dir)
                futures.remove((entry, tp))
                currents.append((final, tp))
                hosted.add(tp)

    @staticmethod
    def _read_checkpoint(path: Path) -> dict[TopicPartition, int]:
        try:
            return read_offset_checkpoint(path)
        except CheckpointError as e:
            logger.warning("Ignoring unreadable checkpoint (logs will be fully recovered): %s", e)
            return {}

    def shutdown(self) -> None:
        """Flush and close every log (future ones too), write the checkpoints, then the
        clean-shutdown markers: in each log dir whose logs all closed, never in an offline
        one (its logs are recovered at the next start). Logs a move replaced are deleted
        now."""
        failed: set[Path] = set()
        for logs, dirs in ((self._logs, self._dir_of), (self._future_logs, self._future_dir_of)):
            for tp, log in logs.items():
                try:
                    log.flush()
                    log.close()
                except (OSError, KafkaError):
                    failed.add(dirs[tp])
                    logger.exception("Failed to close log %s-%d", *tp)
        self.checkpoint()
        for log_dir in self.live_log_dirs:
            if log_dir in failed:
                continue
            try:
                atomic_write(log_dir / CLEAN_SHUTDOWN_MARKER, b"")
            except OSError as e:
                logger.error("Could not mark %s shut down cleanly (its logs are recovered at "
                             "the next start): %s", log_dir, e)
        self.delete_due_logs(None)
        self._logs.clear()
        self._dir_of.clear()
        self._future_logs.clear()
        self._future_dir_of.clear()

    # -- lookup and lifecycle --------------------------------------------------------------

    def get_log(self, topic: str, partition: int) -> Log | None:
        return self._logs.get((topic, partition))

    def all_logs(self) -> dict[TopicPartition, Log]:
        return dict(self._logs)

    def log_dir_of(self, topic: str, partition: int) -> Path | None:
        return self._dir_of.get((topic, partition))

    def is_log_dir_online(self, log_dir: Path) -> bool:
        """Whether ``log_dir`` can still be used: no I/O error took it offline, and it is a
        directory the broker may list and write into (checked when asked, which also catches a
        dir removed or replaced behind the broker's back before anything wrote to it)."""
        if log_dir in self._offline_dirs or self.failures.is_offline(log_dir):
            return False
        try:
            return log_dir.is_dir() and os.access(log_dir, os.R_OK | os.W_OK | os.X_OK)
        except OSError:
            return False

    @property
    def live_log_dirs(self) -> list[Path]:
        """The log dirs not taken offline (Kafka's ``liveLogDirs``)."""
        return [d for d in self.log_dirs if d not in self._offline_dirs]

    @property
    def offline_log_dirs(self) -> list[Path]:
        return [d for d in self.log_dirs if d in self._offline_dirs]

    def handle_log_dir_failure(self, failed: Path) -> tuple[list[TopicPartition],
                                                           list[TopicPartition]]:
        """Take ``failed`` (a dir of ``log.dirs``, as reported) out of service, as Kafka's
        ``LogManager.handleLogDirFailure``: its logs, current and future, are closed without
        another write and forgotten; nothing is created there any more and no checkpoint or
        clean-shutdown marker is written there. Returns ``(current partitions, future
        partitions)`` that were in it; ``([], [])`` when it was offline already. Whether any
        dir is left is :attr:`live_log_dirs` (the broker halts when none is)."""
        key = log_dir_key(failed)
        log_dir = next((d for d in self.log_dirs if log_dir_key(d) == key), None)
        if log_dir is None or log_dir in self._offline_dirs:
            return [], []
        logger.warning("Stopping serving logs in dir %s", log_dir)
        self._offline_dirs.add(log_dir)
        currents = [tp for tp, d in self._dir_of.items() if d == log_dir]
        futures = [tp for tp, d in self._future_dir_of.items() if d == log_dir]
        for _, log in self._forget_dir(log_dir):
            log.mark_offline()
        for tp in [tp for tp, d in self._preferred_dirs.items() if d == log_dir]:
            del self._preferred_dirs[tp]
        doomed = [(when, log) for when, log in self._doomed if log.dir.parent == log_dir]
        for entry in doomed:
            self._doomed.remove(entry)
            entry[1].mark_offline()
        logger.warning("Logs for partitions %s are offline and logs for future partitions %s "
                       "are offline due to failure on log directory %s",
                       ",".join(f"{t}-{p}" for t, p in sorted(currents)),
                       ",".join(f"{t}-{p}" for t, p in sorted(futures)), log_dir)
        return currents, futures

    def get_or_create_log(self, topic: str, partition: int, config: LogConfig, now_ms: int,
                          *, is_new: bool = True) -> Log:
        """The partition's log, created when absent: in the dir an AlterReplicaLogDirs chose
        for it beforehand (then forgotten), else in the live dir holding the fewest logs.
        ``is_new`` False (a LeaderAndIsr for a replica the controller created before): while a
        log dir is offline the log is not created but KAFKA_STORAGE_ERROR raised, as in
        Kafka, since the replica's data may be in the failed dir."""
        tp = (topic, partition)
        log = self._logs.get(tp)
        if log is not None:
            return log
        _check_partition_name(topic, partition)
        if not is_new and self._offline_dirs:
            # the log may be in the offline dir: an empty one made elsewhere would pass for it
            raise storage_error(
                f"Can not create log for {topic}-{partition} because log directories "
                f"{','.join(map(str, self.offline_log_dirs))} are offline")
        log_dir = self._preferred_dirs.pop(tp, None)
        if log_dir is None or log_dir in self._offline_dirs:
            log_dir = self._least_loaded_dir()
        try:
            log = Log.open(log_dir / partition_dir_name(topic, partition), config,
                           now_ms=now_ms, io=self.io, failures=self.failures)
            fsync_dir(log_dir)
        except OSError as e:
            message = f"Error while creating log for {topic}-{partition} in dir {log_dir}"
            self.failures.maybe_add_offline_log_dir(log_dir, message, e)
            raise storage_error(f"{message}: {e}") from e
        self._logs[tp] = log
        self._dir_of[tp] = log_dir
        return log

    def _least_loaded_dir(self) -> Path:
        live = self.live_log_dirs
        if not live:
            raise storage_error(f"No log directory is online (of {self.log_dirs})")
        counts = {d: 0 for d in live}
        for d in [*self._dir_of.values(), *self._future_dir_of.values()]:
            counts[d] = counts.get(d, 0) + 1
        return min(live, key=lambda d: counts[d])

    def delete_log(self, topic: str, partition: int) -> None:
        """Remove a partition's log, and its future log when it was being moved; each
        directory is renamed ``*-delete`` first, as Kafka does, so a crash half-way leaves
        something startup knows to finish removing. The future log goes first: a future log
        left alone is taken at start-up for a completed move."""
        tp = (topic, partition)
        self.delete_future_log(topic, partition)
        self._preferred_dirs.pop(tp, None)
        log = self._logs.pop(tp, None)
        log_dir = self._dir_of.pop(tp, None)
        if log is None or log_dir is None:
            return
        _rename_dir(log, log.dir.with_name(_delete_dir_name(log.dir.name)))
        log.delete(self.remove_dir)

    # -- moves between log dirs (Kafka's future logs) ---------------------------------------

    def find_log_dir(self, path: str) -> Path | None:
        """The dir of ``log.dirs`` whose absolute path is ``path`` (as DescribeLogDirs names
        it), or None (Kafka's LOG_DIR_NOT_FOUND)."""
        return next((d for d in self.log_dirs if str(d.absolute()) == path), None)

    def get_future_log(self, topic: str, partition: int) -> Log | None:
        return self._future_logs.get((topic, partition))

    def future_logs(self) -> dict[TopicPartition, Log]:
        return dict(self._future_logs)

    def future_log_dir_of(self, topic: str, partition: int) -> Path | None:
        return self._future_dir_of.get((topic, partition))

    def maybe_update_preferred_log_dir(self, topic: str, partition: int, log_dir: Path) -> None:
        """Remember ``log_dir`` for the partition's creation, unless its current or future log
        is there already (Kafka's ``maybeUpdatePreferredLogDir``)."""
        tp = (topic, partition)
        if log_dir not in (self._dir_of.get(tp), self._future_dir_of.get(tp)):
            self._preferred_dirs[tp] = log_dir

    def preferred_log_dir(self, topic: str, partition: int) -> Path | None:
        return self._preferred_dirs.get((topic, partition))

    def create_future_log(self, topic: str, partition: int, log_dir: Path, config: LogConfig,
                          now_ms: int) -> Log:
        """Start the partition's future log in ``log_dir`` (empty; the mover fills it). The
        partition must have a current log elsewhere and no future log yet."""
        tp = (topic, partition)
        current_dir = self._dir_of.get(tp)
        if current_dir is None:
            raise ValueError(f"{topic}-{partition} has no log to move")
        if current_dir == log_dir:
            raise ValueError(f"{topic}-{partition} is in {log_dir} already")
        if tp in self._future_logs:
            raise ValueError(f"{topic}-{partition} is being moved to "
                             f"{self._future_dir_of[tp]} already")
        dir = log_dir / future_dir_name(topic, partition)
        log = Log.open(dir, config, now_ms=now_ms, topic_partition=tp, io=self.io,
                       failures=self.failures)
        fsync_dir(log_dir)
        self._future_logs[tp] = log
        self._future_dir_of[tp] = log_dir
        self._preferred_dirs.pop(tp, None)
        logger.info("Created the future log %s of %s-%d", dir, topic, partition)
        return log

    def delete_future_log(self, topic: str, partition: int) -> None:
        """Drop the partition's future log (a move cancelled or redirected, a partition deleted
        or stopped); cleaning of the partition resumes."""
        tp = (topic, partition)
        log = self._future_logs.pop(tp, None)
        self._future_dir_of.pop(tp, None)
        self._cleaning_paused.discard(tp)
        if log is None:
            return
        _rename_dir(log, log.dir.with_name(_delete_dir_name(partition_dir_name(*tp))))
        log.delete(self.remove_dir)
        logger.info("Deleted the future log of %s-%d", topic, partition)

    def replace_current_with_future(self, topic: str, partition: int, now_ms: int) -> Log:
        """The swap that ends a move (Kafka's ``replaceCurrentWithFutureLog``), in one call:
        the future log, caught up with the current one, becomes the partition's log in its dir
        and is returned; the current log is renamed ``*-delete`` and deleted
        ``file.delete.delay.ms`` later (:meth:`delete_due_logs`).

        What the copy of the batches may not have rebuilt exactly is carried over from the
        current log: producer state (its transactions included), the leader epoch cache (an
        epoch started with nothing written in it yet) and the transaction indexes (an aborted
        transaction that began before the future log's start). The checkpoints of both dirs are
        written, and cleaning resumes."""
        tp = (topic, partition)
        source, future = self._logs[tp], self._future_logs[tp]
        if source.log_end_offset != future.log_end_offset:
            raise ValueError(f"{topic}-{partition}: the future log ends at "
                             f"{future.log_end_offset}, the current one at "
                             f"{source.log_end_offset}")
        source_dir, dest_dir = self._dir_of[tp], self._future_dir_of[tp]
        source_name = source.dir
        final = dest_dir / partition_dir_name(topic, partition)
        try:
            carried = carry_over_log_state(source, future)
            recovery_point, log_start = future.recovery_point, future.log_start_offset
            future.close()
            # the current directory goes first: from here on start-up takes the future log for
            # the partition's (see _promote_lone_futures)
            _rename_dir(source, source.dir.with_name(_delete_dir_name(source.dir.name)))
            future.dir.rename(final)
            future.dir = final
            fsync_dir(dest_dir)
            log = Log.open(final, future.config, recovery_point=future.log_end_offset,
                           log_start_offset=log_start, now_ms=now_ms, clean_shutdown=True,
                           io=self.io, failures=self.failures)
        except Exception:
            # the partition stays where it was, with its log; the copy goes (a new move
            # starts afresh)
            logger.exception("Could not swap the future log of %s-%d in; it is dropped",
                             topic, partition)
            if source.dir != source_name:
                _rename_dir(source, source_name)
            try:
                self.delete_future_log(topic, partition)
            except OSError:
                logger.exception("Could not delete the future log of %s-%d", topic, partition)
            raise
        # what the future log had not fsynced yet is still to be recovered after a crash
        log.recovery_point = min(recovery_point, log.log_end_offset)
        # opening cut the epochs that start at the log end (a new leader's, nothing written
        # yet) and read a file whose last writes may still be on the storage thread; completed
        # transactions waiting for the high watermark live in memory only
        carried += [c for c in carry_over_log_state(source, log, producers=False,
                                                    txn_indexes=False) if c not in carried]
        log.producer_state.unreplicated_txns = dict(source.producer_state.unreplicated_txns)
        del self._future_logs[tp], self._future_dir_of[tp]
        self._logs[tp] = log
        self._dir_of[tp] = dest_dir
        self._doomed.append((now_ms + source.config.file_delete_delay_ms, source))
        self._cleaning_paused.discard(tp)
        self.checkpoint()
        logger.info("Moved %s-%d from %s to %s at offset %d%s", topic, partition, source_dir,
                    dest_dir, log.log_end_offset,
                    f" (carried over from the current log: {', '.join(carried)})"
                    if carried else "")
        for listener in self._replaced_listeners:
            try:
                listener(tp, source, log)
            except Exception:
                logger.exception("A listener failed on the move of %s-%d", topic, partition)
        return log

    def add_log_replaced_listener(self, listener: LogReplacedListener) -> None:
        """Call ``listener(partition, old log, new log)`` after each completed move (the log
        cleaner moves its checkpoint along, as Kafka's ``alterCheckpointDir``)."""
        self._replaced_listeners.append(listener)

    def delete_due_logs(self, now_ms: int | None) -> int:
        """Delete the logs moves replaced whose delay is over (every one with None); returns
        how many went."""
        keep: list[tuple[int, Log]] = []
        due: list[tuple[int, Log]] = []
        for when, log in self._doomed:
            (due if now_ms is None or when <= now_ms else keep).append((when, log))
        self._doomed = keep
        for _, log in due:
            try:
                log.delete(self.remove_dir)
            except OSError:
                logger.exception("Could not delete %s", log.dir)
        return len(due)

    def abort_and_pause_cleaning(self, topic: str, partition: int) -> None:
        """Keep the log cleaner off the partition (a pass under way gives up at its next
        step) until :meth:`resume_cleaning` or the end of its move."""
        self._cleaning_paused.add((topic, partition))

    def resume_cleaning(self, topic: str, partition: int) -> None:
        self._cleaning_paused.discard((topic, partition))

    def is_cleaning_paused(self, topic: str, partition: int) -> bool:
        return (topic, partition) in self._cleaning_paused

    # -- periodic work ---------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Write both offset checkpoint files in every live log dir, future logs included (a
        dir that cannot be written goes offline)."""
        write_offset_checkpoints(self.checkpoint_contents(), self.failures)

    def checkpoint_contents(self) -> list[tuple[Path, dict[TopicPartition, int]]]:
        """What :meth:`checkpoint` writes, file by file: taken on the event loop, so that the
        writing can happen elsewhere (:func:`write_offset_checkpoints`)."""
        out: list[tuple[Path, dict[TopicPartition, int]]] = []
        for log_dir in self.live_log_dirs:
            logs = {tp: log for tp, log in self._logs.items() if self._dir_of[tp] == log_dir}
            logs.update((tp, log) for tp, log in self._future_logs.items()
                        if self._future_dir_of[tp] == log_dir)
            out.append((log_dir / RECOVERY_POINT_CHECKPOINT,
                        {tp: log.recovery_point for tp, log in logs.items()}))
            out.append((log_dir / LOG_START_OFFSET_CHECKPOINT,
                        {tp: log.log_start_offset for tp, log in logs.items()}))
        return out

    def cleanup(self, now_ms: int) -> int:
        """Apply retention to every log (Kafka's ``log.retention.check.interval.ms`` task) and
        delete the logs moves replaced whose delay is over. A future log follows its current
        log's start instead (the mover)."""
        self.delete_due_logs(now_ms)
        return sum(log.enforce_retention(now_ms) for log in self._logs.values())

    def flush_dirty(self, now_ms: int) -> None:
        """fsync logs (future ones too) whose last flush is older than their ``flush.ms``."""
        timer = self.flush_timer
        for log in [*self._logs.values(), *self._future_logs.values()]:
            if log.unflushed_messages and now_ms - log.last_flush_ms >= log.config.flush_ms:
                started = time.perf_counter()
                log.flush(now_ms=now_ms)
                if timer is not None:
                    timer.update((time.perf_counter() - started) * 1000)


def write_offset_checkpoints(contents: list[tuple[Path, dict[TopicPartition, int]]],
                             failures: LogDirFailureChannel | None = None) -> None:
    """Write offset checkpoint files (each atomically, fsynced). With ``failures``, a file
    that cannot be written fails its log dir (the file's directory) and the others are still
    written, as Kafka's checkpoints do; without, the first error is raised."""
    for path, offsets in contents:
        try:
            write_offset_checkpoint(path, offsets)
        except OSError as e:
            if failures is None:
                raise
            failures.maybe_add_offline_log_dir(
                path.parent, f"Error while writing {path.name} to dir {path.parent}", e)


def _check_partition_name(topic: str, partition: int) -> None:
    if not _LEGAL_TOPIC.fullmatch(topic) or topic in (".", ".."):
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, f"Illegal topic name {topic!r}")
    if partition < 0:
        raise KafkaError(ErrorCode.INVALID_PARTITIONS, f"Illegal partition {partition}")


def _rename_dir(log: Log, new_dir: Path) -> None:
    """Rename a log's directory that is about to be deleted. Open files stay valid across the
    rename, and the segments' ``.log`` paths follow it, so that slices of them a fetch response
    still holds can be opened and sent."""
    log.dir.rename(new_dir)
    fsync_dir(new_dir.parent)
    log.dir = new_dir
    log.producer_state.dir = new_dir
    for segment in log.segments:
        segment.dir = new_dir
        segment.log_path = new_dir / segment.log_path.name


def carry_over_log_state(source: Log, dest: Log, *, producers: bool = True,
                         epochs: bool = True, txn_indexes: bool = True) -> list[str]:
    """Make ``dest``, a copy of ``source``'s batches up to the same log end, hold the state
    ``source`` built that the batches alone may not rebuild; returns what differed.

    * producer state: ``source``'s, which also knows producers and open transactions from
      before ``dest``'s log start;
    * the leader epoch cache: ``source``'s from ``dest``'s log start on (an epoch a new leader
      started at the log end has no batch yet);
    * the transaction indexes: each of ``dest``'s segments gets ``source``'s entries whose
      marker it holds (an aborted transaction that began before ``dest``'s log start is
      indexed from its real first offset)."""
    carried = []
    if producers:
        src, dst = source.producer_state, dest.producer_state
        if (src.producers, src.ongoing_txns) != (dst.producers, dst.ongoing_txns):
            carried.append("producer state")
        dst.producers = {pid: replace(e, batches=deque(e.batches, maxlen=e.batches.maxlen))
                         for pid, e in src.producers.items()}
        dst.ongoing_txns = dict(src.ongoing_txns)
        dst.unreplicated_txns = dict(src.unreplicated_txns)
    if epochs:
        wanted = LeaderEpochFileCache(None, source.leader_epoch_cache.entries)
        wanted.truncate_from_start(dest.log_start_offset)
        if wanted.entries != dest.leader_epoch_cache.entries:
            carried.append("leader epochs")
            dest.leader_epoch_cache = LeaderEpochFileCache(dest.dir / LEADER_EPOCH_CHECKPOINT,
                                                           wanted.entries,
                                                           io=dest.leader_epoch_cache.io)
            dest.leader_epoch_cache.flush()
    if txn_indexes:
        aborted = source.collect_aborted_transactions(0, LONG_MAX)
        markers = [t.last_offset for t in aborted]
        changed = False
        for segment in dest.segments:
            lo = bisect.bisect_left(markers, segment.base_offset)
            hi = bisect.bisect_left(markers, segment.next_offset)
            if segment.txn_index.entries != aborted[lo:hi]:
                segment.txn_index.replace_all(aborted[lo:hi])
                segment.txn_index.flush()
                changed = True
        if changed:
            carried.append("transaction indexes")
    return carried
