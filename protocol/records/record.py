"""Decoding and building whole magic-v2 record batches.

The produce and fetch paths move batches as opaque bytes (see :mod:`protocol.records.batch`).
This module is for the broker's own readers and writers - ``__consumer_offsets``, transaction
markers, ListOffsets by timestamp, compaction - and for tests.

Each record inside a batch (after decompression) is::

    length          varint   bytes that follow
    attributes      int8     unused, 0
    timestampDelta  varlong  from the batch's base timestamp
    offsetDelta     varint   from the batch's base offset
    keyLength       varint   -1 for a null key
    key             bytes
    valueLength     varint   -1 for a null value
    value           bytes
    headersCount    varint
    headers         [keyLength varint, key utf-8, valueLength varint (-1 null), value]

All varints are zigzag-encoded. Anything malformed raises ``KafkaError(CORRUPT_MESSAGE)``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import (
    CONTROL_MASK,
    HEADER_SIZE,
    LOG_OVERHEAD,
    MAGIC,
    NO_TIMESTAMP,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    BatchHeader,
    compute_crc,
    peek_offset_and_length,
    write_crc,
)
from protocol.records.compression import (
    DEFAULT_MAX_DECOMPRESSED,
    CompressionType,
    compress,
    decompress,
)

Header = tuple[str, bytes | None]

# (key, value), (key, value, headers) or (key, value, headers, timestamp)
RecordTuple = (
    tuple[bytes | None, bytes | None]
    | tuple[bytes | None, bytes | None, Sequence[Header]]
    | tuple[bytes | None, bytes | None, Sequence[Header], int | None]
)


@dataclass(slots=True)
class Record:
    """One record with absolute offset and timestamp (ms)."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: list[Header] = field(default_factory=list)
    attributes: int = 0


def _corrupt(message: str) -> KafkaError:
    return KafkaError(ErrorCode.CORRUPT_MESSAGE, message)


# ---------------------------------------------------------------- varints


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """Zigzag varint/varlong at ``pos``; returns ``(value, next_pos)``."""
    b = buf[pos]
    if b < 0x80:  # the common one-byte case
        return (b >> 1) ^ -(b & 1), pos + 1
    result = b & 0x7F
    shift = 7
    pos += 1
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
        if shift > 63:
            raise _corrupt("varint longer than 10 bytes")


def _write_varint(out: bytearray, value: int) -> None:
    v = (value << 1) ^ (value >> 63)
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


# ---------------------------------------------------------------- decoding


def _read_records(
    data: bytes,
    pos: int,
    end: int,
    count: int,
    base_offset: int,
    base_timestamp: int,
    log_append_time: int | None,
) -> list[Record]:
    read_varint = _read_varint
    records: list[Record] = []
    append = records.append
    for _ in range(count):
        length, pos = read_varint(data, pos)
        record_end = pos + length
        if length < 0 or record_end > end:
            raise _corrupt(f"record length {length} runs past the batch")
        attributes = data[pos]
        timestamp_delta, pos = read_varint(data, pos + 1)
        offset_delta, pos = read_varint(data, pos)

        key_len, pos = read_varint(data, pos)
        if key_len < 0:
            if key_len != -1:
                raise _corrupt(f"invalid key length {key_len}")
            key = None
        else:
            key = data[pos : pos + key_len]
            pos += key_len

        value_len, pos = read_varint(data, pos)
        if value_len < 0:
            if value_len != -1:
                raise _corrupt(f"invalid value length {value_len}")
            value = None
        else:
            value = data[pos : pos + value_len]
            pos += value_len

        header_count, pos = read_varint(data, pos)
        if header_count < 0:
            raise _corrupt(f"invalid header count {header_count}")
        headers: list[Header] = []
        for _ in range(header_count):
            hkey_len, pos = read_varint(data, pos)
            if hkey_len < 0 or pos + hkey_len > record_end:
                raise _corrupt(f"invalid header key length {hkey_len}")
            hkey = data[pos : pos + hkey_len].decode()
            pos += hkey_len
            hvalue_len, pos = read_varint(data, pos)
            if hvalue_len < 0:
                if hvalue_len != -1:
                    raise _corrupt(f"invalid header value length {hvalue_len}")
                headers.append((hkey, None))
            else:
                headers.append((hkey, data[pos : pos + hvalue_len]))
                pos += hvalue_len

        # Slices past record_end are silently short, so this one check covers every field.
        if pos != record_end:
            raise _corrupt(
                f"record declared {length} bytes but its fields take {length + pos - record_end}"
            )
        timestamp = base_timestamp + timestamp_delta if log_append_time is None else log_append_time
        append(Record(base_offset + offset_delta, timestamp, key, value, headers, attributes))
    if pos != end:
        raise _corrupt(f"{end - pos} bytes left after the batch's {count} records")
    return records


def decode_batch(
    buf: bytes | bytearray | memoryview,
    pos: int = 0,
    *,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
    verify_crc: bool = True,
) -> tuple[BatchHeader, list[Record]]:
    """Decode the batch at ``pos``: its header and all of its records.

    Records of a LogAppendTime batch get the batch's max timestamp, as clients report them.
    """
    header = BatchHeader.parse(buf, pos)
    size = header.size
    if size < HEADER_SIZE:
        raise _corrupt(f"batch length {header.batch_length} is shorter than a batch header")
    if len(buf) - pos < size:
        raise _corrupt(f"batch of {size} bytes truncated to {len(buf) - pos}")
    if verify_crc and compute_crc(buf, pos, size) != header.crc:
        raise _corrupt("record batch CRC mismatch")
    if header.records_count < 0:
        raise _corrupt(f"negative record count {header.records_count}")

    codec = header.compression
    if codec == CompressionType.NONE:
        if isinstance(buf, bytes):
            data, start, end = buf, pos + HEADER_SIZE, pos + size
        else:
            data = bytes(memoryview(buf)[pos + HEADER_SIZE : pos + size])
            start, end = 0, len(data)
    else:
        if codec > CompressionType.ZSTD:
            raise _corrupt(f"unknown compression codec id {codec}")
        data = decompress(
            codec, memoryview(buf)[pos + HEADER_SIZE : pos + size], max_size=max_decompressed
        )
        start, end = 0, len(data)

    log_append_time = header.max_timestamp if header.is_log_append_time else None
    try:
        records = _read_records(
            data,
            start,
            end,
            header.records_count,
            header.base_offset,
            header.base_timestamp,
            log_append_time,
        )
    except (IndexError, UnicodeDecodeError) as exc:
        raise _corrupt(f"malformed record: {exc}") from exc
    return header, records


def iter_batches(
    buf: bytes | bytearray | memoryview, pos: int = 0
) -> Iterator[tuple[int, BatchHeader]]:
    """``(position, header)`` of each complete batch in a concatenation of batches.

    A truncated batch at the end (as a fetch response may carry) ends the iteration quietly;
    CRCs are not checked.
    """
    end = len(buf)
    while end - pos >= LOG_OVERHEAD:
        _, batch_length = peek_offset_and_length(buf, pos)
        size = batch_length + LOG_OVERHEAD
        if size < HEADER_SIZE:
            raise _corrupt(f"batch length {batch_length} is shorter than a batch header")
        if end - pos < size:
            return
        yield pos, BatchHeader.parse(buf, pos)
        pos += size


# ---------------------------------------------------------------- building


def _encode_record(
    out: bytearray,
    offset_delta: int,
    timestamp_delta: int,
    key: bytes | None,
    value: bytes | None,
    headers: Iterable[Header],
    attributes: int,
) -> None:
    body = bytearray((attributes,))
    _write_varint(body, timestamp_delta)
    _write_varint(body, offset_delta)
    for blob in (key, value):
        if blob is None:
            body.append(1)  # zigzag(-1)
        else:
            _write_varint(body, len(blob))
            body += blob
    headers = list(headers)
    _write_varint(body, len(headers))
    for hkey, hvalue in headers:
        encoded = hkey.encode()
        _write_varint(body, len(encoded))
        body += encoded
        if hvalue is None:
            body.append(1)
        else:
            _write_varint(body, len(hvalue))
            body += hvalue
    _write_varint(out, len(body))
    out += body


def build_batch(
    records: Iterable[Record | RecordTuple],
    *,
    base_offset: int = 0,
    codec: int = CompressionType.NONE,
    timestamp_type: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    partition_leader_epoch: int = -1,
    is_transactional: bool = False,
    is_control: bool = False,
    default_timestamp: int | None = None,
    last_offset_delta: int | None = None,
    compression_level: int | None = None,
) -> bytearray:
    """Build one magic-v2 batch.

    ``records`` items are either :class:`Record` objects, which keep their own offset
    (``offset - base_offset`` becomes the delta, so compaction can leave gaps), or tuples
    ``(key, value[, headers[, timestamp]])``, which take the offset after the previous item
    (the first one ``base_offset``). Offsets must increase. A missing timestamp (``None``)
    becomes ``default_timestamp``, or the current time.

    The base timestamp is the first record's, the max timestamp the largest one, as the Java
    producer writes them. ``last_offset_delta`` may extend the batch past its last record (an
    emptied batch kept by compaction); by default it is the last record's delta, or -1 with
    no records.
    """
    if default_timestamp is None:
        default_timestamp = int(time.time() * 1000)
    body = bytearray()
    count = 0
    prev_delta = -1
    base_timestamp = max_timestamp = NO_TIMESTAMP
    headers: Sequence[Header]
    timestamp: int | None
    for item in records:
        if isinstance(item, Record):
            delta = item.offset - base_offset
            timestamp = item.timestamp
            key, value, headers, attributes = item.key, item.value, item.headers, item.attributes
        else:
            delta = prev_delta + 1
            key, value = item[0], item[1]
            headers = item[2] if len(item) > 2 else ()
            timestamp = item[3] if len(item) > 3 else None
            attributes = 0
            if timestamp is None:
                timestamp = default_timestamp
        if delta <= prev_delta:
            raise ValueError(f"record offset delta {delta} does not follow {prev_delta}")
        if count == 0:
            base_timestamp = max_timestamp = timestamp
        elif timestamp > max_timestamp:
            max_timestamp = timestamp
        _encode_record(body, delta, timestamp - base_timestamp, key, value, headers, attributes)
        prev_delta = delta
        count += 1

    if last_offset_delta is None:
        last_offset_delta = prev_delta
    elif last_offset_delta < prev_delta:
        raise ValueError(
            f"last_offset_delta {last_offset_delta} is below the last record's {prev_delta}"
        )

    if codec != CompressionType.NONE:
        payload: bytes | bytearray = compress(codec, body, level=compression_level)
    else:
        payload = body
    attributes = codec & 0x07
    if timestamp_type:
        attributes |= TIMESTAMP_TYPE_MASK
    if is_transactional:
        attributes |= TRANSACTIONAL_MASK
    if is_control:
        attributes |= CONTROL_MASK

    out = bytearray(HEADER_SIZE)
    out += payload
    BatchHeader(
        base_offset=base_offset,
        batch_length=len(out) - LOG_OVERHEAD,
        partition_leader_epoch=partition_leader_epoch,
        magic=MAGIC,
        crc=0,
        attributes=attributes,
        last_offset_delta=last_offset_delta,
        base_timestamp=base_timestamp,
        max_timestamp=max_timestamp,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
        records_count=count,
    ).pack_into(out)
    write_crc(out)
    return out
