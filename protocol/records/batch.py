"""A view of the magic-v2 record batch header, without decoding the records.

Layout (all big-endian)::

    0  baseOffset            int64      <- rewritten by the broker (outside the CRC)
    8  batchLength           int32         bytes after this field
    12 partitionLeaderEpoch  int32      <- rewritten by the broker (outside the CRC)
    16 magic                 int8          must be 2
    17 crc                   uint32        CRC-32C of bytes 21..end
    21 attributes            int16         bits 0-2 codec, 3 timestamp type, 4 transactional, 5 control
    23 lastOffsetDelta       int32
    27 baseTimestamp         int64
    35 maxTimestamp          int64
    43 producerId            int64
    51 producerEpoch         int16
    53 baseSequence          int32
    57 recordsCount          int32
    61 records...
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from crc32c import crc32c

from protocol.errors import ErrorCode, KafkaError

HEADER_SIZE = 61
LOG_OVERHEAD = 12  # baseOffset + batchLength: the bytes not counted by batchLength
CRC_START = 21
MAGIC = 2

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_TIMESTAMP = -1

COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08  # 0 CreateTime, 1 LogAppendTime
TRANSACTIONAL_MASK = 0x10
CONTROL_MASK = 0x20
DELETE_HORIZON_MASK = 0x40  # base timestamp is the delete horizon (KIP-534), set by the cleaner

_HEADER = struct.Struct(">qiibIhiqqqhii")
_OFFSET_LEN = struct.Struct(">qi")
_I64 = struct.Struct(">q")
_I32 = struct.Struct(">i")
_U32 = struct.Struct(">I")
_I16 = struct.Struct(">h")
#: baseOffset .. lastOffsetDelta: what a walk over batch boundaries needs
_PREFIX = struct.Struct(">qiibIhi")
#: from the magic byte (offset 16): magic, attributes, producer id, producer epoch, base
#: sequence (the CRC and the offsets and timestamps between are skipped)
_TXN_FIELDS = struct.Struct(">b4xh20xqhi")
_MAGIC_OFFSET = 16

#: the bytes :func:`read_prefix` reads
PREFIX_SIZE = _PREFIX.size


class BatchHeader(NamedTuple):
    """The fixed 61-byte header of one magic-v2 record batch.

    A named tuple rather than a dataclass: it is built for every produced batch, and a tuple
    straight from ``struct.unpack_from`` costs a fraction of a frozen dataclass."""

    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int

    @classmethod
    def parse(cls, buf: bytes | bytearray | memoryview, pos: int = 0) -> BatchHeader:
        """Read the header at ``pos``; raises ``KafkaError(CORRUPT_MESSAGE)`` if it is short or not magic 2."""
        if len(buf) - pos < HEADER_SIZE:
            # A magic 0/1 message set can be shorter than a v2 header; either way we cannot store it.
            raise KafkaError(ErrorCode.CORRUPT_MESSAGE, "record batch shorter than its header")
        h = tuple.__new__(cls, _HEADER.unpack_from(buf, pos))
        if h.magic != MAGIC:
            raise KafkaError(
                ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
                f"record batch magic {h.magic}: only magic 2 is supported",
            )
        return h

    def pack_into(self, buf: bytearray | memoryview, pos: int = 0) -> None:
        """Write this header at ``pos``, fields as they are (the CRC is not recomputed)."""
        _HEADER.pack_into(buf, pos, *self)

    @property
    def size(self) -> int:
        """Bytes the whole batch occupies, header included."""
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def compression(self) -> int:
        return self.attributes & COMPRESSION_MASK

    @property
    def is_log_append_time(self) -> bool:
        return bool(self.attributes & TIMESTAMP_TYPE_MASK)

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_MASK)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_MASK)

    @property
    def has_producer_id(self) -> bool:
        return self.producer_id >= 0

    @property
    def last_sequence(self) -> int:
        if self.base_sequence < 0:
            return NO_SEQUENCE
        return (self.base_sequence + self.last_offset_delta) & 0x7FFFFFFF


def read_prefix(buf: bytes | bytearray | memoryview, pos: int = 0,
                ) -> tuple[int, int, int, int, int, int, int]:
    """``(base_offset, batch_length, partition_leader_epoch, magic, crc, attributes,
    last_offset_delta)`` of the batch at ``pos``: the header up to its last offset
    (:data:`PREFIX_SIZE` bytes), unchecked, for walks over batch boundaries."""
    return _PREFIX.unpack_from(buf, pos)


def transactional_producer(buf: bytes | bytearray | memoryview, pos: int = 0,
                           ) -> tuple[int, int, int] | None:
    """``(producer id, producer epoch, base sequence)`` of the batch at ``pos`` when it is a
    transactional v2 batch with a producer id; None for any other batch (or bytes too short to
    be one). Read from the header, nothing decoded."""
    if len(buf) - pos < _MAGIC_OFFSET + _TXN_FIELDS.size:
        return None
    magic, attributes, producer_id, epoch, sequence = _TXN_FIELDS.unpack_from(
        buf, pos + _MAGIC_OFFSET)
    if magic != MAGIC or not attributes & TRANSACTIONAL_MASK or producer_id < 0:
        return None
    return producer_id, epoch, sequence


def peek_offset_and_length(buf: bytes | bytearray | memoryview, pos: int = 0) -> tuple[int, int]:
    """``(base_offset, batch_length)`` of the batch at ``pos`` (needs 12 bytes)."""
    return _OFFSET_LEN.unpack_from(buf, pos)


def compute_crc(buf: bytes | bytearray | memoryview, pos: int, size: int) -> int:
    """CRC-32C over the CRC-covered part of the batch occupying ``buf[pos:pos+size]``."""
    return crc32c(memoryview(buf)[pos + CRC_START : pos + size])


def crc_is_valid(buf: bytes | bytearray | memoryview, pos: int = 0, header: BatchHeader | None = None) -> bool:
    h = header or BatchHeader.parse(buf, pos)
    if len(buf) - pos < h.size:
        return False
    return compute_crc(buf, pos, h.size) == h.crc


def write_crc(buf: bytearray | memoryview, pos: int = 0) -> int:
    """Recompute and store the CRC of the batch at ``pos`` after its covered bytes changed."""
    size = _I32.unpack_from(buf, pos + 8)[0] + LOG_OVERHEAD
    crc = compute_crc(buf, pos, size)
    _U32.pack_into(buf, pos + 17, crc)
    return crc


def set_base_offset(buf: bytearray | memoryview, base_offset: int, pos: int = 0) -> None:
    """Assign offsets to a batch in place; the CRC does not cover this field."""
    _I64.pack_into(buf, pos, base_offset)


def set_partition_leader_epoch(buf: bytearray | memoryview, epoch: int, pos: int = 0) -> None:
    """Stamp the leader epoch in place; the CRC does not cover this field."""
    _I32.pack_into(buf, pos + 12, epoch)


def set_log_append_time(buf: bytearray | memoryview, timestamp: int, pos: int = 0) -> None:
    """Mark the batch LogAppendTime with ``timestamp`` as its max timestamp and recompute the CRC."""
    attributes = _I16.unpack_from(buf, pos + 21)[0] | TIMESTAMP_TYPE_MASK
    _I16.pack_into(buf, pos + 21, attributes)
    _I64.pack_into(buf, pos + 35, timestamp)
    size = _I32.unpack_from(buf, pos + 8)[0] + LOG_OVERHEAD
    _U32.pack_into(buf, pos + 17, compute_crc(buf, pos, size))
