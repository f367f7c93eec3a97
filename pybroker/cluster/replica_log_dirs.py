"""The replica manager's log dirs: DescribeLogDirs (Kafka's ``describeLogDirs``), moves of
partitions between log dirs (``alterReplicaLogDirs``, the future logs the log dir mover fills
and the swap once they caught up), and the failure of a log dir (KIP-112,
``handleLogDirFailure``)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from pybroker.cluster.hosted_partitions import HostedPartitions, LeadershipChange
from pybroker.kernel.types import TopicPartition
from pybroker.log.dir_failure import log_dir_key
from pybroker.log.manager import future_dir_name_fits

if TYPE_CHECKING:
    from pybroker.log.log import Log


# the replica manager logs under one name, whichever of its parts speaks
log = logging.getLogger("pybroker.cluster.replica_manager")

LONG_MAX = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class LogDirPartition:
    topic: str
    partition: int
    size: int
    #: a current log: how far its end is below the high watermark; a future log: how far it
    #: is behind the current log's end (-1: not known)
    offset_lag: int
    #: the future log of a partition being moved into this dir
    is_future: bool = False


@dataclass(frozen=True, slots=True)
class LogDirDescription:
    """One log dir as DescribeLogDirs reports it; ``error`` when it cannot be used."""

    path: Path
    error: ErrorCode = ErrorCode.NONE
    partitions: tuple[LogDirPartition, ...] = ()
    total_bytes: int = -1
    usable_bytes: int = -1


class ReplicaLogDirs(HostedPartitions):
    """Log dirs, a part of :class:`~pybroker.cluster.replica_manager.ReplicaManager`."""

    # -- log dirs --------------------------------------------------------------------------
    def describe_log_dirs(self, wanted: set[TopicPartition] | None) -> list[LogDirDescription]:
        """Every dir of ``log.dirs``, each with the hosted partitions asked about (None: all),
        the future logs of partitions moving there, and the size of its file system, as
        Kafka's ``describeLogDirs``."""
        logs = self.log_manager
        out = []
        for log_dir in logs.log_dirs:
            fs = _volume(log_dir) if logs.is_log_dir_online(log_dir) else None
            if fs is None:
                out.append(LogDirDescription(log_dir, ErrorCode.KAFKA_STORAGE_ERROR))
                continue
            described = []
            for (topic, partition), plog in sorted(logs.all_logs().items()):
                if logs.log_dir_of(topic, partition) != log_dir:
                    continue
                if wanted is not None and (topic, partition) not in wanted:
                    continue
                described.append(LogDirPartition(topic, partition, plog.size_in_bytes,
                                                 self._offset_lag(topic, partition,
                                                                  plog.log_end_offset)))
            for (topic, partition), future in sorted(logs.future_logs().items()):
                if logs.future_log_dir_of(topic, partition) != log_dir:
                    continue
                if wanted is not None and (topic, partition) not in wanted:
                    continue
                described.append(LogDirPartition(
                    topic, partition, future.size_in_bytes,
                    self._future_offset_lag(topic, partition, future.log_end_offset),
                    is_future=True))
            out.append(LogDirDescription(
                log_dir, ErrorCode.NONE, tuple(described),
                total_bytes=min(fs.f_frsize * fs.f_blocks, LONG_MAX),
                usable_bytes=min(fs.f_frsize * fs.f_bavail, LONG_MAX)))
        return out

    def _offset_lag(self, topic: str, partition: int, log_end_offset: int) -> int:
        """How far the high watermark is ahead of the log end (0 on a leader)."""
        p = self.partitions.get((topic, partition))
        if p is None or p.log is None:
            return -1
        return max(p.high_watermark - log_end_offset, 0)

    def _future_offset_lag(self, topic: str, partition: int, log_end_offset: int) -> int:
        """How far a future log is behind the partition's log (Kafka's
        ``getLogEndOffsetLag`` for a future replica)."""
        p = self.partitions.get((topic, partition))
        if p is None or p.log is None:
            return -1
        return p.log.log_end_offset - log_end_offset

    # -- moves between log dirs ------------------------------------------------------------
    def alter_replica_log_dirs(self, partition_dirs: Mapping[TopicPartition, str], now_ms: int,
                               *, known: Callable[[str, int], bool] = lambda _t, _p: False,
                               ) -> dict[TopicPartition, ErrorCode]:
        """AlterReplicaLogDirs (Kafka's ``alterReplicaLogDirs``): move each partition to the
        log dir named by its absolute path. Per partition:

        * INVALID_TOPIC_EXCEPTION when the future directory's name would exceed 255
          characters; LOG_DIR_NOT_FOUND for a path that is not one of ``log.dirs``;
          KAFKA_STORAGE_ERROR when that dir, or the partition's current one, is offline;
        * a move under way to another dir is cancelled (its future log deleted);
        * the dir is remembered for the partition's creation, then a partition not hosted here
          is REPLICA_NOT_AVAILABLE when ``known(topic, partition)`` (the metadata cache knows
          it: it may be created here later), else UNKNOWN_TOPIC_OR_PARTITION;
        * NONE: at once when the partition is in that dir already; otherwise the future log is
          created there (or the move to it goes on), the cleaner leaves the partition alone,
          and the mover copies it."""
        results: dict[TopicPartition, ErrorCode] = {}
        for tp, path in partition_dirs.items():
            try:
                self._alter_log_dir(tp, path, now_ms, known)
            except KafkaError as e:
                log.warning("Unable to move %s-%d to the log dir %s: %s", tp[0], tp[1], path,
                            e.message or e.code.name)
                results[tp] = e.code
            except OSError:
                log.exception("Unable to move %s-%d to the log dir %s", tp[0], tp[1], path)
                results[tp] = ErrorCode.KAFKA_STORAGE_ERROR
            else:
                results[tp] = ErrorCode.NONE
        return results

    def _alter_log_dir(self, tp: TopicPartition, path: str, now_ms: int,
                       known: Callable[[str, int], bool]) -> None:
        topic, index = tp
        logs = self.log_manager
        if not future_dir_name_fits(topic, index):
            raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, "The topic name is too long.")
        log_dir = logs.find_log_dir(path)
        if log_dir is None:
            raise KafkaError(ErrorCode.LOG_DIR_NOT_FOUND,
                             f"Log dir {path} is not found in the config.")
        if not logs.is_log_dir_online(log_dir):
            raise KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, f"Log directory {path} is offline")
        partition = self.partitions.get(tp)
        if partition is not None:
            current_dir = logs.log_dir_of(topic, index)
            if current_dir is not None and not logs.is_log_dir_online(current_dir):
                raise KafkaError(ErrorCode.KAFKA_STORAGE_ERROR,
                                 f"Partition {topic}-{index} is offline")
            future_dir = logs.future_log_dir_of(topic, index)
            if future_dir is not None and future_dir != log_dir:
                log.info("Cancelling the move of %s-%d to %s: it goes to %s now", topic, index,
                         future_dir, log_dir)
                self.log_dir_mover.remove([tp])
                logs.delete_future_log(topic, index)
        logs.maybe_update_preferred_log_dir(topic, index, log_dir)
        if partition is None:
            if known(topic, index):
                raise KafkaError(ErrorCode.REPLICA_NOT_AVAILABLE,
                                 f"{topic}-{index} is not hosted here yet; it will be created "
                                 f"in {path}")
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        if partition.log is None:
            raise KafkaError(ErrorCode.REPLICA_NOT_AVAILABLE)
        if logs.log_dir_of(topic, index) == log_dir:
            return
        if logs.get_future_log(topic, index) is None:
            logs.create_future_log(topic, index, log_dir, partition.log.config, now_ms)
        self._start_move(tp)

    def _start_move(self, tp: TopicPartition) -> None:
        self.log_manager.abort_and_pause_cleaning(*tp)
        self.log_dir_mover.add(*tp)

    def move_logs(self, topic: str, partition: int) -> tuple[Log, Log] | None:
        """The mover's view (:class:`pybroker.cluster.alter_log_dirs.MoveHost`): the current
        and future logs of a hosted partition being moved."""
        p = self.partitions.get((topic, partition))
        future = self.log_manager.get_future_log(topic, partition)
        if p is None or p.log is None or future is None:
            return None
        return p.log, future

    def complete_move(self, topic: str, partition: int, now_ms: int) -> None:
        """The swap: the future log replaces the partition's log (same end offset, same high
        watermark), the high watermarks are checkpointed in the new dir, and the old log is
        deleted ``file.delete.delay.ms`` later."""
        key = (topic, partition)
        p = self.partitions[key]
        old = p.log
        assert old is not None
        p.log = self.log_manager.replace_current_with_future(topic, partition, now_ms)
        # it verifies transactions as the old one did (verifications in flight start again)
        p.log.producer_state.transaction_verification_enabled = \
            self.transaction_verifier is not None
        # the new log's producer state learns the high watermark (transactions it passed)
        p.high_watermark = p.high_watermark
        if self.high_watermark_checkpointing:
            self.checkpoint_high_watermarks()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the retention task deletes it
        delay_ms = old.config.file_delete_delay_ms
        loop.call_later(delay_ms / 1000 + 0.001,
                        lambda: self.log_manager.delete_due_logs(now_ms + delay_ms))

    # -- log dir failures (KIP-112) --------------------------------------------------------
    def handle_log_dir_failure(self, log_dir: Path, now_ms: int,
                               ) -> list[TopicPartition] | None:
        """An I/O error took ``log_dir`` offline (Kafka's ``handleLogDirFailure``): the
        partitions whose log is there stop being fetched and moved, leave any leadership
        (the coordinators hear of it), and answer KAFKA_STORAGE_ERROR from now on; moves of
        other partitions into that dir stop; then the log manager closes the dir's logs.
        Returns the partitions taken offline (None when the dir was offline already). Telling
        the controller, and halting when no dir is left, are the broker's."""
        logs = self.log_manager
        key = log_dir_key(log_dir)
        if not any(log_dir_key(d) == key for d in logs.live_log_dirs):
            return None
        log.warning("Stopping serving replicas in dir %s because the log directory has "
                    "failed.", log_dir)

        def in_dir(d: Path | None) -> bool:
            return d is not None and log_dir_key(d) == key

        offline = sorted(tp for tp in self.partitions if in_dir(logs.log_dir_of(*tp)))
        moving = sorted(tp for tp in logs.future_logs() if in_dir(logs.future_log_dir_of(*tp)))
        if self.fetchers is not None:
            self.fetchers.remove_fetcher_for_partitions(offline)
        self.log_dir_mover.remove([*offline, *moving])
        logs.handle_log_dir_failure(log_dir)
        for tp in offline:
            partition = self.partitions.pop(tp)
            if partition.is_leader:
                self._announce(LeadershipChange(tp[0], tp[1], partition.leader_epoch, False),
                               now_ms)
            partition.stop()
            partition.log = None
            self.offline_partitions[tp] = partition
            # waiting requests answer now, with KAFKA_STORAGE_ERROR
            self.fetch_purgatory.check_and_complete(tp)
            self.produce_purgatory.check_and_complete(tp)
        if self.fetchers is not None:
            self.fetchers.shutdown_idle_fetchers()
        log.warning("Broker %d stopped fetcher for partitions %s and stopped moving logs for "
                    "partitions %s because they are in the failed log directory %s.",
                    self.broker_id, ",".join(f"{t}-{p}" for t, p in offline),
                    ",".join(f"{t}-{p}" for t, p in moving), log_dir)
        return offline


def _volume(log_dir: Path) -> os.statvfs_result | None:
    try:
        return os.statvfs(log_dir)
    except OSError:
        return None
