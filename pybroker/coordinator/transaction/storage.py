"""``__transaction_state``: its settings, its record format and the replay of a partition.

Every record is keyed by the transactional id; key and value start with an int16 version, as
Kafka's ``TransactionLog`` writes them, so Kafka's own tools (``kafka-dump-log``, the console
consumer's formatter) read the topic::

    key   version 0   TransactionLogKey (transactional id)
    value version 0   TransactionLogValue (producer id and epoch, timeout, state number,
                      partitions by topic, last update and start timestamps)

Kafka 3.9 writes value version 0 unless the ``transaction.version`` feature is finalized at
1 or more, which a ZooKeeper-mode cluster never does; it reads versions 0 and 1. An Empty
transaction is written with null partitions. A null value is a tombstone: the id expired.

Replay reads a partition from its start to its end, later records winning, and yields the
metadata of every id the partition holds (Kafka's ``loadTransactionMetadata``); the last and
next producer epochs are not stored, so a reloaded id has none (-1), as in Kafka.

Everything here is pure: the service (:mod:`pybroker.coordinator.transaction_service`) does the
reading and writing.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Mapping
from dataclasses import dataclass

from protocol.errors import KafkaError, ProtocolError
from protocol.messages import transaction_log_key, transaction_log_value
from protocol.messages.transaction_log_key import TransactionLogKey
from protocol.messages.transaction_log_value import PartitionsSchema, TransactionLogValue
from protocol.primitives import Reader
from protocol.records.record import decode_batch
from pybroker.config import broker_default, broker_value
from pybroker.coordinator.partitioning import partition_for
from pybroker.metadata.topics import TRANSACTION_STATE_TOPIC

from .metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    TransactionMetadata,
    TxnTransitMetadata,
)
from .state import TransactionState

log = logging.getLogger(__name__)

KEY_VERSION = 0
#: the value version Kafka 3.9 writes without the transaction.version feature
VALUE_VERSION = 0

_VERSION = struct.Struct(">h")
_DECODE_ERRORS = (ProtocolError, struct.error, IndexError, ValueError, UnicodeDecodeError)


# ---------------------------------------------------------------------------- configuration


@dataclass(frozen=True, slots=True)
class TransactionConfig:
    """The transaction coordinator's broker properties (Kafka's ``TransactionConfig``);
    defaults from the configuration catalogue."""

    transactional_id_expiration_ms: int = broker_default("transactional.id.expiration.ms")
    transaction_max_timeout_ms: int = broker_default("transaction.max.timeout.ms")
    num_partitions: int = broker_default("transaction.state.log.num.partitions")
    replication_factor: int = broker_default("transaction.state.log.replication.factor")
    segment_bytes: int = broker_default("transaction.state.log.segment.bytes")
    load_buffer_size: int = broker_default("transaction.state.log.load.buffer.size")
    min_insync_replicas: int = broker_default("transaction.state.log.min.isr")
    abort_timed_out_transactions_interval_ms: int = broker_default(
        "transaction.abort.timed.out.transaction.cleanup.interval.ms")
    remove_expired_transactional_ids_interval_ms: int = broker_default(
        "transaction.remove.expired.transaction.cleanup.interval.ms")
    #: how long an expiry's tombstones and a WriteTxnMarkers request may take
    request_timeout_ms: int = broker_default("request.timeout.ms")

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> TransactionConfig:
        """From broker properties (``BrokerConfig.props``), parsed by the catalogue."""
        def get(name: str) -> int:
            value: int = broker_value(props, name)
            return value

        return cls(
            transactional_id_expiration_ms=get("transactional.id.expiration.ms"),
            transaction_max_timeout_ms=get("transaction.max.timeout.ms"),
            num_partitions=get("transaction.state.log.num.partitions"),
            replication_factor=get("transaction.state.log.replication.factor"),
            segment_bytes=get("transaction.state.log.segment.bytes"),
            load_buffer_size=get("transaction.state.log.load.buffer.size"),
            min_insync_replicas=get("transaction.state.log.min.isr"),
            abort_timed_out_transactions_interval_ms=get(
                "transaction.abort.timed.out.transaction.cleanup.interval.ms"),
            remove_expired_transactional_ids_interval_ms=get(
                "transaction.remove.expired.transaction.cleanup.interval.ms"),
            request_timeout_ms=get("request.timeout.ms"),
        )

    def topic_configs(self) -> dict[str, str]:
        """The topic configs Kafka enforces on ``__transaction_state``
        (``TransactionStateManager.transactionTopicConfigs``)."""
        return {
            "unclean.leader.election.enable": "false",
            "compression.type": "uncompressed",
            "cleanup.policy": "compact",
            "min.insync.replicas": str(self.min_insync_replicas),
            "segment.bytes": str(self.segment_bytes),
        }


def transaction_partition_for(transactional_id: str, num_partitions: int) -> int:
    """Kafka's ``Utils.abs(transactionalId.hashCode) % transactionTopicPartitionCount``."""
    return partition_for(transactional_id, num_partitions)


# ---------------------------------------------------------------------------- record formats


@dataclass(frozen=True, slots=True)
class UnknownKey:
    """A key version this coordinator does not read; replay skips such records."""

    version: int


def serialize_key(transactional_id: str) -> bytes:
    return _VERSION.pack(KEY_VERSION) + transaction_log_key.encode(
        TransactionLogKey(transactional_id=transactional_id), KEY_VERSION)


def serialize_value(transit: TxnTransitMetadata) -> bytes:
    """The value Kafka 3.9 writes for a transition (``TransactionLog.valueToBytes``): the
    partitions grouped by topic (topics and partitions in order), null for Empty."""
    if transit.txn_state is TransactionState.EMPTY and transit.topic_partitions:
        raise ValueError(f"an Empty transaction has no partitions: {transit}")
    partitions: list[PartitionsSchema] | None
    if transit.txn_state is TransactionState.EMPTY:
        partitions = None
    else:
        by_topic: dict[str, list[int]] = {}
        for topic, partition in sorted(transit.topic_partitions):
            by_topic.setdefault(topic, []).append(partition)
        partitions = [PartitionsSchema(topic=t, partition_ids=ps) for t, ps in by_topic.items()]
    value = TransactionLogValue(
        producer_id=transit.producer_id,
        producer_epoch=transit.producer_epoch,
        transaction_timeout_ms=transit.txn_timeout_ms,
        transaction_status=transit.txn_state.id,
        transaction_partitions=partitions,
        transaction_last_update_timestamp_ms=transit.txn_last_update_timestamp,
        transaction_start_timestamp_ms=transit.txn_start_timestamp,
    )
    return _VERSION.pack(VALUE_VERSION) + transaction_log_value.encode(value, VALUE_VERSION)


def _split_version(data: bytes | bytearray | memoryview) -> tuple[int, Reader]:
    if len(data) < 2:
        raise ProtocolError(f"transaction log record of {len(data)} bytes has no version")
    return _VERSION.unpack_from(data)[0], Reader(data, 2)


def deserialize_key(data: bytes | bytearray | memoryview) -> TransactionLogKey | UnknownKey:
    """A record key; a key version Kafka 3.9 does not define gives :class:`UnknownKey`."""
    version, r = _split_version(data)
    lo, hi = transaction_log_key.VALID_VERSIONS
    if not lo <= version <= hi:
        return UnknownKey(version)
    try:
        return transaction_log_key.read(r, version)
    except _DECODE_ERRORS as exc:
        raise ProtocolError(f"malformed TransactionLogKey v{version}: {exc}") from exc


def deserialize_value(transactional_id: str, data: bytes | bytearray | memoryview | None,
                      ) -> TransactionMetadata | None:
    """The metadata a value stores (None for a tombstone), as Kafka reads it back: no last
    producer id or epoch, the partitions of any state but Empty."""
    if data is None:
        return None
    version, r = _split_version(data)
    lo, hi = transaction_log_value.VALID_VERSIONS
    if not lo <= version <= hi:
        raise ProtocolError(f"unknown TransactionLogValue version {version}")
    try:
        value = transaction_log_value.read(r, version)
        state = TransactionState.from_id(value.transaction_status)
    except _DECODE_ERRORS as exc:
        raise ProtocolError(f"malformed TransactionLogValue v{version}: {exc}") from exc
    partitions: set[tuple[str, int]] = set()
    if state is not TransactionState.EMPTY:
        for schema in value.transaction_partitions or ():
            partitions.update((schema.topic, p) for p in schema.partition_ids)
    return TransactionMetadata(
        transactional_id=transactional_id,
        producer_id=value.producer_id,
        last_producer_id=NO_PRODUCER_ID,
        producer_epoch=value.producer_epoch,
        last_producer_epoch=NO_PRODUCER_EPOCH,
        txn_timeout_ms=value.transaction_timeout_ms,
        state=state,
        topic_partitions=partitions,
        txn_start_timestamp=value.transaction_start_timestamp_ms,
        txn_last_update_timestamp=value.transaction_last_update_timestamp_ms,
    )


# ---------------------------------------------------------------------------- replay


class PartitionReplay:
    """One partition's replay, batch by batch, later records winning; a tombstone removes the
    id. Unreadable records are skipped with an error logged (recovery already truncated torn
    writes, so this is damage), unknown key versions with a warning, as Kafka does."""

    def __init__(self, partition: int) -> None:
        self.partition = partition
        self.transactions: dict[str, TransactionMetadata] = {}

    def apply_batch(self, buf: bytes | bytearray | memoryview, pos: int) -> None:
        try:
            header, records = decode_batch(buf, pos)
        except KafkaError as exc:
            log.error("Skipping an unreadable batch in %s-%d: %s", TRANSACTION_STATE_TOPIC,
                      self.partition, exc)
            return
        if header.is_control:
            return
        for record in records:
            if record.key is None:
                log.warning("Skipping a keyless record at offset %d of %s-%d", record.offset,
                            TRANSACTION_STATE_TOPIC, self.partition)
                continue
            try:
                key = deserialize_key(record.key)
                if isinstance(key, UnknownKey):
                    log.warning("Unknown message key with version %d while loading transaction "
                                "state from %s-%d. Ignoring it. It could be a left over from an "
                                "aborted upgrade.", key.version, TRANSACTION_STATE_TOPIC,
                                self.partition)
                    continue
                metadata = deserialize_value(key.transactional_id, record.value)
            except ProtocolError as exc:
                log.error("Skipping an unreadable record at offset %d of %s-%d: %s",
                          record.offset, TRANSACTION_STATE_TOPIC, self.partition, exc)
                continue
            if metadata is None:
                self.transactions.pop(key.transactional_id, None)
            else:
                self.transactions[key.transactional_id] = metadata
