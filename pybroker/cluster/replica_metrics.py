"""The replica manager's metrics, as Kafka's ``ReplicaManager``, ``Partition``, ``UnifiedLog``
and ``DelayedOperationPurgatory`` register them: read from the hosted partitions when the
metrics are read (gauges), or marked as the ISR changes (meters).

- ``kafka.server:type=ReplicaManager``: PartitionCount, LeaderCount, OfflineReplicaCount,
  UnderReplicatedPartitions, UnderMinIsrPartitionCount, AtMinIsrPartitionCount,
  ProducerIdCount; IsrShrinksPerSec, IsrExpandsPerSec, FailedIsrUpdatesPerSec;
- ``kafka.cluster:type=Partition,topic=T,partition=P``: UnderReplicated, InSyncReplicasCount,
  UnderMinIsr, AtMinIsr, ReplicasCount, LastStableOffsetLag;
- ``kafka.log:type=Log,topic=T,partition=P``: Size, NumLogSegments, LogStartOffset,
  LogEndOffset (a log being moved between log dirs also with ``is-future=true``);
- ``kafka.server:type=DelayedOperationPurgatory,delayedOperation=Produce|Fetch``:
  PurgatorySize, NumDelayedOperations.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pybroker.metrics.registry import Meter, MetricsRegistry, mbean

if TYPE_CHECKING:
    from pybroker.cluster.partition import Partition
    from pybroker.cluster.replica_manager import ReplicaManager
    from pybroker.log.log import Log

Tags = tuple[tuple[str, str], ...]


class IsrMeters:
    """The ReplicaManager's ISR meters (marked when the controller takes a change)."""

    __slots__ = ("shrinks", "expands", "failed")

    def __init__(self, registry: MetricsRegistry) -> None:
        def meter(name: str) -> Meter:
            return registry.meter(mbean("kafka.server", "ReplicaManager", name))

        self.shrinks = meter("IsrShrinksPerSec")
        self.expands = meter("IsrExpandsPerSec")
        self.failed = meter("FailedIsrUpdatesPerSec")


def _tags(p: Partition) -> Tags:
    return (("topic", p.topic), ("partition", str(p.partition)))


def _under_replicated(p: Partition) -> bool:
    return p.is_leader and len(p.partition_state.isr) < len(p.replicas)


def _at_min_isr(p: Partition) -> bool:
    if not p.is_leader:
        return False
    assert p.log is not None
    return len(p.partition_state.isr) == p.effective_min_isr(p.log.config.min_insync_replicas)


#: how much longer than transaction.max.timeout.ms a transaction stays open before it counts
#: as late (Kafka's ``ProducerStateManager.LATE_TRANSACTION_BUFFER_MS``, KIP-664)
LATE_TRANSACTION_BUFFER_MS = 5 * 60 * 1000


def register(rm: ReplicaManager) -> IsrMeters:
    """Register the replica manager's metrics in its registry; the ISR meters to mark."""
    registry = rm.metrics

    def gauge(name: str, read: object) -> None:
        registry.gauge(mbean("kafka.server", "ReplicaManager", name), read)  # type: ignore[arg-type]

    def partitions() -> list[Partition]:
        return list(rm.partitions.values())

    gauge("LeaderCount", lambda: sum(1 for p in partitions() if p.is_leader))
    gauge("PartitionCount", lambda: len(rm.partitions) + len(rm.offline_partitions))
    gauge("OfflineReplicaCount", lambda: len(rm.offline_partitions))
    gauge("UnderReplicatedPartitions", lambda: sum(1 for p in partitions()
                                                   if _under_replicated(p)))
    gauge("UnderMinIsrPartitionCount", lambda: sum(1 for p in partitions()
                                                   if p.is_under_min_isr))
    gauge("AtMinIsrPartitionCount", lambda: sum(1 for p in partitions() if _at_min_isr(p)))
    gauge("ReassigningPartitions", lambda: sum(1 for p in partitions()
                                               if p.is_leader and p.is_reassigning))
    def late(p: Partition) -> bool:
        oldest = p.log.producer_state.oldest_ongoing_txn_timestamp() if p.log else -1
        late_ms = rm.transaction_max_timeout_ms + LATE_TRANSACTION_BUFFER_MS
        return oldest > 0 and rm.clock.milliseconds() - oldest > late_ms

    gauge("PartitionsWithLateTransactionsCount", lambda: sum(1 for p in partitions()
                                                             if late(p)))
    gauge("ProducerIdCount", lambda: sum(len(p.log.producer_state.producers)
                                         for p in partitions() if p.log is not None))

    def partition_family(name: str, read: object) -> None:
        def members() -> Iterator[tuple[Tags, float]]:
            for p in partitions():
                yield _tags(p), float(read(p))  # type: ignore[operator]

        registry.gauge_family(mbean("kafka.cluster", "Partition", name), members)

    partition_family("UnderReplicated", lambda p: int(_under_replicated(p)))
    partition_family("InSyncReplicasCount",
                     lambda p: len(p.partition_state.isr) if p.is_leader else 0)
    partition_family("UnderMinIsr", lambda p: int(p.is_under_min_isr))
    partition_family("AtMinIsr", lambda p: int(_at_min_isr(p)))
    partition_family("ReplicasCount", lambda p: len(p.replicas) if p.is_leader else 0)
    partition_family("LastStableOffsetLag",
                     lambda p: max(0, p.high_watermark - p.last_stable_offset)
                     if p.is_leader else 0)

    def logs() -> Iterator[tuple[Tags, Log]]:
        for p in partitions():
            if p.log is not None:
                yield _tags(p), p.log
        for (topic, partition), future in rm.log_manager.future_logs().items():
            yield (("topic", topic), ("partition", str(partition)), ("is-future", "true")), future

    def log_family(name: str, read: object) -> None:
        def members() -> Iterator[tuple[Tags, float]]:
            for tags, log in logs():
                yield tags, float(read(log))  # type: ignore[operator]

        registry.gauge_family(mbean("kafka.log", "Log", name), members)

    log_family("Size", lambda log: log.size_in_bytes)
    log_family("NumLogSegments", lambda log: len(log.segments))
    log_family("LogStartOffset", lambda log: log.log_start_offset)
    log_family("LogEndOffset", lambda log: log.log_end_offset)

    def high_watermarks() -> Iterator[tuple[Tags, int]]:
        for p in partitions():
            if p.is_leader:
                yield (("partition", str(p.partition)), ("topic", p.topic)), p.high_watermark

    registry.exported("kafka_topic_partition_current_offset", "gauge",
                      "Current offset (the high watermark) of a partition this broker leads "
                      "(kafka-exporter)", high_watermarks)

    for purgatory in (rm.produce_purgatory, rm.fetch_purgatory):
        for name, read in (("PurgatorySize", lambda q=purgatory: q.watched),
                           ("NumDelayedOperations", lambda q=purgatory: len(q))):
            registry.gauge(mbean("kafka.server", "DelayedOperationPurgatory", name,
                                 delayedOperation=purgatory.name), read)
    return IsrMeters(registry)
