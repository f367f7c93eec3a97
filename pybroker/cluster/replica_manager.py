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

The replica manager is one class, :class:`ReplicaManager`, made of parts along Kafka's later
seams: the partitions hosted here, their lookups, leadership listeners, high watermark checkpoints
and ISR changes (:mod:`pybroker.cluster.hosted_partitions`); becoming leader or follower
(:mod:`pybroker.cluster.replica_leadership`); the append path
(:mod:`pybroker.cluster.replica_append`); the fetch path (:mod:`pybroker.cluster.replica_fetch`);
log dirs, moves between them and their failures (:mod:`pybroker.cluster.replica_log_dirs`). This
module keeps its construction, the offsets and the shutdown.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from pybroker.cluster import replica_metrics
from pybroker.cluster.alter_log_dirs import LogDirMover
from pybroker.cluster.hosted_partitions import (
    AliveBroker,
    IsrChangeSender,
    LeadershipListener,
    ReplicaFetchers,
    TransactionVerifier,
)
from pybroker.cluster.isr import IsrSettings
from pybroker.cluster.legacy_offsets import legacy_fetch_offsets
from pybroker.cluster.partition import OffsetLookup, Partition
from pybroker.cluster.replica_append import ReplicaAppend
from pybroker.cluster.replica_fetch import (
    CONSUMER_REPLICA_ID,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    ReplicaFetch,
)
from pybroker.cluster.replica_leadership import ReplicaLeadership
from pybroker.config import broker_default
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.types import TopicPartition
from pybroker.log.producer_state import (
    AppendOrigin as AppendOrigin,
    VerificationGuard as VerificationGuard,
)
from pybroker.metrics.broker_topic_stats import BrokerTopicStats
from pybroker.metrics.registry import MetricsRegistry
from pybroker.purgatory import Purgatory
from pybroker.quota.replication import ReplicationQuota

if TYPE_CHECKING:
    from pybroker.log.config import LogConfig
    from pybroker.log.manager import LogManager
    from pybroker.log.producer_state import ProducerEntry


log = logging.getLogger(__name__)

# AppendOrigin (a client's Produce or the broker's coordinators) and VerificationGuard are
# re-exported: handlers and coordinators name them without reaching into the log

#: a TxnOffsetCommit's verification names no sequence (Kafka's RecordBatch.NO_SEQUENCE)
NO_SEQUENCE = -1


class ReplicaManager(ReplicaLeadership, ReplicaAppend, ReplicaFetch):
    def __init__(self, broker_id: int, log_manager: LogManager,
                 log_config_for: Callable[[str], LogConfig], *,
                 clock: Clock = SYSTEM_CLOCK, metrics: MetricsRegistry | None = None) -> None:
        """``metrics``: the broker's registry (a registry of its own by default)."""
        self.broker_id = broker_id
        self.metrics = metrics if metrics is not None else MetricsRegistry(clock)
        #: kafka.server:type=BrokerTopicMetrics
        self.topic_stats = BrokerTopicStats(self.metrics)
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
        #: transaction.max.timeout.ms: an open transaction older than this (and five minutes)
        #: is late (PartitionsWithLateTransactionsCount)
        self.transaction_max_timeout_ms: int = broker_default("transaction.max.timeout.ms")
        #: the leaders' replication quota (KIP-73); None or unbounded: no throttle
        self.leader_quota: ReplicationQuota | None = None
        #: the ReplicaManager, Partition, Log and purgatory metrics (replica_metrics)
        self.isr_meters = replica_metrics.register(self)

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

    def update_log_config(self, topic: str) -> None:
        config = self.log_config_for(topic)
        for (t, _), partition in self.partitions.items():
            if t == topic and partition.log is not None:
                partition.log.update_config(config)
        for (t, _), future in self.log_manager.future_logs().items():
            if t == topic:
                future.update_config(config)

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

    def shutdown(self) -> None:
        """Answer what waits, and checkpoint the high watermarks (before the logs close);
        moves stop where they are (the future logs stay, and resume after a restart)."""
        self.log_dir_mover.shutdown()
        self.fetch_purgatory.shutdown()
        self.produce_purgatory.shutdown()
        self.checkpoint_high_watermarks()
