"""Control records: the transaction markers a transaction coordinator has written to a partition.

A control batch (attribute bit 5) carries records that are not data: Kafka writes one record per
control batch, whose key names the kind of control record and whose value depends on it. The
end-of-transaction markers (COMMIT and ABORT) are the ones a broker writes itself, on a
WriteTxnMarkers request; their batch is transactional too, with the producer id and epoch of
the transaction and no sequence number (Kafka's ``MemoryRecords.withEndTransactionMarker``).

Key (Kafka's ``ControlRecordType``), big-endian::

    version  int16  = 0
    type     int16     ABORT 0, COMMIT 1 (LEADER_CHANGE 2, snapshot and KRaft records 3-6)

Value of an end-of-transaction marker (Kafka's ``EndTransactionMarker``)::

    version           int16  = 0
    coordinatorEpoch  int32

Readers accept newer versions of either as Kafka does: the fields they know are read from the
front.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import NO_SEQUENCE, BatchHeader
from protocol.records.record import Record, build_batch, decode_batch

CONTROL_KEY_VERSION = 0
END_TXN_MARKER_VERSION = 0
NO_PARTITION_LEADER_EPOCH = -1

_KEY = struct.Struct(">hh")
_END_TXN_VALUE = struct.Struct(">hi")

CONTROL_KEY_SIZE = _KEY.size  # 4
END_TXN_MARKER_VALUE_SIZE = _END_TXN_VALUE.size  # 6


class ControlRecordType(enum.IntEnum):
    """Kafka's ``ControlRecordType`` ids; UNKNOWN stands for any id this broker does not know."""

    UNKNOWN = -1
    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VOTERS = 5
    KRAFT_VERSION = 6


@dataclass(frozen=True, slots=True)
class EndTransactionMarker:
    """A COMMIT or ABORT marker, and the epoch of the coordinator that wrote it."""

    control_type: ControlRecordType
    coordinator_epoch: int

    def __post_init__(self) -> None:
        if self.control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
            raise ValueError(f"{self.control_type!r} is not a transaction marker type")

    @property
    def is_commit(self) -> bool:
        return self.control_type is ControlRecordType.COMMIT

    @property
    def is_abort(self) -> bool:
        return self.control_type is ControlRecordType.ABORT

    def key_bytes(self) -> bytes:
        return _KEY.pack(CONTROL_KEY_VERSION, self.control_type)

    def value_bytes(self) -> bytes:
        return _END_TXN_VALUE.pack(END_TXN_MARKER_VERSION, self.coordinator_epoch)


def _invalid(message: str) -> KafkaError:
    # Kafka's InvalidRecordException, answered as CORRUPT_MESSAGE
    return KafkaError(ErrorCode.CORRUPT_MESSAGE, message)


def parse_control_key(key: bytes | bytearray | memoryview | None) -> ControlRecordType:
    """The type a control record's key names (UNKNOWN for ids this broker does not know)."""
    if key is None or len(key) < CONTROL_KEY_SIZE:
        raise _invalid(f"Invalid value size found for end control record key. Must have at least "
                       f"{CONTROL_KEY_SIZE} bytes, but found only {0 if key is None else len(key)}")
    version, type_id = _KEY.unpack_from(key)
    if version < 0:
        raise _invalid(f"Invalid version found for control record: {version}. May indicate data "
                       f"corruption")
    try:
        return ControlRecordType(type_id)
    except ValueError:
        return ControlRecordType.UNKNOWN


def parse_end_txn_marker(control_type: ControlRecordType,
                         value: bytes | bytearray | memoryview | None) -> EndTransactionMarker:
    """The marker a COMMIT or ABORT control record's value holds."""
    if control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        raise ValueError(f"Invalid control record type for end transaction marker: "
                         f"{control_type.name}")
    if value is None or len(value) < END_TXN_MARKER_VALUE_SIZE:
        raise _invalid(f"Invalid value size found for end transaction marker. Must have at least "
                       f"{END_TXN_MARKER_VALUE_SIZE} bytes, but found only "
                       f"{0 if value is None else len(value)}")
    version, coordinator_epoch = _END_TXN_VALUE.unpack_from(value)
    if version < 0:
        raise _invalid(f"Invalid version found for end transaction marker: {version}. May "
                       f"indicate data corruption")
    return EndTransactionMarker(control_type, coordinator_epoch)


def end_txn_marker_of(record: Record) -> EndTransactionMarker | None:
    """The marker a control record holds, or None for a control record of another kind."""
    control_type = parse_control_key(record.key)
    if control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        return None
    return parse_end_txn_marker(control_type, record.value)


def build_end_txn_marker_batch(producer_id: int, producer_epoch: int,
                               marker: EndTransactionMarker, *, timestamp: int,
                               base_offset: int = 0,
                               partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
                               ) -> bytearray:
    """The control batch Kafka's ``MemoryRecords.withEndTransactionMarker`` builds: magic 2,
    uncompressed, CreateTime, transactional and control, the transaction's producer id and
    epoch, no sequence, one record with the marker's key and value at ``timestamp``."""
    return build_batch(
        [(marker.key_bytes(), marker.value_bytes(), (), timestamp)],
        base_offset=base_offset,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=NO_SEQUENCE,
        partition_leader_epoch=partition_leader_epoch,
        is_transactional=True,
        is_control=True,
    )


def read_end_txn_marker(buf: bytes | bytearray | memoryview, pos: int = 0,
                        ) -> tuple[BatchHeader, EndTransactionMarker | None]:
    """The header of the control batch at ``pos`` and the marker its first record holds: None
    when the batch holds a control record of another kind, or none at all (compaction empties
    the batch of a marker whose transaction has gone from the log, as Kafka's cleaner does).
    Raises CORRUPT_MESSAGE for a batch that is not a control batch."""
    header, records = decode_batch(buf, pos, verify_crc=False)
    if not header.is_control:
        raise _invalid(f"The batch at offset {header.base_offset} is not a control batch")
    if not records:
        return header, None
    return header, end_txn_marker_of(records[0])
