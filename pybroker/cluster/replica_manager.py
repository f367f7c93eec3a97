"""The partitions this broker hosts, and every path through them (Kafka's ``ReplicaManager``).

* **Leadership**: :meth:`ReplicaManager.become_leader_or_follower` applies the controller's
  decisions (the embedded controller calls it directly; LeaderAndIsr will in ZooKeeper mode) and
  tells the leadership listeners (the group coordinator follows ``__consumer_offsets``).
* **Produce**: each partition's batch goes to the leader's log as bytes (validated by its
  header, offsets assigned in place); no record is decoded. With acks=all the answer waits in
  the produce purgatory until the high watermark covers every batch (at once while the ISR is
  the leader alone). With ``transaction.partition.verification.enable``
  (:meth:`ReplicaManager.set_transaction_verifier`), a producer's first transactional
  batch of a transaction in a partition is appended only once its transaction coordinator has
  said the partition is in the transaction (KIP-890, :meth:`ReplicaManager.handle_produce_append`,
  :mod:`pybroker.cluster.txn_verification`).
* **Fetch**: whole batches are read from the segment files as file slices; a consumer reads
  below the high watermark (read_committed: below the last stable offset, with the aborted
  transactions overlapping what it reads), a follower (a fetch with a replica id) up to the log
  end, and its fetch offset tells the leader how far its log goes. A fetch that cannot be
  satisfied yet waits in the fetch purgatory.
* **Replication** (ZooKeeper mode, :meth:`ReplicaManager.enable_replication`): partitions this
  broker follows are fetched from their leaders by the replica fetchers
  (:mod:`pybroker.cluster.replica_fetcher`), started, moved and stopped here on every change
  of leader or leader epoch. A follower's fetch names the epoch of its last batch; when its log
  parts from the leader's the answer is the diverging epoch instead of data.
* **ISR changes** (ZooKeeper mode): a follower's fetch may propose adding it to the ISR, and
  :meth:`ReplicaManager.maybe_shrink_isr` (the isr-expiration task, every
  ``replica.lag.time.max.ms`` / 2) proposes dropping members that fell behind; proposals go to
  the controller through the AlterPartition manager
  (:mod:`pybroker.cluster.alter_partition`) and its answers back to the partition
  (:meth:`pybroker.cluster.partition.Partition.handle_alter_partition_answer`). Whenever a high
  watermark moves, waiting acks=all produces and consumer fetches are checked.
* **Offsets and logs**: ListOffsets, OffsetForLeaderEpoch, DeleteRecords, DescribeProducers and
  DescribeLogDirs are answered here from the partitions and their logs, so handlers never touch
  a log.
* **Moves between log dirs** (AlterReplicaLogDirs, :meth:`ReplicaManager.alter_replica_log_dirs`):
  a future log in the destination dir, filled by the log dir mover
  (:mod:`pybroker.cluster.alter_log_dirs`) and swapped in for the partition's log once it has
  caught up; a future log found at start-up resumes its move when the partition is hosted.
* **High watermarks** survive restarts in each log dir's ``replication-offset-checkpoint``:
  written by :meth:`ReplicaManager.checkpoint_high_watermarks` (periodically once a
  LeaderAndIsr has arrived, and at shutdown) and read when a partition is first led or
  followed.

Concurrency notes: everything runs on the event loop that owns the partitions; nothing awaits
between reading and changing a partition.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import transactional_producer
from pybroker.cluster.alter_log_dirs import LogDirMover
from pybroker.cluster.alter_partition import IsrAnswer, IsrUpdate
from pybroker.cluster.fetcher_state import InitialFetchState
from pybroker.cluster.isr import IsrSettings, PendingIsrChange
from pybroker.cluster.legacy_offsets import legacy_fetch_offsets
from pybroker.cluster.partition import LogReadInfo, OffsetLookup, Partition
from pybroker.cluster.txn_verification import TxnErrorMode, produce_error_for
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.outcome import Outcome, chain, is_pending, when_ready
from pybroker.kernel.types import TopicPartition
from pybroker.log.checkpoints import (
    REPLICATION_OFFSET_CHECKPOINT,
    CheckpointError,
    read_offset_checkpoint,
    write_offset_checkpoint,
)
from pybroker.log.dir_failure import LogDirFailureChannel, log_dir_key, storage_error
from pybroker.log.manager import future_dir_name_fits
from pybroker.log.producer_state import (
    AppendOrigin as AppendOrigin,
    VerificationGuard as VerificationGuard,
)
from pybroker.purgatory import Purgatory
from pybroker.purgatory.delayed_fetch import DelayedFetch
from pybroker.purgatory.delayed_produce import DelayedProduce, ProducePartitionStatus

if TYPE_CHECKING:
    import uuid

    from pybroker.cluster.metadata_cache import BrokerEndpoint
    from pybroker.log.config import LogConfig
    from pybroker.log.file_slice import FileSlice
    from pybroker.log.log import Log
    from pybroker.log.manager import LogManager
    from pybroker.log.producer_state import ProducerEntry
    from pybroker.log.txn_index import AbortedTxn
    from pybroker.metadata.model import PartitionRecord

log = logging.getLogger(__name__)

# AppendOrigin (a client's Produce or the broker's coordinators) and VerificationGuard are
# re-exported: handlers and coordinators name them without reaching into the log

#: the append errors Kafka answers without the partition's log start offset (its
#: ``appendToLocalLog``: unknown or moved partitions, records too large or corrupt, storage);
#: every other refusal (record validation, producer state, transactions, min.insync.replicas)
#: carries it
ERRORS_WITHOUT_LOG_START = frozenset({
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER,
    ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.CORRUPT_MESSAGE,
    ErrorCode.KAFKA_STORAGE_ERROR})
CONSUMER_REPLICA_ID = -1
LONG_MAX = (1 << 63) - 1
#: Fetch's and ListOffsets' isolation levels (KIP-98)
READ_UNCOMMITTED = 0
READ_COMMITTED = 1
#: a TxnOffsetCommit's verification names no sequence (Kafka's RecordBatch.NO_SEQUENCE)
NO_SEQUENCE = -1


@dataclass(slots=True)
class ProduceResult:
    error: ErrorCode = ErrorCode.NONE
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    error_message: str | None = None
    #: ``(index in batch, message)`` of the records a refusal names
    record_errors: list[tuple[int, str]] = field(default_factory=list)
    #: whether Kafka sends ``error_message`` with this error (its ``hasCustomErrorMessage``:
    #: the verification's own wording)
    has_custom_message: bool = False


@dataclass(frozen=True, slots=True)
class FetchParams:
    """What a fetch asks for as a whole (Kafka's FetchParams)."""

    replica_id: int = CONSUMER_REPLICA_ID
    replica_epoch: int = -1
    max_wait_ms: int = 0
    min_bytes: int = 1
    max_bytes: int = 0x7FFFFFFF
    #: whether the first partition with data may exceed the limits by one batch (KIP-74);
    #: Fetch v0-v2 hold to them strictly (Kafka's ``hardMaxBytesLimit``)
    min_one_batch: bool = True
    #: READ_COMMITTED: a consumer reads below the last stable offset, told the aborted
    #: transactions in what it reads
    isolation_level: int = READ_UNCOMMITTED

    @property
    def is_from_follower(self) -> bool:
        return self.replica_id >= 0

    @property
    def read_committed(self) -> bool:
        return self.isolation_level == READ_COMMITTED and not self.is_from_follower


@dataclass(slots=True)
class FetchRequestPartition:
    topic: str
    partition: int
    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = -1
    #: the epoch of the fetcher's last batch (Fetch v12+); -1: not given
    last_fetched_epoch: int = -1
    #: a follower's log start offset (Fetch v5+)
    log_start_offset: int = -1
    #: the topic id a fetch by id (v13+) named; None: fetched by name
    topic_id: uuid.UUID | None = None


@dataclass(slots=True)
class FetchResult:
    error: ErrorCode = ErrorCode.NONE
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: FileSlice | bytes = b""
    #: ``(epoch, end offset)`` where the fetcher's log parts from the leader's (no records)
    diverging_epoch: tuple[int, int] | None = None
    #: read_committed: the aborted transactions overlapping ``records``; else None
    aborted_transactions: list[AbortedTxn] | None = None


def write_high_watermark_checkpoints(
        contents: list[tuple[Path, dict[TopicPartition, int]]],
        failures: LogDirFailureChannel | None = None) -> None:
    """Write ``replication-offset-checkpoint`` files; a log dir whose file cannot be written
    fails (reported to ``failures``; logged without) and the others are still written."""
    for path, high_watermarks in contents:
        try:
            write_offset_checkpoint(path, high_watermarks)
        except OSError as e:
            if failures is None:
                log.exception("Could not write the high watermark checkpoint %s", path)
                continue
            failures.maybe_add_offline_log_dir(
                path.parent, f"Error while writing to high watermark file in directory "
                             f"{path.parent}", e)


@dataclass(frozen=True, slots=True)
class LeadershipChange:
    """This broker started or stopped leading ``topic``-``partition``."""

    topic: str
    partition: int
    leader_epoch: int
    is_leader: bool


class LeadershipListener(Protocol):
    def __call__(self, change: LeadershipChange, now_ms: int) -> None: ...


class ReplicaFetchers(Protocol):
    """What the replica manager asks of the replica fetchers
    (:class:`pybroker.cluster.replica_fetcher.ReplicaFetcherManager`)."""

    @property
    def truncation_on_fetch(self) -> bool: ...

    @property
    def shutting_down(self) -> bool: ...

    def add_fetcher_for_partitions(self, initial: Mapping[TopicPartition, InitialFetchState],
                                   ) -> None: ...

    def remove_fetcher_for_partitions(self, partitions: Iterable[TopicPartition]) -> None: ...

    def shutdown_idle_fetchers(self) -> None: ...


#: the endpoint of a live broker on the inter-broker listener, or None when it is not alive
AliveBroker = Callable[[int], "BrokerEndpoint | None"]


class TransactionVerifier(Protocol):
    """Who tells a leader whether partitions are in a producer's transaction
    (:class:`pybroker.cluster.txn_verification.AddPartitionsToTxnManager`): the partitions that
    are not, each with its error, at once or later."""

    def verify_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                           partitions: Sequence[TopicPartition], mode: TxnErrorMode,
                           ) -> Outcome[dict[TopicPartition, ErrorCode]]: ...


class IsrChangeSender(Protocol):
    """Where leaders' ISR changes go (:class:`pybroker.cluster.alter_partition.
    AlterPartitionManager`): a future of the controller's answer for each."""

    def submit(self, topic: str, partition: int, topic_id: uuid.UUID | None,
               update: IsrUpdate) -> asyncio.Future[IsrAnswer]: ...


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


class ReplicaManager:
    def __init__(self, broker_id: int, log_manager: LogManager,
                 log_config_for: Callable[[str], LogConfig], *,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.broker_id = broker_id
        #: the time of answers handled on the event loop (ISR changes, verified produces) and
        #: of the log dir mover's steps
        self.clock = clock
        self.log_manager = log_manager
        self.log_config_for = log_config_for
        self.partitions: dict[TopicPartition, Partition] = {}
        #: partitions whose log dir failed (Kafka's ``HostedPartition.Offline``): until a
        #: restart they answer KAFKA_STORAGE_ERROR, LeaderAndIsr included
        self.offline_partitions: dict[TopicPartition, Partition] = {}
        self.fetch_purgatory = Purgatory("Fetch")
        self.produce_purgatory = Purgatory("Produce")
        self._listeners: dict[str, list[LeadershipListener]] = {}
        #: the replica fetchers and the live brokers' endpoints (ZooKeeper mode); the embedded
        #: node follows nothing
        self.fetchers: ReplicaFetchers | None = None
        self._alive_broker: AliveBroker | None = None
        #: set by the first leadership decision; the high watermarks are checkpointed from then
        self.high_watermark_checkpointing = False
        #: how leaders keep their ISR; the embedded node's never change it
        self.isr_settings = IsrSettings()
        self._isr_changes: IsrChangeSender | None = None
        #: copies partitions into the log dirs AlterReplicaLogDirs names (its ``chunk_bytes``
        #: is ``replica.fetch.max.bytes``)
        self.log_dir_mover = LogDirMover(self, clock=clock)
        #: KIP-890's verification of transactional appends; None: not verified
        #: (``transaction.partition.verification.enable=false``)
        self.transaction_verifier: TransactionVerifier | None = None

    def set_transaction_verifier(self, verifier: TransactionVerifier | None) -> None:
        """With a ``verifier``, verify every producer's first transactional batch of a
        transaction in a partition with its coordinator before appending it, and have the logs
        refuse such a batch without the verification's guard (INVALID_TXN_STATE); None stops
        verifying (``transaction.partition.verification.enable``, which may change at run
        time). Transactions already open in a partition are not verified either way."""
        self.transaction_verifier = verifier
        for partition in self.partitions.values():
            if partition.log is not None:
                partition.log.producer_state.transaction_verification_enabled = \
                    verifier is not None

    def enable_replication(self, fetchers: ReplicaFetchers, alive_broker: AliveBroker,
                           isr_changes: IsrChangeSender | None = None,
                           replica_lag_time_max_ms: int = 30000) -> None:
        """Follow partitions led elsewhere through ``fetchers``, from leaders that
        ``alive_broker(id)`` finds alive (the metadata cache, on the inter-broker listener).
        With ``isr_changes``, partitions this broker leads grow and shrink their ISR through
        it: followers within ``replica.lag.time.max.ms`` of the log end and alive in the
        metadata cache are in sync."""
        self.fetchers = fetchers
        self._alive_broker = alive_broker
        self._isr_changes = isr_changes
        self.isr_settings = IsrSettings(
            replica_lag_time_max_ms=replica_lag_time_max_ms,
            alter_isr=isr_changes is not None,
            is_eligible=lambda b: alive_broker(b) is not None)
        for partition in self.partitions.values():
            partition.settings = self.isr_settings

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
                                  now_ms: int, *, is_new: bool | Container[int] = True,
                                  ) -> dict[int, ErrorCode]:
        """Take the part each record gives this broker: leader when it names this broker,
        follower otherwise (Kafka's ``makeLeaders``/``makeFollowers``). Listeners hear of every
        start and end of a leadership. Returns the partitions refused, with their error:
        KAFKA_STORAGE_ERROR for one whose log dir failed, or whose log cannot be opened or
        created; while a log dir is offline, also for one not hosted yet that is not new
        (``is_new``: True for all, False for none, or the new partitions' ids), since its log
        may be in that dir (Kafka's LeaderAndIsr ``isNew``).

        A new leader stops fetching the partition and records where its epoch starts in the
        leader epoch cache. A follower whose leader or leader epoch changed (KAFKA-7164: any
        epoch change) has its fetcher restarted from its log end offset (its high watermark
        when the log has no epochs); without a live leader in the metadata cache only the log
        is opened, as in Kafka. The first time a partition is hosted its high watermark comes
        from ``replication-offset-checkpoint``."""
        self.high_watermark_checkpointing = True
        checkpoints: dict[Path, dict[TopicPartition, int]] = {}
        new_followers: dict[TopicPartition, Partition] = {}
        refused: dict[int, ErrorCode] = {}
        for record in records:
            key = (topic, record.partition)
            if key in self.offline_partitions:
                refused[record.partition] = ErrorCode.KAFKA_STORAGE_ERROR
                continue
            partition = self.partitions.get(key)
            try:
                plog = self._log_for(topic, record.partition, now_ms,
                                     is_new if isinstance(is_new, bool)
                                     else record.partition in is_new)
            except KafkaError as e:
                log.error("%s-%d: cannot be led or followed here: %s", topic, record.partition,
                          e.message or e.code.name)
                refused[record.partition] = e.code
                continue
            if partition is None:
                partition = self.partitions[key] = Partition(topic, record.partition,
                                                             self.broker_id, self.isr_settings)
            was_leader = partition.is_leader
            first_hosted = partition.log is None
            if self.log_manager.get_future_log(topic, record.partition) is not None:
                # a move found at start-up, or one that failed: (re)start it
                self._start_move(key)
            if first_hosted:
                partition.high_watermark = self._checkpointed_high_watermark(key, checkpoints)
            if record.leader == self.broker_id:
                if self.fetchers is not None:
                    self.fetchers.remove_fetcher_for_partitions([key])
                try:
                    became = partition.make_leader(record, plog, now_ms)
                except KafkaError as e:  # the log's dir failed under it (just reported)
                    refused[record.partition] = e.code
                    continue
                if became:
                    self._announce(LeadershipChange(topic, record.partition,
                                                    record.leader_epoch, True), now_ms)
            else:
                if self._alive_broker is not None and self._alive_broker(record.leader) is None:
                    log.warning("%s-%d: leader %d of epoch %d is not alive in the metadata "
                                "cache; only opening the log", topic, record.partition,
                                record.leader, record.leader_epoch)
                    if first_hosted:
                        partition.log = plog
                    continue
                if partition.make_follower(record, plog):
                    new_followers[key] = partition
                if was_leader:
                    self._announce(LeadershipChange(topic, record.partition,
                                                    record.leader_epoch, False), now_ms)
            # waiting requests learn of the change (answered, or left to wait)
            self.fetch_purgatory.check_and_complete(key)
            self.produce_purgatory.check_and_complete(key)
        if self.fetchers is not None:
            self._restart_fetchers(new_followers)
        return refused

    def _restart_fetchers(self, followers: Mapping[TopicPartition, Partition]) -> None:
        """Fetch these partitions afresh from their (new) leaders."""
        fetchers = self.fetchers
        assert fetchers is not None and self._alive_broker is not None
        fetchers.remove_fetcher_for_partitions(followers)
        if followers and not fetchers.shutting_down:
            initial = {}
            for key, partition in followers.items():
                leader = self._alive_broker(partition.leader_id)
                assert partition.log is not None
                if leader is None:
                    continue
                plog = partition.log
                offset = (plog.log_end_offset
                          if fetchers.truncation_on_fetch and plog.latest_epoch is not None
                          else partition.high_watermark)
                initial[key] = InitialFetchState(leader, partition.leader_epoch, offset,
                                                 partition.topic_id)
            fetchers.add_fetcher_for_partitions(initial)
        fetchers.shutdown_idle_fetchers()

    def _checkpointed_high_watermark(self, key: TopicPartition,
                                     read: dict[Path, dict[TopicPartition, int]]) -> int:
        """The high watermark ``replication-offset-checkpoint`` holds for a partition (0 when
        none); each log dir's file is read once per leadership change."""
        log_dir = self.log_manager.log_dir_of(*key)
        if log_dir is None:
            return 0
        if log_dir not in read:
            try:
                read[log_dir] = read_offset_checkpoint(log_dir / REPLICATION_OFFSET_CHECKPOINT)
            except (CheckpointError, OSError) as e:
                log.warning("Ignoring an unreadable high watermark checkpoint: %s", e)
                read[log_dir] = {}
        return read[log_dir].get(key, 0)

    def checkpoint_high_watermarks(self) -> None:
        """Write each log dir's ``replication-offset-checkpoint``: the high watermark of every
        partition hosted there (Kafka's ``checkpointHighWatermarks``)."""
        write_high_watermark_checkpoints(self.high_watermark_checkpoints(),
                                         self.log_manager.failures)

    def high_watermark_checkpoints(self) -> list[tuple[Path, dict[TopicPartition, int]]]:
        """What :meth:`checkpoint_high_watermarks` writes, file by file: taken on the event
        loop, so that the writing can happen elsewhere (:func:`write_high_watermark_checkpoints`)."""
        by_dir: dict[Path, dict[TopicPartition, int]] = {}
        for key, partition in self.partitions.items():
            if partition.log is None:
                continue
            log_dir = self.log_manager.log_dir_of(*key)
            if log_dir is not None:
                by_dir.setdefault(log_dir, {})[key] = partition.high_watermark
        return [(log_dir / REPLICATION_OFFSET_CHECKPOINT, hws) for log_dir, hws in by_dir.items()]

    def _log_for(self, topic: str, partition: int, now_ms: int, is_new: bool = True) -> Log:
        plog = self.log_manager.get_log(topic, partition)
        if plog is None:
            plog = self.log_manager.get_or_create_log(topic, partition,
                                                      self.log_config_for(topic), now_ms,
                                                      is_new=is_new)
        plog.producer_state.transaction_verification_enabled = \
            self.transaction_verifier is not None
        return plog

    def update_log_config(self, topic: str) -> None:
        config = self.log_config_for(topic)
        for (t, _), partition in self.partitions.items():
            if t == topic and partition.log is not None:
                partition.log.update_config(config)
        for (t, _), future in self.log_manager.future_logs().items():
            if t == topic:
                future.update_config(config)

    def stop_replicas(self, topic: str, partitions: Iterable[int], *, delete: bool,
                      now_ms: int = 0) -> None:
        """Stop hosting these partitions: with ``delete`` the partition and its log go (and
        the future log of a move between log dirs); without, the partition stays (neither
        leading nor following) with its logs. Either way their fetchers and moves stop
        first."""
        partitions = list(partitions)
        if self.fetchers is not None:
            self.fetchers.remove_fetcher_for_partitions([(topic, p) for p in partitions])
        # a move in progress stops too: with deletion its future log goes (delete_log), without
        # it stays and the move resumes at the next leadership decision, as in Kafka (a
        # controlled shutdown stops the partitions a broker follows without deleting them)
        self.log_dir_mover.remove([(topic, p) for p in partitions])
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
        if self.fetchers is not None:
            self.fetchers.shutdown_idle_fetchers()

    def get_partition(self, topic: str, partition: int) -> Partition | None:
        return self.partitions.get((topic, partition))

    def hosted_topic_name(self, topic_id: uuid.UUID) -> str | None:
        """The name of a topic this broker hosts a partition of under ``topic_id`` (the id
        LeaderAndIsr gave it), if any."""
        for (topic, _), partition in self.partitions.items():
            if partition.topic_id == topic_id:
                return topic
        return None

    def led_partitions(self, topic: str) -> list[int]:
        return sorted(p for (t, p), part in self.partitions.items()
                      if t == topic and part.is_leader)

    def partition_error(self, topic: str, partition: int) -> ErrorCode:
        """NONE for a partition hosted here, KAFKA_STORAGE_ERROR for one whose log dir failed,
        else UNKNOWN_TOPIC_OR_PARTITION (Kafka's ``getPartitionOrError``)."""
        key = (topic, partition)
        if key in self.partitions:
            return ErrorCode.NONE
        if key in self.offline_partitions:
            return ErrorCode.KAFKA_STORAGE_ERROR
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION

    def _not_hosted(self, topic: str, partition: int) -> KafkaError:
        """What an operation on a partition not served here fails with."""
        if (topic, partition) in self.offline_partitions:
            return storage_error(f"Partition {topic}-{partition} is in an offline log directory")
        return KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)

    def _leader_partition(self, topic: str, partition: int) -> Partition:
        p = self.partitions.get((topic, partition))
        if p is None:
            raise self._not_hosted(topic, partition)
        if not p.is_leader:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        return p

    def _lookup_leader(self, key: Any) -> Partition | None:
        p = self.partitions.get(key)
        if p is None and key in self.offline_partitions:
            raise self._not_hosted(*key)
        return p if p is not None and p.is_leader else None

    # -- produce ---------------------------------------------------------------------------
    def handle_produce_append(self, batches: Mapping[TopicPartition, bytearray | memoryview], *,
                              transactional_id: str | None, required_acks: int,
                              timeout_ms: int, now_ms: int,
                              mode: TxnErrorMode = TxnErrorMode.GENERIC_ERROR,
                              producers: Mapping[TopicPartition, tuple[int, int, int]]
                              | None = None,
                              ) -> Outcome[dict[TopicPartition, ProduceResult]]:
        """A client's Produce (Kafka's ``handleProduceAppend``): the transactional batches that
        would open their producer's transaction in a partition are verified with the
        transaction coordinator first (KIP-890), and appended with the verification's guard;
        a partition that is not verified is answered with the error a producer expects
        (:func:`pybroker.cluster.txn_verification.produce_error_for`; ``mode``: what the
        client's version understands) and nothing is written to it. Everything else is
        :meth:`append_records`. Raises INVALID_PRODUCER_ID_MAPPING when the transactional
        batches are of more than one producer (or epoch).

        ``producers``: the :func:`~protocol.records.batch.transactional_producer` of each
        transactional batch, when the caller has read them already (Produce's handler does, so
        a request's headers are read for them once); partitions not in ``batches`` are
        ignored. Without it they are read here."""
        if producers is None:
            producers = {key: found for key, batch in batches.items()
                         if (found := transactional_producer(batch)) is not None}
        txn_partitions: dict[TopicPartition, int] = {}
        ids: set[tuple[int, int]] = set()
        for key, (producer_id, producer_epoch, sequence) in producers.items():
            if key in batches:
                ids.add((producer_id, producer_epoch))
                txn_partitions[key] = sequence
        if len(ids) > 1:
            raise KafkaError(ErrorCode.INVALID_PRODUCER_ID_MAPPING,
                             "Transactional records contained more than one producer ID")
        verifier = self.transaction_verifier
        if not ids or verifier is None or transactional_id is None:
            return self.append_records(batches, required_acks=required_acks,
                                       timeout_ms=timeout_ms, now_ms=now_ms)
        [(producer_id, producer_epoch)] = ids
        errors: dict[TopicPartition, ErrorCode] = {}
        guards: dict[TopicPartition, VerificationGuard] = {}
        for key, sequence in txn_partitions.items():
            try:
                guard = self._known_partition(*key).maybe_start_transaction_verification(
                    producer_id, sequence, producer_epoch, now_ms)
            except KafkaError as e:
                errors[key] = e.code
                continue
            if guard is not None:
                guards[key] = guard
        verified: Outcome[dict[TopicPartition, ErrorCode]] = {}
        if guards:
            verified = verifier.verify_transaction(transactional_id, producer_id,
                                                   producer_epoch, list(guards), mode)
        later = is_pending(verified)

        def append(unverified: Mapping[TopicPartition, ErrorCode],
                   ) -> Outcome[dict[TopicPartition, ProduceResult]]:
            refused: dict[TopicPartition, ProduceResult] = {}
            for key, error in {**errors, **unverified}.items():
                code, message = produce_error_for(error)
                refused[key] = ProduceResult(error=code, error_message=message,
                                             has_custom_message=message is not None)
            rest = ({k: b for k, b in batches.items() if k not in refused} if refused
                    else batches)
            outcome = self.append_records(
                rest, required_acks=required_acks, timeout_ms=timeout_ms,
                now_ms=self.clock.milliseconds() if later else now_ms,
                verification_guards={k: g for k, g in guards.items() if k not in refused})
            if not refused:
                return outcome
            return when_ready(outcome, lambda results: {**results, **refused})

        return chain(verified, append)

    def maybe_start_transaction_verification_for_partition(
            self, key: TopicPartition, transactional_id: str | None, producer_id: int,
            producer_epoch: int, base_sequence: int, mode: TxnErrorMode, now_ms: int,
    ) -> Outcome[tuple[ErrorCode, VerificationGuard | None]]:
        """For the broker's own transactional appends (a TxnOffsetCommit's offsets): the
        verification of one partition, as ``(error, guard)`` to append with; NONE and no guard
        when nothing needs verifying (verification off, or the producer's transaction is open
        in the partition already). The error is the coordinator's, as a leader takes it."""
        verifier = self.transaction_verifier
        if verifier is None or transactional_id is None:
            return ErrorCode.NONE, None
        try:
            guard = self._known_partition(*key).maybe_start_transaction_verification(
                producer_id, base_sequence, producer_epoch, now_ms)
        except KafkaError as e:
            return e.code, None
        if guard is None:
            return ErrorCode.NONE, None
        return when_ready(
            verifier.verify_transaction(transactional_id, producer_id, producer_epoch, [key],
                                        mode),
            lambda errors: (ErrorCode(errors.get(key, ErrorCode.NONE)), guard))

    def append_to_leader(self, topic: str, partition: int, batch: bytearray | memoryview, *,
                         required_acks: int, now_ms: int,
                         origin: AppendOrigin = AppendOrigin.CLIENT,
                         verification_guard: VerificationGuard | None = None,
                         ) -> tuple[ProduceResult, int]:
        """Append one batch to the leader's log. Returns the result and the offset the high
        watermark must reach for an acks=all answer (-1 when nothing was appended).
        ``origin`` is the client's Produce or the broker's own coordinators (which may write
        control batches: transaction markers); ``verification_guard`` the guard of the
        transaction's verification (KIP-890), when the append follows one."""
        p: Partition | None = None
        try:
            p = self._leader_partition(topic, partition)
            assert p.log is not None
            high_watermark = p.high_watermark
            info = p.append_records_to_leader(
                batch, required_acks=required_acks,
                min_insync_replicas=p.log.config.min_insync_replicas, now_ms=now_ms,
                origin=origin, verification_guard=verification_guard)
        except KafkaError as e:
            result = ProduceResult(error=e.code, error_message=e.message,
                                   record_errors=getattr(e, "record_errors", []))
            if e.code not in ERRORS_WITHOUT_LOG_START and p is not None and p.log is not None:
                result.log_start_offset = p.log.log_start_offset
            return result, -1
        if p.high_watermark > high_watermark:
            self._on_high_watermark_moved((topic, partition))
        elif not info.duplicate:
            # followers' fetches wait for appends; consumers' for the high watermark
            self.fetch_purgatory.check_and_complete((topic, partition))
        return ProduceResult(
            base_offset=info.first_offset,
            log_append_time=info.log_append_time,
            log_start_offset=info.log_start_offset,
        ), info.last_offset + 1

    def append_records(self, batches: Mapping[TopicPartition, bytearray | memoryview], *,
                       required_acks: int, timeout_ms: int, now_ms: int,
                       origin: AppendOrigin = AppendOrigin.CLIENT,
                       verification_guards: Mapping[TopicPartition, VerificationGuard]
                       | None = None,
                       ) -> Outcome[dict[TopicPartition, ProduceResult]]:
        """Append each partition's batch. With acks=all, partitions whose batch is not yet
        replicated to the whole ISR wait in the produce purgatory (a future of every result);
        otherwise the results come back at once. ``origin`` and the partitions'
        ``verification_guards``: see :meth:`append_to_leader`."""
        results: dict[TopicPartition, ProduceResult] = {}
        waiting: dict[TopicPartition, ProducePartitionStatus] = {}
        for (topic, partition), batch in batches.items():
            result, required_offset = self.append_to_leader(
                topic, partition, batch, required_acks=required_acks, now_ms=now_ms,
                origin=origin, verification_guard=verification_guards.get((topic, partition))
                if verification_guards else None)
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

    # -- ISR changes -----------------------------------------------------------------------
    def maybe_shrink_isr(self, now_ms: int) -> int:
        """The isr-expiration task: each led partition drops the followers that have not caught
        up within ``replica.lag.time.max.ms`` (through the controller). Returns how many
        partitions proposed a change."""
        proposed = 0
        for partition in list(self.partitions.values()):
            change = partition.maybe_shrink_isr(now_ms) if partition.is_leader else None
            if change is not None:
                proposed += 1
                self._submit_isr_change(partition, change)
        return proposed

    def _submit_isr_change(self, partition: Partition, proposed: PendingIsrChange) -> None:
        sender = self._isr_changes
        assert sender is not None and proposed.sent is not None
        answer = sender.submit(partition.topic, partition.partition, partition.topic_id,
                               proposed.sent)
        answer.add_done_callback(
            lambda f: self._on_isr_change_answered(partition, proposed, f))

    def _on_isr_change_answered(self, partition: Partition, proposed: PendingIsrChange,
                                answer: asyncio.Future[IsrAnswer]) -> None:
        if answer.cancelled():
            return
        key = (partition.topic, partition.partition)
        if self.partitions.get(key) is not partition:
            return  # deleted meanwhile
        moved, again = partition.handle_alter_partition_answer(proposed, answer.result(),
                                                               self.clock.milliseconds())
        if moved:
            self._on_high_watermark_moved(key)
        else:
            # a commit that did not move the high watermark may still change the answer to a
            # waiting produce (NOT_ENOUGH_REPLICAS_AFTER_APPEND)
            self.produce_purgatory.check_and_complete(key)
        if again:
            self._submit_isr_change(partition, proposed)

    # -- fetch -----------------------------------------------------------------------------
    def _read_partition(self, params: FetchParams, req: FetchRequestPartition, limit: int,
                        min_one: bool) -> tuple[Partition, LogReadInfo]:
        p = self.partitions.get((req.topic, req.partition))
        if p is None:
            raise self._not_hosted(req.topic, req.partition)
        if (req.topic_id is not None and p.topic_id is not None
                and req.topic_id.int != p.topic_id.int):  # (UUID's == is Python code)
            # the name resolved to a topic recreated under a new id while this broker still
            # hosts the old one, or the other way round (Kafka's hasConsistentTopicId)
            raise KafkaError(ErrorCode.INCONSISTENT_TOPIC_ID)
        info = p.fetch_records(req.fetch_offset, limit,
                               current_leader_epoch=req.current_leader_epoch,
                               last_fetched_epoch=req.last_fetched_epoch,
                               replica_id=params.replica_id if params.is_from_follower else -1,
                               min_one_batch=min_one and req.max_bytes > 0,
                               read_committed=params.read_committed)
        return p, info

    def read_from_local_logs(self, params: FetchParams, partitions: list[FetchRequestPartition],
                             ) -> tuple[list[FetchResult], int, bool]:
        """Read each partition in request order within ``params.max_bytes``; the first
        partition with data may exceed it by one batch (KIP-74). Returns results, bytes read,
        and whether the fetch must be answered now whatever it read (a partition failed, or a
        fetcher's log diverges from the leader's)."""
        results: list[FetchResult] = []
        budget = params.max_bytes
        total = 0
        min_one = params.min_one_batch
        answer_now = False
        for req in partitions:
            try:
                p, info = self._read_partition(params, req, max(0, min(req.max_bytes, budget)),
                                               min_one)
            except KafkaError as e:
                answer_now = True
                p_ = self.partitions.get((req.topic, req.partition))
                results.append(FetchResult(
                    error=e.code,
                    high_watermark=p_.high_watermark if p_ and p_.log else -1,
                    last_stable_offset=p_.last_stable_offset if p_ and p_.log else -1,
                    log_start_offset=p_.log_start_offset if p_ else -1,
                ))
                continue
            if info.diverging_epoch is not None:
                answer_now = True
            size = len(info.records)
            if size:
                min_one = False
                budget -= size
                total += size
            results.append(FetchResult(
                high_watermark=info.high_watermark,
                last_stable_offset=info.last_stable_offset,
                log_start_offset=info.log_start_offset,
                records=info.records,
                diverging_epoch=info.diverging_epoch,
                aborted_transactions=info.aborted_transactions,
            ))
        return results, total, answer_now

    def _update_follower_positions(self, params: FetchParams,
                                   partitions: list[FetchRequestPartition],
                                   results: list[FetchResult], now_ms: int) -> None:
        """A follower's fetch offsets are its log end offsets: the leader may move the high
        watermark and answer waiting acks=all produces. Only partitions read without error
        and without divergence count (KAFKA-13141), and only when the fetch arrives, never
        when a waiting one completes."""
        for req, result in zip(partitions, results, strict=True):
            if result.error != ErrorCode.NONE or result.diverging_epoch is not None:
                continue
            p = self.partitions.get((req.topic, req.partition))
            if p is None or not p.is_leader or params.replica_id not in p.remote_replicas:
                continue
            update = p.update_follower_fetch_state(
                params.replica_id, req.fetch_offset, now_ms,
                follower_start_offset=req.log_start_offset, broker_epoch=params.replica_epoch)
            if update.isr_change is not None:
                self._submit_isr_change(p, update.isr_change)
            if update.high_watermark_moved:
                self._on_high_watermark_moved((req.topic, req.partition))

    def _may_have_news(self, params: FetchParams,
                       partitions: list[FetchRequestPartition]) -> bool:
        """Whether a waiting fetch could read anything new: some partition has records past
        its fetch offset (to the log end for a follower, the high watermark for a consumer),
        or is no longer led here as it was (the read will say how). False: every partition is
        still where the fetch's first read found nothing."""
        from_follower = params.is_from_follower
        for req in partitions:
            p = self.partitions.get((req.topic, req.partition))
            if p is None or not p.is_leader or p.log is None:
                return True
            if 0 <= req.current_leader_epoch != p.leader_epoch:
                return True
            log = p.log
            limit = log.log_end_offset if from_follower else p.high_watermark
            if limit != req.fetch_offset or log.log_start_offset > req.fetch_offset:
                return True
        return False

    def fetch_messages(self, params: FetchParams, partitions: list[FetchRequestPartition], *,
                       now_ms: int = 0,
                       ) -> Outcome[list[FetchResult]]:
        results, total, answer_now = self.read_from_local_logs(params, partitions)
        if params.is_from_follower:
            self._update_follower_positions(params, partitions, results, now_ms)
        if params.max_wait_ms <= 0 or not partitions or total >= params.min_bytes or answer_now:
            return results
        op = DelayedFetch(lambda: self.read_from_local_logs(params, partitions),
                          params.min_bytes,
                          lambda: self._may_have_news(params, partitions))
        keys = [(r.topic, r.partition) for r in partitions]
        return self.fetch_purgatory.try_complete_else_watch(op, keys, params.max_wait_ms)

    # -- offsets ---------------------------------------------------------------------------
    def fetch_offset_for_timestamp(self, topic: str, partition: int, timestamp: int,
                                   current_leader_epoch: int,
                                   replica_id: int = CONSUMER_REPLICA_ID,
                                   isolation_level: int = READ_UNCOMMITTED) -> OffsetLookup:
        """ListOffsets: raises KafkaError (unknown partition, not leader, fenced epoch). A
        replica (``replica_id`` >= 0) sees up to the log end, a consumer up to the high
        watermark, or the last stable offset with READ_COMMITTED."""
        return self._known_partition(topic, partition).fetch_offset_for_timestamp(
            timestamp, current_leader_epoch, replica_id,
            read_committed=isolation_level == READ_COMMITTED)

    def legacy_fetch_offsets_before(self, topic: str, partition: int, timestamp: int,
                                    max_num_offsets: int, replica_id: int, now_ms: int,
                                    ) -> list[int]:
        """ListOffsets v0: up to ``max_num_offsets`` offsets, largest first, by segment
        (:mod:`pybroker.cluster.legacy_offsets`); raises KafkaError as
        :meth:`fetch_offset_for_timestamp` does."""
        return legacy_fetch_offsets(self._known_partition(topic, partition), timestamp,
                                    max_num_offsets, replica_id, now_ms)

    def last_offset_for_leader_epoch(self, topic: str, partition: int,
                                     current_leader_epoch: int, leader_epoch: int,
                                     ) -> tuple[ErrorCode, int, int]:
        """OffsetForLeaderEpoch on the leader: ``(error, epoch, end offset)``, the epoch and
        offset -1 when undefined or refused (Kafka's ``lastOffsetForLeaderEpoch``)."""
        try:
            epoch, end_offset = self._known_partition(topic, partition) \
                .last_offset_for_leader_epoch(current_leader_epoch, leader_epoch)
        except KafkaError as e:
            return e.code, -1, -1
        return ErrorCode.NONE, epoch, end_offset

    def _known_partition(self, topic: str, partition: int) -> Partition:
        p = self.partitions.get((topic, partition))
        if p is None:
            raise self._not_hosted(topic, partition)
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

    def shutdown(self) -> None:
        """Answer what waits, and checkpoint the high watermarks (before the logs close);
        moves stop where they are (the future logs stay, and resume after a restart)."""
        self.log_dir_mover.shutdown()
        self.fetch_purgatory.shutdown()
        self.produce_purgatory.shutdown()
        self.checkpoint_high_watermarks()


def _volume(log_dir: Path) -> os.statvfs_result | None:
    try:
        return os.statvfs(log_dir)
    except OSError:
        return None
