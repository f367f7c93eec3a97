"""The internal topic a coordinator keeps its state in, and every write to it (Kafka's
``PartitionWriter`` with the topic half of ``CoordinatorRuntime``).

Both coordinators keep their state the same way: a compacted internal topic
(``__consumer_offsets``, ``__transaction_state``) whose partition for a key is Kafka's
``Utils.abs(key.hashCode) % partitions``, created on first need through the admin seam (at
once on the embedded node; in ZooKeeper mode the controller creates it later), appended to as
the coordinator's own (``AppendOrigin.COORDINATOR``) through the replica manager, and read back
by the :mod:`loader <pybroker.coordinator.runtime.loader>` when this broker starts leading a
partition. :class:`PartitionWriter` is that, written once; a coordinator brings the topic's
name, layout and configs and its record codec.

A failed append's error reaches clients through one of the mappings of :mod:`.errors`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from protocol.errors import ErrorCode, KafkaError
from protocol.records.record import build_batch
from pybroker.coordinator.partitioning import partition_for
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.outcome import Outcome, when_ready, when_settled
from pybroker.log.producer_state import AppendOrigin

if TYPE_CHECKING:
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.cluster.partition import Partition
    from pybroker.cluster.replica_manager import ReplicaManager, VerificationGuard

log = logging.getLogger(__name__)

E = ErrorCode

#: ``(key, value)`` records of one batch; a None value is a tombstone
Records = Sequence[tuple[bytes, bytes | None]]


# ---------------------------------------------------------------------------- the topic


class Appended(NamedTuple):
    """An append's error and, when it succeeded, the base offset its batch got (-1 if not)."""

    error: ErrorCode
    base_offset: int = -1


class TransactionalProducer(NamedTuple):
    """The producer a transactional coordinator batch is written for (a TxnOffsetCommit's)."""

    producer_id: int
    producer_epoch: int


#: the base sequence of the coordinator's transactional batches, as Kafka writes it: every
#: batch the coordinator writes is appended as the coordinator's (``AppendOrigin.COORDINATOR``),
#: whose sequences the log does not check (only the producer's epoch)
COORDINATOR_BASE_SEQUENCE = 0


@dataclass(frozen=True, slots=True)
class TopicLayout:
    """What a coordinator's internal topic is created with, from the coordinator's settings."""

    name: str
    num_partitions: int
    replication_factor: int
    configs: Mapping[str, str]
    #: whether an append creates the topic when it does not exist yet (the group coordinator
    #: writes before any FindCoordinator may have; the transaction coordinator never does)
    create_on_append: bool = False


class Chunk(NamedTuple):
    """Whole batches read from a partition, and the offset the log ended at."""

    records: bytes
    log_end_offset: int


class PartitionWriter:
    """A coordinator's internal topic: its layout, its creation, its appends and its reads.

    The layout comes from the metadata cache (an existing topic keeps the partition count it
    was created with, whatever the setting says now)."""

    def __init__(self, replica_manager: ReplicaManager, metadata: MetadataCache, admin: Any,
                 layout: TopicLayout, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self.replica_manager = replica_manager
        self.metadata = metadata
        self.admin = admin
        self.layout = layout
        self.clock = clock

    @property
    def name(self) -> str:
        return self.layout.name

    # -- layout ----------------------------------------------------------------------------
    @property
    def exists(self) -> bool:
        return self.metadata.topic(self.name) is not None

    @property
    def num_partitions(self) -> int:
        """The existing topic's partition count, else the configured one: keys' placement
        follows the topic as it was created."""
        info = self.metadata.topic(self.name)
        return len(info.partitions) if info is not None else self.layout.num_partitions

    def partition_for(self, key: str) -> int:
        return partition_for(key, self.num_partitions)

    def ensure_created(self, now_ms: int) -> ErrorCode:
        """Ask for the topic if it does not exist yet (Kafka does it on the first
        FindCoordinator). The replication factor is capped at the live brokers, so a single
        broker gets a usable topic with the default of 3. Until the topic exists, keys have
        no coordinator: COORDINATOR_NOT_AVAILABLE."""
        if self.exists:
            return E.NONE
        outcome = self.admin.create_internal_topic(
            self.name, self.layout.num_partitions, self.layout.replication_factor,
            dict(self.layout.configs), now_ms)
        if isinstance(outcome, KafkaError) or not self.exists:
            return E.COORDINATOR_NOT_AVAILABLE
        return E.NONE

    def partition(self, partition: int) -> Partition | None:
        return self.replica_manager.get_partition(self.name, partition)

    def is_leader(self, partition: int) -> bool:
        p = self.partition(partition)
        return p is not None and p.is_leader

    def led_partitions(self) -> list[int]:
        """The partitions this broker leads: the keys it coordinates."""
        return self.replica_manager.led_partitions(self.name)

    def leader_epoch(self, partition: int) -> int | None:
        """The epoch this broker leads ``partition`` in (the coordinator epoch); None when it
        does not lead it."""
        p = self.partition(partition)
        return p.leader_epoch if p is not None and p.is_leader else None

    # -- writes ----------------------------------------------------------------------------
    def _creatable(self, now_ms: int) -> ErrorCode:
        if self.layout.create_on_append and not self.exists:
            return self.ensure_created(now_ms)
        return E.NONE

    def append(self, partition: int, records: Records, now_ms: int, *, required_acks: int,
               timeout_ms: int, codec: int = 0,
               producer: TransactionalProducer | None = None,
               verification_guard: VerificationGuard | None = None) -> Outcome[Appended]:
        """Append ``records`` as one batch stamped with ``now_ms`` (CREATE_TIME) and answer
        the append's error and base offset: at once when ``required_acks`` is met already
        (acks=all on a leader that is the whole ISR), else a future of it bounded by
        ``timeout_ms`` (REQUEST_TIMED_OUT). A coordinator answers, and takes a write into its
        state, only then: one acknowledged and then lost with its leader would be a change the
        coordinator never made. With ``producer`` the batch is that producer's, transactional
        (base sequence 0), appended with its transaction's ``verification_guard`` (KIP-890).
        A failed future answers UNKNOWN_SERVER_ERROR; a disk that refuses, KAFKA_STORAGE_ERROR.
        """
        if not records:
            return Appended(E.NONE)
        error = self._creatable(now_ms)
        if error:
            return Appended(error)
        if producer is None:
            batch = build_batch(records, codec=codec, default_timestamp=now_ms)
        else:
            batch = build_batch(records, codec=codec, default_timestamp=now_ms,
                                producer_id=producer.producer_id,
                                producer_epoch=producer.producer_epoch,
                                base_sequence=COORDINATOR_BASE_SEQUENCE, is_transactional=True)
        key = (self.name, partition)
        try:
            outcome = self.replica_manager.append_records(
                {key: batch}, required_acks=required_acks, timeout_ms=timeout_ms, now_ms=now_ms,
                origin=AppendOrigin.COORDINATOR,
                verification_guards={key: verification_guard} if verification_guard else None)
        except OSError:
            log.exception("Appending to %s-%d failed", self.name, partition)
            return Appended(E.KAFKA_STORAGE_ERROR)

        def appended(results: Mapping[Any, Any]) -> Appended:
            result = results[key]
            if result.error:
                log.debug("Appending %d record(s) to %s-%d failed: %s", len(records), self.name,
                          partition, result.error.name)
                return Appended(result.error)
            return Appended(E.NONE, result.base_offset)

        return when_settled(outcome, appended, lambda _error: Appended(E.UNKNOWN_SERVER_ERROR))

    def append_to_leader(self, partition: int, records: Records, now_ms: int, *,
                         required_acks: int = 0, codec: int = 0) -> ErrorCode:
        """Append ``records`` as one batch without waiting for the followers (tombstones,
        which the next cleanup writes again if lost); the append's own error."""
        if not records:
            return E.NONE
        error = self._creatable(now_ms)
        if error:
            return error
        batch = build_batch(records, codec=codec, default_timestamp=now_ms)
        try:
            result, _ = self.replica_manager.append_to_leader(
                self.name, partition, batch, required_acks=required_acks, now_ms=now_ms,
                origin=AppendOrigin.COORDINATOR)
        except OSError:
            log.exception("Appending to %s-%d failed", self.name, partition)
            return E.KAFKA_STORAGE_ERROR
        if result.error:
            log.debug("Appending %d record(s) to %s-%d failed: %s %s", len(records), self.name,
                      partition, result.error.name, result.error_message or "")
        return result.error

    # -- reads -----------------------------------------------------------------------------
    def log_start_offset(self, partition: int) -> int | None:
        """Where a replay of ``partition`` starts; None when this broker does not lead it."""
        p = self.partition(partition)
        return p.log_start_offset if p is not None and p.is_leader else None

    def read_chunk(self, partition: int, offset: int, max_bytes: int) -> Chunk | None:
        """The whole batches from ``offset`` (at least one, else up to ``max_bytes``) and the
        log end offset, while this broker leads the partition; None when it does not. Like
        Kafka's loader this reads to the log end, not the high watermark: the leader's own log
        is what it serves from."""
        p = self.partition(partition)
        if p is None or not p.is_leader:
            return None
        end = p.log_end_offset
        if offset >= end:
            return Chunk(b"", end)
        info = p.read(offset, max_bytes, min_one_batch=True, up_to_high_watermark=False)
        if not info.size:
            return Chunk(b"", end)
        records = info.records
        return Chunk(records if isinstance(records, bytes) else records.read_bytes(), end)


def map_outcome(outcome: Outcome[ErrorCode],
                mapping: Callable[[ErrorCode], ErrorCode]) -> Outcome[ErrorCode]:
    """An append's error through ``mapping`` (NONE stays NONE), now or when it is known."""
    return when_ready(outcome, lambda error: mapping(error) if error else E.NONE)
