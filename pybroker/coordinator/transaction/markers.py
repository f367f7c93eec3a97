"""Transaction markers on their way to the partitions' leaders (the queues of Kafka's
``TransactionMarkerChannelManager``), without any I/O.

When a transaction is committed or aborted, every partition it wrote gets a COMMIT or ABORT
marker, written by the partition's leader when it serves WriteTxnMarkers. The coordinator puts
one :class:`MarkerEntry` per (transaction, destination broker) into :class:`MarkerQueues`: one
queue per destination, and inside it one per ``__transaction_state`` partition, so that a
partition this broker stops leading can have its markers dropped at once. A sender per
destination (:mod:`pybroker.coordinator.transaction_service`) drains its queue into one
WriteTxnMarkers request and hands the answer back to the coordinator, which removes the
partitions that have their marker, queues the others again (with their leaders looked up
anew), and writes CompleteCommit or CompleteAbort once none is left.

Entries whose partition leader is known but not alive wait under :data:`UNKNOWN_DESTINATION`
until a leader is found again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from protocol.errors import ErrorCode
from protocol.messages.write_txn_markers_request import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
)
from protocol.messages.write_txn_markers_response import WriteTxnMarkersResponse
from pybroker.kernel.types import TopicPartition

from .metadata import TransactionMetadata, TxnTransitMetadata

#: the destination of markers whose partition leader is not alive (Kafka's ``Node.noNode``)
UNKNOWN_DESTINATION = -1


@dataclass(eq=False, slots=True)
class PendingCompleteTxn:
    """A transaction whose markers are being written, and the Complete* transition that
    follows (compared by identity, as Kafka compares them in ``remove(key, value)``)."""

    transactional_id: str
    coordinator_epoch: int
    txn_metadata: TransactionMetadata
    new_metadata: TxnTransitMetadata


@dataclass(frozen=True, slots=True)
class MarkerEntry:
    """One WritableTxnMarker: the markers of one transaction for partitions of one leader."""

    pending: PendingCompleteTxn
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    commit: bool
    partitions: frozenset[TopicPartition]

    @property
    def transactional_id(self) -> str:
        return self.pending.transactional_id


@dataclass(slots=True)
class MarkerQueues:
    """Marker entries waiting to be sent: destination broker -> transaction-log partition ->
    entries in the order they were added."""

    _queues: dict[int, dict[int, list[MarkerEntry]]] = field(default_factory=dict)

    def add(self, destination: int, txn_partition: int, entry: MarkerEntry) -> None:
        self._queues.setdefault(destination, {}).setdefault(txn_partition, []).append(entry)

    def drain(self, destination: int) -> list[MarkerEntry]:
        """Take every entry waiting for ``destination``."""
        by_partition = self._queues.pop(destination, {})
        return [e for entries in by_partition.values() for e in entries]

    def remove_partition(self, txn_partition: int) -> list[MarkerEntry]:
        """Take every entry of a transaction-log partition, whatever its destination."""
        removed: list[MarkerEntry] = []
        for destination in list(self._queues):
            by_partition = self._queues[destination]
            removed.extend(by_partition.pop(txn_partition, ()))
            if not by_partition:
                del self._queues[destination]
        return removed

    def destinations(self) -> list[int]:
        """Destinations with entries waiting."""
        return sorted(d for d, by_partition in self._queues.items()
                      if any(by_partition.values()))

    def waiting(self, destination: int | None = None) -> int:
        """How many entries wait (for ``destination``, or in all)."""
        return sum(len(entries) for d, by_partition in self._queues.items()
                   if destination is None or d == destination
                   for entries in by_partition.values())

    def __iter__(self) -> Iterator[MarkerEntry]:
        for by_partition in self._queues.values():
            for entries in by_partition.values():
                yield from entries


# ---------------------------------------------------------------------------- WriteTxnMarkers


def write_txn_markers_request(entries: list[MarkerEntry]) -> WriteTxnMarkersRequest:
    """One WriteTxnMarkers request carrying ``entries``, one marker each, partitions grouped by
    topic."""
    markers = []
    for entry in entries:
        by_topic: dict[str, list[int]] = {}
        for topic, partition in sorted(entry.partitions):
            by_topic.setdefault(topic, []).append(partition)
        markers.append(WritableTxnMarker(
            producer_id=entry.producer_id, producer_epoch=entry.producer_epoch,
            transaction_result=entry.commit, coordinator_epoch=entry.coordinator_epoch,
            topics=[WritableTxnMarkerTopic(name=t, partition_indexes=ps)
                    for t, ps in by_topic.items()]))
    return WriteTxnMarkersRequest(markers=markers)


def errors_by_producer(response: WriteTxnMarkersResponse,
                       ) -> dict[int, dict[TopicPartition, ErrorCode]]:
    """Each producer id's partition errors in a WriteTxnMarkers answer (Kafka's
    ``errorsByProducerId``); an error code this broker does not know is UNKNOWN_SERVER_ERROR."""
    out: dict[int, dict[TopicPartition, ErrorCode]] = {}
    for marker in response.markers:
        errors = out.setdefault(marker.producer_id, {})
        for topic in marker.topics:
            for p in topic.partitions:
                try:
                    errors[(topic.name, p.partition_index)] = ErrorCode(p.error_code)
                except ValueError:
                    errors[(topic.name, p.partition_index)] = ErrorCode.UNKNOWN_SERVER_ERROR
    return out
