"""The ``__consumer_offsets`` topic: its record formats, its creation, appends and replay.

Every record the group coordinator writes is keyed, and both key and value start with an
int16 version that says what the rest is (Kafka's ``GroupMetadataManager`` and
``GroupCoordinatorRecordHelpers``)::

    key version 0, 1   OffsetCommitKey (group, topic, partition)
                       value: OffsetCommitValue v1 when the commit carries an expire
                       timestamp (OffsetCommit v2-v4 retention), v3 otherwise
    key version 2      GroupMetadataKey (group)
                       value: GroupMetadataValue v3 (members, assignments, generation)
    key version 3-8,16 a KIP-848 consumer group's records (:mod:`.consumer.records`)

A null value is a tombstone: log compaction eventually drops the key, and replay deletes it.
Kafka reads every value version its specs define (0-4); the consumer group records are
replayed into :class:`~.consumer.group.ConsumerGroup` objects, and keys of other types (share
and streams groups) are skipped, as :func:`deserialize_key` and :meth:`OffsetsTopic.replay` do.

Writes follow Kafka: one batch per operation (an OffsetCommit request's offsets are appended
atomically), CREATE_TIME stamped with the write time, the codec of
``offsets.topic.compression.codec``, appended as the coordinator's own (``AppendOrigin``). A TxnOffsetCommit's batch carries the producer's id and
epoch with the transactional attribute set (base sequence 0, as Kafka's coordinator writes
it); the COMMIT or ABORT marker its transaction coordinator has written to the partition later
decides whether its offsets count.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from protocol.errors import ErrorCode, KafkaError, ProtocolError
from protocol.messages import (
    group_metadata_key,
    group_metadata_value,
    offset_commit_key,
    offset_commit_value,
)
from protocol.messages.group_metadata_key import GroupMetadataKey
from protocol.messages.group_metadata_value import GroupMetadataValue
from protocol.messages.offset_commit_key import OffsetCommitKey
from protocol.primitives import Reader
from protocol.records.record import decode_batch
from pybroker.config import broker_default, broker_value
from pybroker.coordinator.partitioning import OFFSETS_TOPIC, partition_for
from pybroker.coordinator.runtime.errors import (
    CONSUMER_GROUP_ERRORS,
    GROUP_STORE_ERRORS,
    OFFSET_COMMIT_ERRORS,
)
from pybroker.coordinator.runtime.loader import CoordinatorLoader
from pybroker.coordinator.runtime.writer import (
    COORDINATOR_BASE_SEQUENCE,
    Appended as Appended,
    PartitionWriter,
    TopicLayout,
    TransactionalProducer,
    map_outcome,
)
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.outcome import Outcome, when_ready
from pybroker.kernel.types import TopicPartition

from .consumer import records as consumer_records
from .consumer.group import ConsumerGroup

if TYPE_CHECKING:
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.cluster.replica_manager import ReplicaManager, VerificationGuard

log = logging.getLogger(__name__)


# Key versions double as record types.
LEGACY_OFFSET_COMMIT_KEY_VERSION = 0
OFFSET_COMMIT_KEY_VERSION = 1
GROUP_METADATA_KEY_VERSION = 2

# The value versions Kafka 3.9 writes (the highest non-flexible ones; v1 to keep an expiry).
OFFSET_COMMIT_VALUE_VERSION = 3
OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY = 1
GROUP_METADATA_VALUE_VERSION = 3

NO_TIMESTAMP = -1  # OffsetCommitRequest.DEFAULT_TIMESTAMP: no expire timestamp
NO_LEADER_EPOCH = -1

# Control records (transaction markers) carry an int16 version and an int16 type as key.
_CONTROL_KEY = struct.Struct(">hh")
_CONTROL_ABORT, _CONTROL_COMMIT = 0, 1
_VERSION = struct.Struct(">h")
_DECODE_ERRORS = (ProtocolError, struct.error, IndexError, ValueError, UnicodeDecodeError)


# ---------------------------------------------------------------------------- configuration


@dataclass(frozen=True, slots=True)
class OffsetsConfig:
    """The broker properties of the offsets topic and of committed offsets; defaults from the
    configuration catalogue."""

    num_partitions: int = broker_default("offsets.topic.num.partitions")
    replication_factor: int = broker_default("offsets.topic.replication.factor")
    segment_bytes: int = broker_default("offsets.topic.segment.bytes")
    compression_codec: int = broker_default("offsets.topic.compression.codec")
    load_buffer_size: int = broker_default("offsets.load.buffer.size")
    retention_ms: int = broker_default("offsets.retention.minutes") * 60_000
    retention_check_interval_ms: int = broker_default("offsets.retention.check.interval.ms")
    metadata_max_bytes: int = broker_default("offset.metadata.max.bytes")
    commit_timeout_ms: int = broker_default("offsets.commit.timeout.ms")
    commit_required_acks: int = broker_default("offsets.commit.required.acks")

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> OffsetsConfig:
        """From broker properties (``BrokerConfig.props``), parsed by the catalogue."""
        return cls(
            num_partitions=broker_value(props, "offsets.topic.num.partitions"),
            replication_factor=broker_value(props, "offsets.topic.replication.factor"),
            segment_bytes=broker_value(props, "offsets.topic.segment.bytes"),
            compression_codec=broker_value(props, "offsets.topic.compression.codec"),
            load_buffer_size=broker_value(props, "offsets.load.buffer.size"),
            retention_ms=broker_value(props, "offsets.retention.minutes") * 60_000,
            retention_check_interval_ms=broker_value(props,
                                                     "offsets.retention.check.interval.ms"),
            metadata_max_bytes=broker_value(props, "offset.metadata.max.bytes"),
            commit_timeout_ms=broker_value(props, "offsets.commit.timeout.ms"),
            commit_required_acks=broker_value(props, "offsets.commit.required.acks"),
        )


# ---------------------------------------------------------------------------- record formats


@dataclass(frozen=True, slots=True)
class CommittedOffset:
    """A committed offset as cached and stored (Kafka's ``OffsetAndMetadata``).

    ``expire_timestamp`` is -1 unless the commit asked for its own retention (OffsetCommit
    v2-v4); ``leader_epoch`` is -1 when the consumer did not send one.
    """

    offset: int
    leader_epoch: int = NO_LEADER_EPOCH
    metadata: str = ""
    commit_timestamp: int = 0
    expire_timestamp: int = NO_TIMESTAMP


class OffsetRecord(NamedTuple):
    """A committed offset with the base offset of the batch that wrote it (Kafka's
    ``CommitRecordMetadataAndOffset``). Where plain and transactional commits of a partition
    meet, the one written later in the log wins, whatever order their answers or markers
    came in (a compacted log must load the same offset as the live cache)."""

    batch_offset: int
    committed: CommittedOffset

    def older_than(self, batch_offset: int) -> bool:
        return self.batch_offset < batch_offset


#: the transactional producer a TxnOffsetCommit writes for
TxnProducer = TransactionalProducer

#: the base sequence of a TxnOffsetCommit's batch, as Kafka's coordinator writes it
TXN_OFFSET_COMMIT_BASE_SEQUENCE = COORDINATOR_BASE_SEQUENCE


@dataclass(frozen=True, slots=True)
class UnknownKey:
    """A key version this coordinator does not handle; replay skips such records."""

    version: int


@dataclass(frozen=True, slots=True)
class ConsumerGroupKey:
    """The key of a consumer group record: its type, and a reader past the type."""

    record_type: int
    reader: Reader


CoordinatorKey = OffsetCommitKey | GroupMetadataKey | ConsumerGroupKey | UnknownKey


def _prefixed(version: int, module: Any, message: Any) -> bytes:
    return _VERSION.pack(version) + module.encode(message, version)


def serialize_offset_commit_key(group: str, topic: str, partition: int) -> bytes:
    return _prefixed(OFFSET_COMMIT_KEY_VERSION, offset_commit_key,
                     OffsetCommitKey(group=group, topic=topic, partition=partition))


def serialize_offset_commit_value(committed: CommittedOffset) -> bytes:
    """v1 keeps an explicit expire timestamp (and loses the leader epoch, as in Kafka)."""
    version = (OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY
               if committed.expire_timestamp != NO_TIMESTAMP else OFFSET_COMMIT_VALUE_VERSION)
    value = offset_commit_value.OffsetCommitValue(
        offset=committed.offset,
        leader_epoch=committed.leader_epoch,
        metadata=committed.metadata,
        commit_timestamp=committed.commit_timestamp,
        expire_timestamp=committed.expire_timestamp,
    )
    return _prefixed(version, offset_commit_value, value)


def serialize_group_metadata_key(group: str) -> bytes:
    return _prefixed(GROUP_METADATA_KEY_VERSION, group_metadata_key, GroupMetadataKey(group=group))


def serialize_group_metadata_value(value: GroupMetadataValue) -> bytes:
    return _prefixed(GROUP_METADATA_VALUE_VERSION, group_metadata_value, value)


def _split_version(data: bytes | bytearray | memoryview) -> tuple[int, Reader]:
    if len(data) < 2:
        raise ProtocolError(f"coordinator record of {len(data)} bytes has no version")
    return _VERSION.unpack_from(data)[0], Reader(data, 2)


def deserialize_key(data: bytes | bytearray | memoryview) -> CoordinatorKey:
    """The key of a ``__consumer_offsets`` record; other key versions give :class:`UnknownKey`.

    Like Kafka's readers, bytes after the known fields are ignored.
    """
    version, r = _split_version(data)
    try:
        if version in (LEGACY_OFFSET_COMMIT_KEY_VERSION, OFFSET_COMMIT_KEY_VERSION):
            return offset_commit_key.read(r, version)
        if version == GROUP_METADATA_KEY_VERSION:
            return group_metadata_key.read(r, version)
        if version in consumer_records.RECORD_TYPES:
            return ConsumerGroupKey(version, r)
    except _DECODE_ERRORS as exc:
        raise ProtocolError(f"malformed coordinator key v{version}: {exc}") from exc
    return UnknownKey(version)


def deserialize_offset_commit_value(
    data: bytes | bytearray | memoryview | None,
) -> CommittedOffset | None:
    """An offset commit value, or None for a tombstone."""
    if data is None:
        return None
    version, r = _split_version(data)
    try:
        v = offset_commit_value.read(r, version)
    except _DECODE_ERRORS as exc:
        raise ProtocolError(f"malformed OffsetCommitValue v{version}: {exc}") from exc
    return CommittedOffset(v.offset, v.leader_epoch, v.metadata, v.commit_timestamp,
                           v.expire_timestamp)


def deserialize_group_metadata_value(
    data: bytes | bytearray | memoryview | None,
) -> GroupMetadataValue | None:
    """A group metadata value, or None for a tombstone.

    Version 0 had no rebalance timeout; Kafka takes the session timeout for it.
    """
    if data is None:
        return None
    version, r = _split_version(data)
    try:
        value = group_metadata_value.read(r, version)
    except _DECODE_ERRORS as exc:
        raise ProtocolError(f"malformed GroupMetadataValue v{version}: {exc}") from exc
    if version == 0:
        for member in value.members:
            member.rebalance_timeout = member.session_timeout
    return value


# ---------------------------------------------------------------------------- append errors


def commit_error_for(append_error: ErrorCode) -> ErrorCode:
    """What an OffsetCommit answers when its append failed (Kafka's
    ``maybeConvertOffsetCommitError``): clients retry or rediscover the coordinator."""
    return OFFSET_COMMIT_ERRORS(append_error)


def group_store_error_for(append_error: ErrorCode) -> ErrorCode:
    """What a SyncGroup (or any group write) answers when the group's append failed
    (Kafka's ``storeGroup`` mapping)."""
    return GROUP_STORE_ERRORS(append_error)


# ---------------------------------------------------------------------------- the topic


@dataclass(slots=True)
class ReplayedPartition:
    """What one ``__consumer_offsets`` partition holds once its log is replayed.

    ``offset_records`` maps group -> (topic, partition) -> committed offset with the base
    offset of the batch that wrote it, the form the offset cache keeps (so a loaded partition
    is handed over by reference, not copied offset by offset); ``groups`` maps each group
    whose metadata appears in the log to its latest value, or None when the last record was a
    tombstone (the group was deleted). ``pending`` holds the transactional offsets whose
    transaction has no marker yet: producer id -> group -> (topic, partition) -> record.
    """

    partition: int
    offset_records: dict[str, dict[TopicPartition, OffsetRecord]] = field(default_factory=dict)
    groups: dict[str, GroupMetadataValue | None] = field(default_factory=dict)
    end_offset: int = 0
    pending: dict[int, dict[str, dict[TopicPartition, OffsetRecord]]] = field(
        default_factory=dict)
    #: the KIP-848 consumer groups, rebuilt from their records
    consumer_groups: dict[str, ConsumerGroup] = field(default_factory=dict)

    @property
    def offsets(self) -> dict[str, dict[TopicPartition, CommittedOffset]]:
        """group -> (topic, partition) -> committed offset."""
        return {g: {tp: r.committed for tp, r in rs.items()}
                for g, rs in self.offset_records.items()}

    @property
    def batch_offsets(self) -> dict[str, dict[TopicPartition, int]]:
        """group -> (topic, partition) -> the base offset of the batch that wrote it."""
        return {g: {tp: r.batch_offset for tp, r in rs.items()}
                for g, rs in self.offset_records.items()}

    def records(self, group: str) -> dict[TopicPartition, OffsetRecord]:
        """The group's committed offsets with their batch offsets."""
        return self.offset_records.get(group, {})


class PartitionReplay:
    """The state machine of one partition's replay, record by record, later records winning.

    Transactional offset commits stay pending per producer until their marker: a commit
    marker applies them unless a later non-transactional commit of the same partition was
    already read, an abort marker drops them. A transactional tombstone only takes its
    partition out of the producer's pending set, as in Kafka's loader. What is still pending
    at the end of the log is handed over (:attr:`ReplayedPartition.pending`): those
    transactions' markers are yet to come.
    """

    def __init__(self, partition: int, num_partitions: int) -> None:
        self.partition = partition
        self.num_partitions = num_partitions
        #: group -> (topic, partition) -> (offset of the batch that wrote it, value)
        self.offsets: dict[str, dict[TopicPartition, OffsetRecord]] = {}
        #: producer id -> group -> (topic, partition) -> record
        self.pending: dict[int, dict[str, dict[TopicPartition, OffsetRecord]]] = {}
        self.groups: dict[str, GroupMetadataValue | None] = {}
        self.consumer_groups: dict[str, ConsumerGroup] = {}
        self.foreign_groups: set[str] = set()
        self._owned_groups: set[str] = set()

    def _owned(self, group: str) -> bool:
        if group in self._owned_groups:
            return True
        if partition_for(group, self.num_partitions) == self.partition:
            self._owned_groups.add(group)
            return True
        if group not in self.foreign_groups:
            self.foreign_groups.add(group)
            log.warning("Ignoring records of group %r in %s-%d: the group belongs to partition %d",
                        group, OFFSETS_TOPIC, self.partition,
                        partition_for(group, self.num_partitions))
        return False

    def apply_batch(self, buf: bytes, pos: int) -> None:
        try:
            header, records = decode_batch(buf, pos)
        except KafkaError as exc:
            # Recovery truncates torn writes, so this is damage on disk; keep what is readable.
            log.error("Skipping an unreadable batch in %s-%d: %s", OFFSETS_TOPIC, self.partition,
                      exc)
            return
        if header.is_control:
            self._apply_marker(header.producer_id, records)
            return
        transactional = header.is_transactional
        for record in records:
            if record.key is None:
                log.warning("Skipping a keyless record at offset %d of %s-%d", record.offset,
                            OFFSETS_TOPIC, self.partition)
                continue
            try:
                key = deserialize_key(record.key)
                if isinstance(key, OffsetCommitKey):
                    if not self._owned(key.group):
                        continue
                    value = deserialize_offset_commit_value(record.value)
                    tp = (key.topic, key.partition)
                    target = (self.pending.setdefault(header.producer_id, {}) if transactional
                              else self.offsets)
                    if value is None:
                        group = target.get(key.group)
                        if group is not None:
                            group.pop(tp, None)
                            if not group:
                                del target[key.group]
                    else:
                        target.setdefault(key.group, {})[tp] = OffsetRecord(header.base_offset,
                                                                            value)
                elif isinstance(key, GroupMetadataKey):
                    if self._owned(key.group):
                        self.groups[key.group] = deserialize_group_metadata_value(record.value)
                elif isinstance(key, ConsumerGroupKey):
                    self._apply_consumer_record(key, record.value, header.max_timestamp)
                else:
                    log.warning("Ignoring a record with unknown key version %d at offset %d of "
                                "%s-%d", key.version, record.offset, OFFSETS_TOPIC, self.partition)
            except ProtocolError as exc:
                log.error("Skipping an unreadable record at offset %d of %s-%d: %s",
                          record.offset, OFFSETS_TOPIC, self.partition, exc)

    def _apply_consumer_record(self, key: ConsumerGroupKey,
                               value: bytes | memoryview | None, timestamp_ms: int) -> None:
        rec = consumer_records.deserialize(key.record_type, key.reader, value)
        if not self._owned(rec.group_id):
            return
        group = self.consumer_groups.get(rec.group_id)
        if isinstance(rec, consumer_records.GroupEpoch) and rec.epoch is None:
            self.consumer_groups.pop(rec.group_id, None)  # the group was deleted
            return
        if group is None:
            group = self.consumer_groups[rec.group_id] = ConsumerGroup(rec.group_id, timestamp_ms)
        group.replay(rec)

    def _apply_marker(self, producer_id: int, records: list) -> None:
        if not records:
            return  # an emptied control batch ends nothing (Kafka's loader reads its record)
        pending = self.pending.pop(producer_id, {})
        if records[0].key is None or len(records[0].key) < _CONTROL_KEY.size:
            return
        _, marker = _CONTROL_KEY.unpack_from(records[0].key)
        if marker != _CONTROL_COMMIT:
            return
        for group_id, offsets in pending.items():
            committed = self.offsets.setdefault(group_id, {})
            for tp, record in offsets.items():
                current = committed.get(tp)
                if current is None or current.older_than(record.batch_offset):
                    committed[tp] = record

    def result(self, end_offset: int) -> ReplayedPartition:
        """The replay's state, by reference: the replay is done with once this is taken."""
        return ReplayedPartition(
            self.partition, offset_records={g: o for g, o in self.offsets.items() if o},
            groups=self.groups, end_offset=end_offset,
            pending={pid: gs for pid, gs in self.pending.items() if any(gs.values())},
            consumer_groups=self.consumer_groups)


class OffsetsTopic:
    """``__consumer_offsets`` as the group coordinator writes and reads it: the runtime's
    :class:`~pybroker.coordinator.runtime.PartitionWriter` with the topic's layout
    (``offsets.topic.*``), its codec (``offsets.topic.compression.codec``) and its acks
    (``offsets.commit.required.acks``, ``offsets.commit.timeout.ms``), and the replay of a
    partition (:class:`PartitionReplay`) through the runtime's chunked loader.

    The topic is created on first use (an append creates it too): at once on the embedded
    single node; in ZooKeeper mode the controller creates it later.
    """

    name = OFFSETS_TOPIC

    def __init__(self, replica_manager: ReplicaManager, metadata: MetadataCache, admin: Any,
                 config: OffsetsConfig | None = None, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self.replica_manager = replica_manager
        self.metadata = metadata
        self.admin = admin
        self.config = config or OffsetsConfig()
        self.writer = PartitionWriter(replica_manager, metadata, admin, TopicLayout(
            OFFSETS_TOPIC, self.config.num_partitions, self.config.replication_factor,
            self.topic_configs(), create_on_append=True), clock=clock)
        self.loader = CoordinatorLoader(self.writer, self.config.load_buffer_size, clock=clock)

    # -- layout ----------------------------------------------------------------------------
    @property
    def exists(self) -> bool:
        return self.writer.exists

    @property
    def num_partitions(self) -> int:
        """The existing topic's partition count, else ``offsets.topic.num.partitions``: group
        placement must follow the topic as it was created."""
        return self.writer.num_partitions

    def partition_for(self, group_id: str) -> int:
        return self.writer.partition_for(group_id)

    def topic_configs(self) -> dict[str, str]:
        return {
            "cleanup.policy": "compact",
            "segment.bytes": str(self.config.segment_bytes),
            "compression.type": "producer",
        }

    def ensure_created(self, now_ms: int) -> ErrorCode:
        """Ask for the topic if it does not exist yet (Kafka does this on the first
        FindCoordinator); COORDINATOR_NOT_AVAILABLE until it exists."""
        return self.writer.ensure_created(now_ms)

    def is_leader(self, partition: int) -> bool:
        return self.writer.is_leader(partition)

    def led_partitions(self) -> list[int]:
        """The partitions of the topic this broker leads: the groups it coordinates."""
        return self.writer.led_partitions()

    # -- writes ----------------------------------------------------------------------------
    def append(self, partition: int, records: Sequence[tuple[bytes, bytes | None]], now_ms: int,
               *, required_acks: int = 0) -> ErrorCode:
        """Append ``(key, value)`` records as one batch without waiting for the followers
        (tombstones, which the next cleanup writes again if lost); returns the append's own
        error. Commits and group metadata go through :meth:`append_replicated`."""
        return self.writer.append_to_leader(partition, records, now_ms,
                                            required_acks=required_acks,
                                            codec=self.config.compression_codec)

    def append_replicated(self, partition: int, records: Sequence[tuple[bytes, bytes | None]],
                          now_ms: int) -> Outcome[ErrorCode]:
        """Append ``(key, value)`` records as one batch with acks=all, as Kafka's coordinator
        appends commits and group metadata (``offsets.commit.required.acks`` -1): the append's
        error once every ISR member has the batch, at once when the leader is the whole ISR (a
        single node), else a future of it, bounded by ``offsets.commit.timeout.ms``
        (REQUEST_TIMED_OUT)."""
        return when_ready(self.append_offsets(partition, records, now_ms),
                          lambda appended: appended.error)

    def append_offsets(self, partition: int, records: Sequence[tuple[bytes, bytes | None]],
                       now_ms: int, *, producer: TxnProducer | None = None,
                       verification_guard: VerificationGuard | None = None,
                       ) -> Outcome[Appended]:
        """:meth:`append_replicated`, answering the batch's base offset too (where plain and
        transactional commits meet, the later batch wins). With ``producer`` the batch is a
        TxnOffsetCommit's: the producer's id and epoch, transactional, base sequence 0,
        appended with its transaction's ``verification_guard`` (KIP-890)."""
        return self.writer.append(
            partition, records, now_ms, required_acks=self.config.commit_required_acks,
            timeout_ms=self.config.commit_timeout_ms, codec=self.config.compression_codec,
            producer=producer, verification_guard=verification_guard)

    # -- replay ----------------------------------------------------------------------------
    def new_replay(self, partition: int) -> PartitionReplay:
        return PartitionReplay(partition, self.num_partitions)

    def replay(self, partition: int) -> ReplayedPartition:
        """Read the partition's log from its start to its end at once and rebuild its state
        (the broker loads through the runtime instead, giving the loop back between chunks).
        Raises ``KafkaError(NOT_COORDINATOR)`` when this broker does not lead the partition.
        """
        state = self.new_replay(partition)
        summary = self.loader.load_now(partition, state)
        return state.result(summary.end_offset)

    # -- group metadata ----------------------------------------------------------------------
    def write_records(self, group_id: str, records: Sequence[tuple[bytes, bytes | None]],
                      now_ms: int) -> Outcome[ErrorCode]:
        """A consumer group's records as one replicated batch; the client-facing error
        (Kafka 4's mapping for coordinator writes)."""
        outcome = self.append_replicated(self.partition_for(group_id), records, now_ms)
        return map_outcome(outcome, CONSUMER_GROUP_ERRORS)

    def store_group(self, group_id: str, value: GroupMetadataValue | None, now_ms: int,
                    ) -> Outcome[ErrorCode]:
        """Write a group's metadata (None: its tombstone), replicated to the ISR; the
        client-facing error, at once or as a future (:meth:`append_replicated`)."""
        value_bytes = None if value is None else serialize_group_metadata_value(value)
        outcome = self.append_replicated(
            self.partition_for(group_id), [(serialize_group_metadata_key(group_id), value_bytes)],
            now_ms)
        return map_outcome(outcome, group_store_error_for)
