"""The group coordinator's metrics.

- ``kafka.server:type=GroupMetadataManager`` (Kafka's classic coordinator): NumGroups,
  NumGroups<State> for each state, NumOffsets (committed offsets held);
- ``kafka.server:type=group-coordinator-metrics``, Kafka's own metrics group:
  offset-commit-count/-rate and group-completed-rebalance-count/-rate. Strimzi's rules export
  no such group, so these are also served under the names such a rule would give them,
  ``kafka_server_group_coordinator_metrics_offset_commit_count_total`` and
  ``..._group_completed_rebalance_count_total`` (see docs/metrics.md);
- the group counts of Kafka 4's ``group-coordinator-metrics``: ``group-count`` by protocol
  (``classic``, ``consumer``) and ``consumer-group-count`` by state of the KIP-848 groups,
  served as ``kafka_server_group_coordinator_metrics_group_count{protocol}`` and
  ``..._consumer_group_count{state}``;
- consumer lag, as operators otherwise run kafka-exporter for, under its names:
  ``kafka_consumergroup_current_offset{consumergroup,topic,partition}`` for every partition a
  group this broker coordinates has committed, and ``kafka_consumergroup_lag`` (high watermark
  minus the committed offset, at least 0) where this broker also leads the partition; the
  other partitions' lag is ``kafka_topic_partition_current_offset`` (each leader serves its
  partitions' high watermark) minus the committed offset, joined in PromQL.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pybroker.coordinator.group.consumer.group import ConsumerGroupState
from pybroker.coordinator.group.state import GroupState
from pybroker.metrics.registry import Meter, MetricsRegistry, mbean

if TYPE_CHECKING:
    from pybroker.coordinator.group.consumer.group import ConsumerGroup
    from pybroker.coordinator.group.group import ClassicGroup
    from pybroker.coordinator.group_service import GroupCoordinatorService

Labels = tuple[tuple[str, str], ...]


def register(service: GroupCoordinatorService, registry: MetricsRegistry) -> Meter:
    """Register the service's metrics; the meter its offset commits mark."""
    commits = Meter(registry.clock.monotonic())

    def groups() -> list[ClassicGroup]:
        coordinator = service.started_coordinator
        return coordinator.groups() if coordinator is not None else []

    def gauge(name: str, read: object) -> None:
        registry.gauge(mbean("kafka.server", "GroupMetadataManager", name), read)  # type: ignore[arg-type]

    gauge("NumGroups", lambda: len(groups()))
    for state in GroupState:
        gauge(f"NumGroups{state.value}", lambda s=state: sum(1 for g in groups() if g.state is s))
    gauge("NumOffsets", lambda: sum(len(service.offsets.offsets_of(g))
                                    for g in service.offsets.groups()))

    def rebalances() -> int:
        coordinator = service.started_coordinator
        return coordinator.completed_rebalances if coordinator is not None else 0

    def group_metrics() -> dict[str, float]:
        now = registry.clock.monotonic()
        return {"offset-commit-count": commits.count,
                "offset-commit-rate": commits.rates(now)[1],
                "group-completed-rebalance-count": rebalances()}

    registry.attributes(mbean("kafka.server", "group-coordinator-metrics", ""), group_metrics)
    registry.exported("kafka_server_group_coordinator_metrics_offset_commit_count", "counter",
                      "Offsets committed to the groups this broker coordinates "
                      "(group-coordinator-metrics offset-commit-count)",
                      lambda: [((), commits.count)])
    registry.exported("kafka_server_group_coordinator_metrics_group_completed_rebalance_count",
                      "counter", "Rebalances of the groups this broker coordinates that "
                      "completed their join phase (group-completed-rebalance-count)",
                      lambda: [((), rebalances())])

    def consumer_groups() -> list[ConsumerGroup]:
        consumer = service.started_consumer
        return consumer.groups() if consumer is not None else []

    registry.exported("kafka_server_group_coordinator_metrics_group_count", "gauge",
                      "Groups this broker coordinates, by protocol (Kafka 4's "
                      "group-coordinator-metrics group-count)",
                      lambda: [((("protocol", "classic"),), len(groups())),
                               ((("protocol", "consumer"),), len(consumer_groups()))])

    def by_state() -> list[tuple[Labels, float]]:
        counts = Counter(g.state for g in consumer_groups())
        return [((("state", state.value.lower()),), counts.get(state, 0))
                for state in ConsumerGroupState]

    registry.exported("kafka_server_group_coordinator_metrics_consumer_group_count", "gauge",
                      "KIP-848 consumer groups this broker coordinates, by state (Kafka 4's "
                      "group-coordinator-metrics consumer-group-count)", by_state)

    def offsets() -> Iterator[tuple[str, str, int, int]]:
        for group_id in service.offsets.groups():
            for (topic, partition), committed in service.offsets.offsets_of(group_id).items():
                if committed.offset >= 0:
                    yield group_id, topic, partition, committed.offset

    def labels(group_id: str, topic: str, partition: int) -> Labels:
        return (("consumergroup", group_id), ("partition", str(partition)), ("topic", topic))

    registry.exported("kafka_consumergroup_current_offset", "gauge",
                      "Current offset of a consumer group at a topic partition (kafka-exporter)",
                      lambda: [(labels(g, t, p), o) for g, t, p, o in offsets()])

    def lags() -> Iterator[tuple[Labels, int]]:
        partitions = service.replica_manager.partitions
        for group_id, topic, partition, offset in offsets():
            p = partitions.get((topic, partition))
            if p is not None and p.is_leader:
                yield labels(group_id, topic, partition), max(0, p.high_watermark - offset)

    registry.exported("kafka_consumergroup_lag", "gauge",
                      "Current approximate lag of a consumer group at a topic partition "
                      "(kafka-exporter)", lags)
    return commits
