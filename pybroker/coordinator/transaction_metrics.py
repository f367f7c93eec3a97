"""The transaction coordinator's metrics.

- ``kafka.coordinator.transaction:type=TransactionMarkerChannelManager``:
  UnknownDestinationQueueSize (markers waiting for a partition leader to be known) and
  LogAppendRetryQueueSize (completions waiting to be written again), as Kafka's;
- the transactions open here, which Kafka has no metric for: served as
  ``pybroker_transaction_coordinator_transactions{state}``, the ids of each state other than
  Empty and Dead among the partitions of ``__transaction_state`` this broker coordinates
  (Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pybroker.coordinator.transaction.markers import UNKNOWN_DESTINATION
from pybroker.coordinator.transaction.state import TransactionState
from pybroker.metrics.registry import MetricsRegistry, mbean

if TYPE_CHECKING:
    from pybroker.coordinator.transaction.coordinator import TransactionCoordinator

_IDLE = (TransactionState.EMPTY, TransactionState.DEAD)


def register(coordinator: TransactionCoordinator, registry: MetricsRegistry) -> None:
    registry.gauge(mbean("kafka.coordinator.transaction", "TransactionMarkerChannelManager",
                         "UnknownDestinationQueueSize"),
                   lambda: coordinator.queues.waiting(UNKNOWN_DESTINATION))
    registry.gauge(mbean("kafka.coordinator.transaction", "TransactionMarkerChannelManager",
                         "LogAppendRetryQueueSize"),
                   lambda: coordinator.completion_retry_count)

    def by_state() -> list[tuple[tuple[tuple[str, str], ...], int]]:
        counts = {s: 0 for s in TransactionState if s not in _IDLE}
        for _, metadata in coordinator.state_manager.all_transactions():
            if metadata.state in counts:
                counts[metadata.state] += 1
        return [((("state", s.value),), n) for s, n in counts.items()]

    registry.exported("pybroker_transaction_coordinator_transactions", "gauge",
                      "Transactional ids in each open state, in the partitions of "
                      "__transaction_state this broker coordinates", by_state)
