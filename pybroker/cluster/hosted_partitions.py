"""What every part of the replica manager stands on: the partitions this broker hosts (online,
and offline after a log dir failure) and the lookups every request path makes of them (Kafka's
``getPartitionOrException`` and ``getPartitionOrError``), the leadership listeners, the high
watermark checkpoints (``replication-offset-checkpoint``), and the ISR changes leaders send to
the controller; with the protocols of what the replica manager is given (replica fetchers, live
brokers, transaction verifier, ISR change sender)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from protocol.errors import ErrorCode, KafkaError
from pybroker.cluster.alter_log_dirs import LogDirMover
from pybroker.cluster.alter_partition import IsrAnswer, IsrUpdate
from pybroker.cluster.fetcher_state import InitialFetchState
from pybroker.cluster.isr import IsrSettings, PendingExpandIsr, PendingIsrChange
from pybroker.cluster.partition import Partition
from pybroker.cluster.replica_metrics import IsrMeters
from pybroker.cluster.txn_verification import TxnErrorMode
from pybroker.kernel.clock import Clock
from pybroker.kernel.outcome import Outcome
from pybroker.kernel.types import TopicPartition
from pybroker.log.checkpoints import (
    REPLICATION_OFFSET_CHECKPOINT,
    CheckpointError,
    read_offset_checkpoint,
    write_offset_checkpoint,
)
from pybroker.log.dir_failure import LogDirFailureChannel, storage_error
from pybroker.metrics.broker_topic_stats import BrokerTopicStats
from pybroker.metrics.registry import MetricsRegistry
from pybroker.purgatory import Purgatory

if TYPE_CHECKING:
    import uuid

    from pybroker.cluster.metadata_cache import BrokerEndpoint
    from pybroker.log.config import LogConfig
    from pybroker.log.log import Log
    from pybroker.log.manager import LogManager


# the replica manager logs under one name, whichever of its parts speaks
log = logging.getLogger("pybroker.cluster.replica_manager")


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


class HostedPartitions:
    """The partitions hosted here and their lookups, the part of
    :class:`~pybroker.cluster.replica_manager.ReplicaManager` the others use; its ``__init__``
    sets the state below."""

    broker_id: int
    clock: Clock
    log_manager: LogManager
    log_config_for: Callable[[str], LogConfig]
    partitions: dict[TopicPartition, Partition]
    offline_partitions: dict[TopicPartition, Partition]
    fetch_purgatory: Purgatory
    produce_purgatory: Purgatory
    _listeners: dict[str, list[LeadershipListener]]
    fetchers: ReplicaFetchers | None
    _alive_broker: AliveBroker | None
    high_watermark_checkpointing: bool
    isr_settings: IsrSettings
    _isr_changes: IsrChangeSender | None
    log_dir_mover: LogDirMover
    transaction_verifier: TransactionVerifier | None
    metrics: MetricsRegistry
    topic_stats: BrokerTopicStats
    isr_meters: IsrMeters

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

    # -- high watermark checkpoints --------------------------------------------------------
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

    # -- the partitions hosted -------------------------------------------------------------
    def _log_for(self, topic: str, partition: int, now_ms: int, is_new: bool = True) -> Log:
        plog = self.log_manager.get_log(topic, partition)
        if plog is None:
            plog = self.log_manager.get_or_create_log(topic, partition,
                                                      self.log_config_for(topic), now_ms,
                                                      is_new=is_new)
        plog.producer_state.transaction_verification_enabled = \
            self.transaction_verifier is not None
        return plog

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

    def _known_partition(self, topic: str, partition: int) -> Partition:
        p = self.partitions.get((topic, partition))
        if p is None:
            raise self._not_hosted(topic, partition)
        return p

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
        result = answer.result()
        moved, again = partition.handle_alter_partition_answer(proposed, result,
                                                               self.clock.milliseconds())
        if isinstance(result, ErrorCode):
            self.isr_meters.failed.count += 1
        elif (partition.partition_epoch == result.partition_epoch
              and partition.partition_state.isr == frozenset(result.isr)):
            # taken: Kafka's markExpand / markShrink
            if isinstance(proposed, PendingExpandIsr):
                self.isr_meters.expands.count += 1
            else:
                self.isr_meters.shrinks.count += 1
        if moved:
            self._on_high_watermark_moved(key)
        else:
            # a commit that did not move the high watermark may still change the answer to a
            # waiting produce (NOT_ENOUGH_REPLICAS_AFTER_APPEND)
            self.produce_purgatory.check_and_complete(key)
        if again:
            self._submit_isr_change(partition, proposed)
