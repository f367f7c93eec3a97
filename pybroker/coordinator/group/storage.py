"""The ``__consumer_offsets`` topic: its record formats, its creation, appends and replay.

Every record the group coordinator writes is keyed, and both key and value start with an
int16 version that says what the rest is (Kafka's ``GroupMetadataManager`` and
``GroupCoordinatorRecordHelpers``)::

    key version 0, 1   OffsetCommitKey (group, topic, partition)
                       value: OffsetCommitValue v1 when the commit carries an expire
                       timestamp (OffsetCommit v2-v4 retention), v3 otherwise
    key version 2      GroupMetadataKey (group)
                       value: GroupMetadataValue v3 (members, assignments, generation)

A null value is a tombstone: log compaction eventually drops the key, and replay deletes it.
Kafka 3.9 reads every value version its specs define (0-4) and ignores keys of other
versions (records of the new consumer-group protocol, leftovers of aborted upgrades), which
is what :func:`deserialize_key` and :meth:`OffsetsTopic.replay` do too.

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
from collections.abc import Callable, Mapping, Sequence
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
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.config import broker_default, broker_value
from pybroker.coordinator.partitioning import OFFSETS_TOPIC, partition_for
from pybroker.kernel.outcome import Outcome, when_ready, when_settled
from pybroker.kernel.types import TopicPartition
from pybroker.log.producer_state import AppendOrigin

if TYPE_CHECKING:
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.cluster.partition import Partition
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


class TxnProducer(NamedTuple):
    """The transactional producer a TxnOffsetCommit writes for."""

    producer_id: int
    producer_epoch: int


#: the base sequence of the coordinator's transactional batches, as Kafka writes it: every
#: batch the coordinator writes is appended as the coordinator's (``AppendOrigin.COORDINATOR``),
#: whose sequences the log does not check (only the producer's epoch)
TXN_OFFSET_COMMIT_BASE_SEQUENCE = 0


class Appended(NamedTuple):
    """An append's error and, when it succeeded, the base offset its batch got (-1 if not)."""

    error: ErrorCode
    base_offset: int = -1


@dataclass(frozen=True, slots=True)
class UnknownKey:
    """A key version this coordinator does not handle; replay skips such records."""

    version: int


CoordinatorKey = OffsetCommitKey | GroupMetadataKey | UnknownKey


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
    if append_error in (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_ENOUGH_REPLICAS,
                        ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if append_error in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    if append_error in (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE,
                        ErrorCode.INVALID_FETCH_SIZE):
        return ErrorCode.INVALID_COMMIT_OFFSET_SIZE
    if append_error == ErrorCode.NETWORK_EXCEPTION:
        return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    return append_error


def map_outcome(outcome: Outcome[ErrorCode],
                mapping: Callable[[ErrorCode], ErrorCode]) -> Outcome[ErrorCode]:
    """An append's error through ``mapping`` (NONE stays NONE), now or when it is known."""
    return when_ready(outcome, lambda error: mapping(error) if error else ErrorCode.NONE)


def group_store_error_for(append_error: ErrorCode) -> ErrorCode:
    """What a SyncGroup (or any group write) answers when the group's append failed
    (Kafka's ``storeGroup`` mapping)."""
    if append_error in (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_ENOUGH_REPLICAS,
                        ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if append_error in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    if append_error == ErrorCode.REQUEST_TIMED_OUT:
        return ErrorCode.REBALANCE_IN_PROGRESS
    if append_error in (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE,
                        ErrorCode.INVALID_FETCH_SIZE):
        return ErrorCode.UNKNOWN_SERVER_ERROR
    return append_error


# ---------------------------------------------------------------------------- the topic


@dataclass(slots=True)
class ReplayedPartition:
    """What one ``__consumer_offsets`` partition holds once its log is replayed.

    ``offsets`` maps group -> (topic, partition) -> committed offset, and ``batch_offsets``
    the same keys to the base offset of the batch that wrote it; ``groups`` maps each group
    whose metadata appears in the log to its latest value, or None when the last record was a
    tombstone (the group was deleted). ``pending`` holds the transactional offsets whose
    transaction has no marker yet: producer id -> group -> (topic, partition) -> record.
    """

    partition: int
    offsets: dict[str, dict[TopicPartition, CommittedOffset]] = field(default_factory=dict)
    groups: dict[str, GroupMetadataValue | None] = field(default_factory=dict)
    end_offset: int = 0
    batch_offsets: dict[str, dict[TopicPartition, int]] = field(default_factory=dict)
    pending: dict[int, dict[str, dict[TopicPartition, OffsetRecord]]] = field(
        default_factory=dict)

    def records(self, group: str) -> dict[TopicPartition, OffsetRecord]:
        """The group's committed offsets with their batch offsets."""
        batch_offsets = self.batch_offsets.get(group, {})
        return {tp: OffsetRecord(batch_offsets[tp], c)
                for tp, c in self.offsets.get(group, {}).items()}


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
        # (group, topic, partition) -> (offset of the batch that wrote it, value)
        self.offsets: dict[tuple[str, str, int], tuple[int, CommittedOffset]] = {}
        self.pending: dict[int, dict[tuple[str, str, int], tuple[int, CommittedOffset]]] = {}
        self.groups: dict[str, GroupMetadataValue | None] = {}
        self.foreign_groups: set[str] = set()

    def _owned(self, group: str) -> bool:
        if partition_for(group, self.num_partitions) == self.partition:
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
                    tp = (key.group, key.topic, key.partition)
                    if transactional:
                        pending = self.pending.setdefault(header.producer_id, {})
                        if value is None:
                            pending.pop(tp, None)
                        else:
                            pending[tp] = (header.base_offset, value)
                    elif value is None:
                        self.offsets.pop(tp, None)
                    else:
                        self.offsets[tp] = (header.base_offset, value)
                elif isinstance(key, GroupMetadataKey):
                    if self._owned(key.group):
                        self.groups[key.group] = deserialize_group_metadata_value(record.value)
                else:
                    log.warning("Ignoring a record with unknown key version %d at offset %d of "
                                "%s-%d", key.version, record.offset, OFFSETS_TOPIC, self.partition)
            except ProtocolError as exc:
                log.error("Skipping an unreadable record at offset %d of %s-%d: %s",
                          record.offset, OFFSETS_TOPIC, self.partition, exc)

    def _apply_marker(self, producer_id: int, records: list) -> None:
        if not records:
            return  # an emptied control batch ends nothing (Kafka's loader reads its record)
        pending = self.pending.pop(producer_id, {})
        if records[0].key is None or len(records[0].key) < _CONTROL_KEY.size:
            return
        _, marker = _CONTROL_KEY.unpack_from(records[0].key)
        if marker != _CONTROL_COMMIT:
            return
        for tp, (batch_offset, value) in pending.items():
            current = self.offsets.get(tp)
            if current is None or current[0] < batch_offset:
                self.offsets[tp] = (batch_offset, value)

    def result(self, end_offset: int) -> ReplayedPartition:
        out = ReplayedPartition(self.partition, groups=self.groups, end_offset=end_offset)
        for (group, topic, partition), (batch_offset, value) in self.offsets.items():
            out.offsets.setdefault(group, {})[(topic, partition)] = value
            out.batch_offsets.setdefault(group, {})[(topic, partition)] = batch_offset
        for producer_id, offsets in self.pending.items():
            for (group, topic, partition), (batch_offset, value) in offsets.items():
                out.pending.setdefault(producer_id, {}).setdefault(group, {})[
                    (topic, partition)] = OffsetRecord(batch_offset, value)
        return out


class OffsetsTopic:
    """Creates ``__consumer_offsets`` on first use, appends coordinator records to it, and
    replays a partition of it into offsets and group metadata.

    The topic's layout comes from the metadata cache; its creation goes through the admin seam
    (at once on the embedded single node; in ZooKeeper mode the controller creates it later).
    """

    name = OFFSETS_TOPIC

    def __init__(self, replica_manager: ReplicaManager, metadata: MetadataCache, admin: Any,
                 config: OffsetsConfig | None = None) -> None:
        self.replica_manager = replica_manager
        self.metadata = metadata
        self.admin = admin
        self.config = config or OffsetsConfig()

    # -- layout ----------------------------------------------------------------------------
    @property
    def exists(self) -> bool:
        return self.metadata.topic(self.name) is not None

    @property
    def num_partitions(self) -> int:
        """The existing topic's partition count, else ``offsets.topic.num.partitions``: group
        placement must follow the topic as it was created."""
        info = self.metadata.topic(self.name)
        return len(info.partitions) if info is not None else self.config.num_partitions

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.num_partitions)

    def topic_configs(self) -> dict[str, str]:
        return {
            "cleanup.policy": "compact",
            "segment.bytes": str(self.config.segment_bytes),
            "compression.type": "producer",
        }

    def ensure_created(self, now_ms: int) -> ErrorCode:
        """Ask for the topic if it does not exist yet (Kafka does this on the first
        FindCoordinator). The replication factor is capped at the live brokers, so a single
        broker gets a usable topic with the default of 3. Until the topic exists, groups have
        no coordinator: COORDINATOR_NOT_AVAILABLE."""
        if self.exists:
            return ErrorCode.NONE
        outcome = self.admin.create_internal_topic(
            self.name, self.config.num_partitions, self.config.replication_factor,
            self.topic_configs(), now_ms)
        if isinstance(outcome, KafkaError) or not self.exists:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        return ErrorCode.NONE

    def _partition(self, partition: int) -> Partition | None:
        return self.replica_manager.get_partition(self.name, partition)

    def is_leader(self, partition: int) -> bool:
        p = self._partition(partition)
        return p is not None and p.is_leader

    def led_partitions(self) -> list[int]:
        """The partitions of the topic this broker leads: the groups it coordinates."""
        return self.replica_manager.led_partitions(self.name)

    # -- writes ----------------------------------------------------------------------------
    def append(self, partition: int, records: Sequence[tuple[bytes, bytes | None]], now_ms: int,
               *, required_acks: int = 0) -> ErrorCode:
        """Append ``(key, value)`` records as one batch without waiting for the followers
        (tombstones, which the next cleanup writes again if lost); returns the append's own
        error. Commits and group metadata go through :meth:`append_replicated`."""
        if not records:
            return ErrorCode.NONE
        if not self.exists:
            error = self.ensure_created(now_ms)
            if error:
                return error
        batch = build_batch(records, codec=self.config.compression_codec, default_timestamp=now_ms)
        try:
            result, _ = self.replica_manager.append_to_leader(
                self.name, partition, batch, required_acks=required_acks, now_ms=now_ms,
                origin=AppendOrigin.COORDINATOR)
        except OSError:
            log.exception("Appending to %s-%d failed", self.name, partition)
            return ErrorCode.KAFKA_STORAGE_ERROR
        if result.error:
            log.debug("Appending %d record(s) to %s-%d failed: %s %s", len(records), self.name,
                      partition, result.error.name, result.error_message or "")
        return result.error

    def append_replicated(self, partition: int, records: Sequence[tuple[bytes, bytes | None]],
                          now_ms: int) -> Outcome[ErrorCode]:
        """Append ``(key, value)`` records as one batch with acks=all, as Kafka's coordinator
        appends commits and group metadata (``offsets.commit.required.acks`` -1): the append's
        error once every ISR member has the batch, at once when the leader is the whole ISR (a
        single node), else a future of it, bounded by ``offsets.commit.timeout.ms``
        (REQUEST_TIMED_OUT). A commit is answered, and cached, only then: one acknowledged
        and then lost with its coordinator would be a commit the group never made."""
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
        if not records:
            return Appended(ErrorCode.NONE)
        if not self.exists:
            error = self.ensure_created(now_ms)
            if error:
                return Appended(error)
        if producer is None:
            batch = build_batch(records, codec=self.config.compression_codec,
                                default_timestamp=now_ms)
        else:
            batch = build_batch(records, codec=self.config.compression_codec,
                                default_timestamp=now_ms, producer_id=producer.producer_id,
                                producer_epoch=producer.producer_epoch,
                                base_sequence=TXN_OFFSET_COMMIT_BASE_SEQUENCE,
                                is_transactional=True)
        key = (self.name, partition)
        try:
            outcome = self.replica_manager.append_records(
                {key: batch}, required_acks=self.config.commit_required_acks,
                timeout_ms=self.config.commit_timeout_ms, now_ms=now_ms,
                origin=AppendOrigin.COORDINATOR,
                verification_guards={key: verification_guard} if verification_guard else None)
        except OSError:
            log.exception("Appending to %s-%d failed", self.name, partition)
            return Appended(ErrorCode.KAFKA_STORAGE_ERROR)

        def appended(results: Mapping[Any, Any]) -> Appended:
            result = results[key]
            if result.error:
                log.debug("Appending %d record(s) to %s-%d failed: %s", len(records), self.name,
                          partition, result.error.name)
                return Appended(result.error)
            return Appended(ErrorCode.NONE, result.base_offset)

        return when_settled(outcome, appended,
                            lambda _error: Appended(ErrorCode.UNKNOWN_SERVER_ERROR))

    # -- replay ----------------------------------------------------------------------------
    def replay(self, partition: int) -> ReplayedPartition:
        """Read the partition's log from its start to its end and rebuild its state.

        Like Kafka's loader this reads to the log end, not the high watermark: the leader's
        own log is what it serves from. Raises ``KafkaError(NOT_COORDINATOR)`` when this
        broker does not lead the partition.
        """
        p = self._partition(partition)
        if p is None or not p.is_leader:
            raise KafkaError(ErrorCode.NOT_COORDINATOR,
                             f"{self.name}-{partition} is not led by this broker")
        state = PartitionReplay(partition, self.num_partitions)
        end = p.log_end_offset
        offset = p.log_start_offset
        while offset < end:
            info = p.read(offset, self.config.load_buffer_size, min_one_batch=True,
                          up_to_high_watermark=False)
            if not info.size:
                break
            records = info.records
            buf = records if isinstance(records, bytes) else records.read_bytes()
            progressed = False
            for pos, header in iter_batches(buf):
                next_offset = header.base_offset + header.last_offset_delta + 1
                if next_offset <= offset:
                    continue  # a batch wholly before the offset asked for
                state.apply_batch(buf, pos)
                offset = next_offset
                progressed = True
            if not progressed:
                break
        return state.result(offset)

    # -- group metadata ----------------------------------------------------------------------
    def store_group(self, group_id: str, value: GroupMetadataValue | None, now_ms: int,
                    ) -> Outcome[ErrorCode]:
        """Write a group's metadata (None: its tombstone), replicated to the ISR; the
        client-facing error, at once or as a future (:meth:`append_replicated`)."""
        value_bytes = None if value is None else serialize_group_metadata_value(value)
        outcome = self.append_replicated(
            self.partition_for(group_id), [(serialize_group_metadata_key(group_id), value_bytes)],
            now_ms)
        return map_outcome(outcome, group_store_error_for)
