"""The partitions this broker hosts, and every path through them (Kafka's ``ReplicaManager``).

* **Leadership**: :meth:`ReplicaManager.become_leader_or_follower` applies the controller's
  decisions (the embedded controller calls it directly; LeaderAndIsr will in ZooKeeper mode) and
  tells the leadership listeners (the group coordinator follows ``__consumer_offsets``).
* **Produce**: each partition's batch goes to the leader's log as bytes (validated by its
  header, offsets assigned in place); no record is decoded. With acks=all the answer waits in
  the produce purgatory until the high watermark covers every batch (at once while the ISR is
  the leader alone).
* **Fetch**: whole batches are read from the segment files as file slices; a consumer reads
  below the high watermark, a follower (a fetch with a replica id) up to the log end, and its
  fetch offset tells the leader how far its log goes. A fetch that cannot be satisfied yet
  waits in the fetch purgatory.
* **Offsets and logs**: ListOffsets, DeleteRecords, DescribeProducers and DescribeLogDirs are
  answered here from the partitions and their logs, so handlers never touch a log.

Concurrency notes: everything runs on the event loop that owns the partitions; nothing awaits
between reading and changing a partition.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from protocol.errors import ErrorCode, KafkaError
from pybroker.cluster.partition import OffsetLookup, Partition
from pybroker.purgatory import Purgatory
from pybroker.purgatory.delayed_fetch import DelayedFetch
from pybroker.purgatory.delayed_produce import DelayedProduce, ProducePartitionStatus

if TYPE_CHECKING:
    from pybroker.log.config import LogConfig
    from pybroker.log.file_slice import FileSlice
    from pybroker.log.log import Log
    from pybroker.log.manager import LogManager
    from pybroker.log.producer_state import ProducerEntry
    from pybroker.metadata.model import PartitionRecord

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]

#: refusals of Kafka's LogValidator, answered with the partition's log start offset
RECORD_VALIDATION_ERRORS = frozenset({ErrorCode.INVALID_RECORD, ErrorCode.INVALID_TIMESTAMP})
CONSUMER_REPLICA_ID = -1
LONG_MAX = (1 << 63) - 1


@dataclass(slots=True)
class ProduceResult:
    error: ErrorCode = ErrorCode.NONE
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    error_message: str | None = None
    #: ``(index in batch, message)`` of the records a refusal names
    record_errors: list[tuple[int, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FetchParams:
    """What a fetch asks for as a whole (Kafka's FetchParams)."""

    replica_id: int = CONSUMER_REPLICA_ID
    replica_epoch: int = -1
    max_wait_ms: int = 0
    min_bytes: int = 1
    max_bytes: int = 0x7FFFFFFF

    @property
    def is_from_follower(self) -> bool:
        return self.replica_id >= 0


@dataclass(slots=True)
class FetchRequestPartition:
    topic: str
    partition: int
    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = -1


@dataclass(slots=True)
class FetchResult:
    error: ErrorCode = ErrorCode.NONE
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: FileSlice | bytes = b""


@dataclass(frozen=True, slots=True)
class LeadershipChange:
    """This broker started or stopped leading ``topic``-``partition``."""

    topic: str
    partition: int
    leader_epoch: int
    is_leader: bool


class LeadershipListener(Protocol):
    def __call__(self, change: LeadershipChange, now_ms: int) -> None: ...


@dataclass(frozen=True, slots=True)
class LogDirPartition:
    topic: str
    partition: int
    size: int
    offset_lag: int


@dataclass(frozen=True, slots=True)
class LogDirDescription:
    """One log dir as DescribeLogDirs reports it; ``error`` when it cannot be used."""

    path: Path
    error: ErrorCode = ErrorCode.NONE
    partitions: tuple[LogDirPartition, ...] = ()
    total_bytes: int = -1
    usable_bytes: int = -1


class ReplicaManager:
    def __init__(self, broker_id: int, log_manager: LogManager,
                 log_config_for: Callable[[str], LogConfig]) -> None:
        self.broker_id = broker_id
        self.log_manager = log_manager
        self.log_config_for = log_config_for
        self.partitions: dict[TopicPartition, Partition] = {}
        self.fetch_purgatory = Purgatory("Fetch")
        self.produce_purgatory = Purgatory("Produce")
        self._listeners: dict[str, list[LeadershipListener]] = {}

    # -- leadership ------------------------------------------------------------------------
    def add_leadership_listener(self, topic: str, listener: LeadershipListener) -> None:
        """Call ``listener`` whenever this broker starts or stops leading a partition of
        ``topic`` (Kafka's ``onLeadershipChange`` for the coordinators' internal topics)."""
        self._listeners.setdefault(topic, []).append(listener)

    def _announce(self, change: LeadershipChange, now_ms: int) -> None:
        for listener in self._listeners.get(change.topic, ()):
            try:
                listener(change, now_ms)
            except Exception:
                log.exception("leadership listener failed on %s-%d", change.topic,
                              change.partition)

    def become_leader_or_follower(self, topic: str, records: Iterable[PartitionRecord],
                                  now_ms: int) -> None:
        """Take the part each record gives this broker: leader when it names this broker,
        follower otherwise. Listeners hear of every start and end of a leadership."""
        for record in records:
            key = (topic, record.partition)
            partition = self.partitions.get(key)
            if partition is None:
                partition = self.partitions[key] = Partition(topic, record.partition,
                                                             self.broker_id)
            was_leader = partition.is_leader
            plog = self._log_for(topic, record.partition, now_ms)
            if record.leader == self.broker_id:
                if partition.make_leader(record, plog, now_ms):
                    self._announce(LeadershipChange(topic, record.partition,
                                                    record.leader_epoch, True), now_ms)
            else:
                partition.make_follower(record, plog)
                if was_leader:
                    self._announce(LeadershipChange(topic, record.partition,
                                                    record.leader_epoch, False), now_ms)
            # waiting requests learn of the change (answered, or left to wait)
            self.fetch_purgatory.check_and_complete(key)
            self.produce_purgatory.check_and_complete(key)

    def _log_for(self, topic: str, partition: int, now_ms: int) -> Log:
        plog = self.log_manager.get_log(topic, partition)
        if plog is None:
            plog = self.log_manager.get_or_create_log(topic, partition,
                                                      self.log_config_for(topic), now_ms)
        return plog

    def update_log_config(self, topic: str) -> None:
        config = self.log_config_for(topic)
        for (t, _), partition in self.partitions.items():
            if t == topic and partition.log is not None:
                partition.log.update_config(config)

    def stop_replicas(self, topic: str, partitions: Iterable[int], *, delete: bool,
                      now_ms: int = 0) -> None:
        """Stop hosting these partitions: with ``delete`` the partition and its log go;
        without, the partition stays (neither leading nor following) with its log."""
        for p in partitions:
            partition = (self.partitions.pop((topic, p), None) if delete
                         else self.partitions.get((topic, p)))
            if partition is None:
                continue
            if partition.is_leader:
                self._announce(LeadershipChange(topic, p, partition.leader_epoch, False), now_ms)
            if delete:
                self.log_manager.delete_log(topic, p)
            else:
                partition.stop()
            # waiting requests for a partition that is gone answer now, with the error
            self.fetch_purgatory.check_and_complete((topic, p))
            self.produce_purgatory.check_and_complete((topic, p))

    def get_partition(self, topic: str, partition: int) -> Partition | None:
        return self.partitions.get((topic, partition))

    def led_partitions(self, topic: str) -> list[int]:
        return sorted(p for (t, p), part in self.partitions.items()
                      if t == topic and part.is_leader)

    def _leader_partition(self, topic: str, partition: int) -> Partition:
        p = self.partitions.get((topic, partition))
        if p is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        if not p.is_leader:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        return p

    def _lookup_leader(self, key: Any) -> Partition | None:
        p = self.partitions.get(key)
        return p if p is not None and p.is_leader else None

    # -- produce ---------------------------------------------------------------------------
    def append_to_leader(self, topic: str, partition: int, batch: bytearray, *,
                         required_acks: int, now_ms: int) -> tuple[ProduceResult, int]:
        """Append one batch to the leader's log. Returns the result and the offset the high
        watermark must reach for an acks=all answer (-1 when nothing was appended)."""
        p: Partition | None = None
        try:
            p = self._leader_partition(topic, partition)
            assert p.log is not None
            info = p.append_records_to_leader(
                batch, required_acks=required_acks,
                min_insync_replicas=p.log.config.min_insync_replicas, now_ms=now_ms)
        except KafkaError as e:
            result = ProduceResult(error=e.code, error_message=e.message,
                                   record_errors=getattr(e, "record_errors", []))
            if e.code in RECORD_VALIDATION_ERRORS and p is not None and p.log is not None:
                # as Kafka: a refusal by record validation reports the log start offset
                result.log_start_offset = p.log.log_start_offset
            return result, -1
        if not info.duplicate:
            # followers' fetches wait for appends; consumers' for the high watermark
            self.fetch_purgatory.check_and_complete((topic, partition))
        return ProduceResult(
            base_offset=info.first_offset,
            log_append_time=info.log_append_time,
            log_start_offset=info.log_start_offset,
        ), info.last_offset + 1

    def append_records(self, batches: Mapping[TopicPartition, bytearray], *, required_acks: int,
                       timeout_ms: int, now_ms: int,
                       ) -> dict[TopicPartition, ProduceResult] | asyncio.Future[
                           dict[TopicPartition, ProduceResult]]:
        """Append each partition's batch. With acks=all, partitions whose batch is not yet
        replicated to the whole ISR wait in the produce purgatory (a future of every result);
        otherwise the results come back at once."""
        results: dict[TopicPartition, ProduceResult] = {}
        waiting: dict[TopicPartition, ProducePartitionStatus] = {}
        for (topic, partition), batch in batches.items():
            result, required_offset = self.append_to_leader(
                topic, partition, batch, required_acks=required_acks, now_ms=now_ms)
            results[(topic, partition)] = result
            if required_acks == -1 and required_offset >= 0:
                p = self.partitions[(topic, partition)]
                assert p.log is not None
                status = ProducePartitionStatus(required_offset,
                                                p.log.config.min_insync_replicas, result)
                done, error = p.check_enough_replicas_reach_offset(
                    required_offset, status.min_insync_replicas)
                if done:
                    result.error = error
                else:
                    waiting[(topic, partition)] = status
        if not waiting:
            return results
        op = DelayedProduce(waiting, self._lookup_leader,
                            lambda answered: {**results, **answered})
        return self.produce_purgatory.try_complete_else_watch(op, list(waiting), timeout_ms)

    def _on_high_watermark_moved(self, key: TopicPartition) -> None:
        self.produce_purgatory.check_and_complete(key)
        self.fetch_purgatory.check_and_complete(key)

    # -- fetch -----------------------------------------------------------------------------
    def _read_partition(self, params: FetchParams, req: FetchRequestPartition, limit: int,
                        min_one: bool) -> tuple[Partition, Any]:
        p = self._leader_partition(req.topic, req.partition)
        p.check_leader_epoch(req.current_leader_epoch)
        if params.is_from_follower and params.replica_id not in p.remote_replicas:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                             f"Replica {params.replica_id} is not a follower of {p.name}")
        info = p.read(req.fetch_offset, limit, min_one_batch=min_one and req.max_bytes > 0,
                      up_to_high_watermark=not params.is_from_follower)
        return p, info

    def read_from_local_logs(self, params: FetchParams, partitions: list[FetchRequestPartition],
                             ) -> tuple[list[FetchResult], int, bool]:
        """Read each partition in request order within ``params.max_bytes``; the first
        partition with data may exceed it by one batch (KIP-74). Returns results, bytes read,
        and whether any partition failed."""
        results: list[FetchResult] = []
        budget = params.max_bytes
        total = 0
        min_one = True
        errors = False
        for req in partitions:
            try:
                p, info = self._read_partition(params, req, max(0, min(req.max_bytes, budget)),
                                               min_one)
            except KafkaError as e:
                errors = True
                p_ = self.partitions.get((req.topic, req.partition))
                results.append(FetchResult(
                    error=e.code,
                    high_watermark=p_.high_watermark if p_ and p_.log else -1,
                    last_stable_offset=p_.high_watermark if p_ and p_.log else -1,
                    log_start_offset=p_.log_start_offset if p_ else -1,
                ))
                continue
            size = len(info.records)
            if size:
                min_one = False
                budget -= size
                total += size
            results.append(FetchResult(
                high_watermark=p.high_watermark,
                last_stable_offset=p.high_watermark,  # no transactions: the LSO is the HW
                log_start_offset=p.log_start_offset,
                records=info.records,
            ))
        return results, total, errors

    def _update_follower_positions(self, params: FetchParams,
                                   partitions: list[FetchRequestPartition], now_ms: int) -> None:
        """A follower's fetch offsets are its log end offsets: the leader may move the high
        watermark and answer waiting acks=all produces."""
        for req in partitions:
            p = self.partitions.get((req.topic, req.partition))
            if p is None or not p.is_leader or params.replica_id not in p.remote_replicas:
                continue
            if p.update_follower_fetch_state(params.replica_id, req.fetch_offset, now_ms):
                self._on_high_watermark_moved((req.topic, req.partition))

    def fetch_messages(self, params: FetchParams, partitions: list[FetchRequestPartition], *,
                       now_ms: int = 0,
                       ) -> list[FetchResult] | asyncio.Future[list[FetchResult]]:
        if params.is_from_follower:
            self._update_follower_positions(params, partitions, now_ms)
        results, total, errors = self.read_from_local_logs(params, partitions)
        if params.max_wait_ms <= 0 or not partitions or total >= params.min_bytes or errors:
            return results
        op = DelayedFetch(lambda: self.read_from_local_logs(params, partitions),
                          params.min_bytes)
        keys = [(r.topic, r.partition) for r in partitions]
        return self.fetch_purgatory.try_complete_else_watch(op, keys, params.max_wait_ms)

    # -- offsets ---------------------------------------------------------------------------
    def fetch_offset_for_timestamp(self, topic: str, partition: int, timestamp: int,
                                   current_leader_epoch: int) -> OffsetLookup:
        """ListOffsets: raises KafkaError (unknown partition, not leader, fenced epoch)."""
        return self._known_partition(topic, partition).fetch_offset_for_timestamp(
            timestamp, current_leader_epoch)

    def _known_partition(self, topic: str, partition: int) -> Partition:
        p = self.partitions.get((topic, partition))
        if p is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        return p

    def delete_records(self, offsets: Mapping[TopicPartition, int], now_ms: int,
                       ) -> dict[TopicPartition, tuple[int, ErrorCode]]:
        """DeleteRecords: each partition's new low watermark, or its error. The new log start
        offsets are checkpointed before this returns, so they survive a crash."""
        results: dict[TopicPartition, tuple[int, ErrorCode]] = {}
        for (topic, partition), offset in offsets.items():
            try:
                low = self._known_partition(topic, partition).delete_records_on_leader(
                    offset, now_ms)
            except KafkaError as e:
                results[(topic, partition)] = (-1, e.code)
                continue
            results[(topic, partition)] = (low, ErrorCode.NONE)
        self.log_manager.checkpoint()
        return results

    def active_producers(self, topic: str, partition: int) -> dict[int, ProducerEntry]:
        """DescribeProducers: the producers this replica's log keeps state for."""
        p = self._known_partition(topic, partition)
        log_dir = self.log_manager.log_dir_of(topic, partition)
        if log_dir is not None and not self.log_manager.is_log_dir_online(log_dir):
            raise KafkaError(ErrorCode.KAFKA_STORAGE_ERROR)  # a replica in an offline log dir
        return p.active_producers()

    # -- log dirs --------------------------------------------------------------------------
    def describe_log_dirs(self, wanted: set[TopicPartition] | None) -> list[LogDirDescription]:
        """Every dir of ``log.dirs``, each with the hosted partitions asked about (None: all)
        and the size of its file system, as Kafka's ``describeLogDirs``."""
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

    def shutdown(self) -> None:
        self.fetch_purgatory.shutdown()
        self.produce_purgatory.shutdown()


def _volume(log_dir: Path) -> os.statvfs_result | None:
    try:
        return os.statvfs(log_dir)
    except OSError:
        return None
