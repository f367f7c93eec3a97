"""Legacy message sets (magic 0 and 1), as clients before Kafka 0.11 write and read them, and
their conversion from and to magic-v2 record batches.

A message set is a concatenation of entries, all big-endian::

    offset      int64      absolute; in a v1 compressed wrapper's inner set, relative
    size        int32      bytes that follow
    crc         uint32     CRC-32 (zlib's, not CRC-32C) of everything after this field
    magic       int8       0 or 1
    attributes  int8       bits 0-2 codec, bit 3 (magic 1) LogAppendTime
    timestamp   int64      magic 1 only
    key         int32 length (-1 null) + bytes
    value       int32 length (-1 null) + bytes

Without compression each message is an entry of its own. A compressed message is a *wrapper*:
its value is a whole inner message set, compressed with the wrapper's codec (gzip, snappy or
lz4; zstd never existed for these formats). Inner offsets are absolute with magic 0; with
magic 1 they are relative (0, 1, 2, ...) and the wrapper's offset is that of the last inner
message, so the absolute offset of inner message *i* is ``wrapper - last inner + i``. Inner
messages of a v1 LogAppendTime wrapper take the wrapper's timestamp. lz4 with magic 0 carries
the frame-descriptor checksum that Kafka 0.8-0.9 computed wrongly (over the frame magic too);
readers of magic 0 ignore it and writers of magic 0 reproduce it.

What this module gives the broker, following Kafka 3.9 (``AbstractLegacyRecordBatch``,
``LegacyRecord``, ``MemoryRecordsBuilder``, ``RecordsUtil.downConvert`` and
``LazyDownConversionRecords``):

* reading: :func:`iter_entries` (the shallow entries, with Kafka's size and magic checks),
  :func:`read_message` (one entry decoded, its CRC checked), :func:`inner_messages` (a
  wrapper's inner messages with absolute offsets);
* writing: :func:`build_message_set`, a message set of magic 0 or 1 with or without
  compression, byte for byte what Kafka's ``MemoryRecordsBuilder`` writes;
* down-conversion of v2 batches for old fetchers: :func:`down_convert` (the batches converted)
  and :func:`lazy_down_convert` (the bytes a Kafka broker sends for one partition: the
  converted batches fitted into the size it commits to, padded with an overflow entry).

Up-conversion (a legacy produce appended as one v2 batch) is :func:`read_message`,
:func:`inner_messages` and :func:`protocol.records.record.build_batch`; the broker decides
what to validate in between.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import HEADER_SIZE as V2_HEADER_SIZE, MAGIC as MAGIC_V2
from protocol.records.compression import (
    DEFAULT_MAX_DECOMPRESSED,
    CompressionType,
    compress,
    decompress,
)
from protocol.records.record import decode_batch, iter_batches

MAGIC_V0 = 0
MAGIC_V1 = 1
LOG_OVERHEAD = 12  # offset + size
CRC_OFFSET = 12  # from the start of an entry
MAGIC_OFFSET = 16
#: crc, magic, attributes[, timestamp], key length, value length
RECORD_OVERHEAD_V0 = 14
RECORD_OVERHEAD_V1 = 22
CODEC_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
NO_TIMESTAMP = -1
#: LazyDownConversionRecordsSend: the most original bytes converted at a time, and the smallest
#: overflow entry
MAX_READ_SIZE = 128 * 1024
MIN_OVERFLOW_MESSAGE_LENGTH = LOG_OVERHEAD

_ENTRY_HEAD = struct.Struct(">qiIbb")  # offset, size, crc, magic, attributes
_OFFSET_SIZE = struct.Struct(">qi")
_I64 = struct.Struct(">q")
_I32 = struct.Struct(">i")
_U32 = struct.Struct(">I")
_U32_LE = struct.Struct("<I")


def _corrupt(message: str) -> KafkaError:
    return KafkaError(ErrorCode.CORRUPT_MESSAGE, message)


def _invalid(message: str) -> KafkaError:
    return KafkaError(ErrorCode.INVALID_RECORD, message)


@dataclass(slots=True)
class LegacyMessage:
    """One message of a legacy message set, decoded.

    ``timestamp`` is the one readers see: -1 for magic 0, a v1 LogAppendTime wrapper's for its
    inner messages. ``size`` counts the whole entry (offset and size fields included);
    ``crc_ok`` says whether the stored CRC matches the bytes."""

    offset: int
    magic: int
    attributes: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    crc: int
    crc_ok: bool
    size: int

    @property
    def compression(self) -> int:
        return self.attributes & CODEC_MASK

    @property
    def is_log_append_time(self) -> bool:
        """The LogAppendTime bit (magic 1 only; magic 0 has no timestamp type)."""
        return self.magic > MAGIC_V0 and bool(self.attributes & TIMESTAMP_TYPE_MASK)


# ---------------------------------------------------------------- reading


def peek_magic(buf: bytes | bytearray | memoryview, pos: int = 0) -> int | None:
    """The magic byte of the entry or batch at ``pos`` (the same place in every format), or
    None when the buffer is too short to tell."""
    if len(buf) - pos <= MAGIC_OFFSET:
        return None
    magic = buf[pos + MAGIC_OFFSET]
    return magic - 256 if magic > 127 else magic


def iter_entries(buf: bytes | bytearray | memoryview) -> Iterator[tuple[int, int]]:
    """``(position, size)`` of each complete entry (message or v2 batch) of a record set, size
    including the offset and size fields.

    Kafka's ``ByteBufferLogInputStream``: a size below the smallest message or a magic outside
    0-2 raises CORRUPT_MESSAGE; an incomplete entry at the end ends the iteration quietly (Kafka
    trims it before appending)."""
    pos = 0
    end = len(buf)
    while end - pos >= LOG_OVERHEAD:
        _, size = _OFFSET_SIZE.unpack_from(buf, pos)
        if size < RECORD_OVERHEAD_V0:
            raise _corrupt(f"Record size {size} is less than the minimum record overhead "
                           f"({RECORD_OVERHEAD_V0})")
        magic = peek_magic(buf, pos)
        if magic is None:
            return
        if not 0 <= magic <= MAGIC_V2:
            raise _corrupt(f"Invalid magic found in record: {magic}")
        if end - pos < size + LOG_OVERHEAD:
            return
        yield pos, size + LOG_OVERHEAD
        pos += size + LOG_OVERHEAD


def _read_blob(buf: bytes | bytearray | memoryview, pos: int, end: int,
               what: str) -> tuple[bytes | None, int]:
    if end - pos < 4:
        raise _corrupt(f"message {what} length runs past the message")
    (length,) = _I32.unpack_from(buf, pos)
    pos += 4
    if length < 0:
        return None, pos
    if length > end - pos:
        raise _corrupt(f"message {what} of {length} bytes runs past the message")
    return bytes(buf[pos : pos + length]), pos + length


def read_message(buf: bytes | bytearray | memoryview, pos: int = 0,
                 size: int | None = None) -> LegacyMessage:
    """Decode the magic 0/1 entry at ``pos`` (``size``: the whole entry, read from its size
    field when not given). A malformed message raises CORRUPT_MESSAGE; a bad CRC does not (see
    ``crc_ok``), since Kafka decides when to check it."""
    if size is None:
        if len(buf) - pos < LOG_OVERHEAD:
            raise _corrupt("message set entry shorter than its offset and size")
        size = _OFFSET_SIZE.unpack_from(buf, pos)[1] + LOG_OVERHEAD
    end = pos + size
    if size - LOG_OVERHEAD < RECORD_OVERHEAD_V0 or end > len(buf):
        raise _corrupt(f"message of {size} bytes is truncated or too small")
    offset, _, crc, magic, attributes = _ENTRY_HEAD.unpack_from(buf, pos)
    if magic not in (MAGIC_V0, MAGIC_V1):
        raise _corrupt(f"Invalid magic found in record: {magic}")
    p = pos + MAGIC_OFFSET + 2
    timestamp = NO_TIMESTAMP
    if magic == MAGIC_V1:
        if size - LOG_OVERHEAD < RECORD_OVERHEAD_V1:
            raise _corrupt(f"magic 1 message of {size} bytes is too small")
        (timestamp,) = _I64.unpack_from(buf, p)
        p += 8
    key, p = _read_blob(buf, p, end, "key")
    value, p = _read_blob(buf, p, end, "value")
    crc_ok = zlib.crc32(memoryview(buf)[pos + MAGIC_OFFSET : end]) == crc
    return LegacyMessage(offset, magic, attributes, timestamp, key, value, crc, crc_ok, size)


def inner_messages(wrapper: LegacyMessage, *,
                   max_decompressed: int = DEFAULT_MAX_DECOMPRESSED) -> list[LegacyMessage]:
    """The messages a compressed wrapper holds, with absolute offsets (Kafka's
    ``DeepRecordsIterator``, magics required to match).

    Raises INVALID_RECORD for what Kafka's iterator refuses: a zstd or null wrapper, an inner
    magic other than the wrapper's, no inner message, a v1 wrapper offset below its last inner
    offset (other than 0, which some librdkafka versions send: inner offsets are then taken as
    absolute from 0). CORRUPT_MESSAGE for data that does not decompress or parse. Inner
    messages that are themselves compressed are returned as they are: Kafka refuses them when
    its iteration reaches them."""
    codec = wrapper.compression
    if codec == CompressionType.ZSTD:
        raise _invalid("Invalid wrapper compressionType found in legacy deep record iterator "
                       f"{wrapper.magic}")
    if wrapper.value is None:
        raise _invalid(f"Found invalid compressed record set with null value "
                       f"(magic = {wrapper.magic})")
    data = wrapper.value
    if codec == CompressionType.LZ4 and wrapper.magic == MAGIC_V0:
        data = lz4_fix_header_checksum(data)
    raw = decompress(codec, data, max_size=max_decompressed)
    inner: list[LegacyMessage] = []
    pos = 0
    end = len(raw)
    while end - pos >= LOG_OVERHEAD:
        _, size = _OFFSET_SIZE.unpack_from(raw, pos)
        if size < RECORD_OVERHEAD_V0:
            raise _corrupt(f"Record size is less than the minimum record overhead "
                           f"({RECORD_OVERHEAD_V0})")
        if end - pos < size + LOG_OVERHEAD:
            break  # a truncated last message is dropped, as Kafka's stream reader does
        message = read_message(raw, pos, size + LOG_OVERHEAD)
        if message.magic != wrapper.magic:
            raise _invalid(f"Compressed message magic {message.magic} does not match wrapper "
                           f"magic {wrapper.magic}")
        if wrapper.is_log_append_time:
            message.timestamp = wrapper.timestamp
        inner.append(message)
        pos += size + LOG_OVERHEAD
    if not inner:
        raise _invalid("Found invalid compressed record set with no inner records")
    if wrapper.magic == MAGIC_V1:
        last_inner = inner[-1].offset
        if wrapper.offset == 0:
            base = 0
        elif wrapper.offset < last_inner:
            raise _invalid(f"Found invalid wrapper offset in compressed v1 message set, wrapper "
                           f"offset '{wrapper.offset}' is less than the last inner message "
                           f"offset '{last_inner}' and it is not zero.")
        else:
            base = wrapper.offset - last_inner
        for message in inner:
            message.offset += base
    return inner


# ---------------------------------------------------------------- lz4's header checksum

_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
_M32 = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def xxh32(data: bytes | bytearray | memoryview, seed: int = 0) -> int:
    """XXH32, the hash of lz4 frame checksums (used here on frame descriptors of a few bytes)."""
    view = memoryview(data)
    n = len(view)
    pos = 0
    if n >= 16:
        v = [(seed + _P1 + _P2) & _M32, (seed + _P2) & _M32, seed & _M32, (seed - _P1) & _M32]
        while pos <= n - 16:
            for i in range(4):
                lane = _U32_LE.unpack_from(view, pos)[0]
                v[i] = (_rotl((v[i] + lane * _P2) & _M32, 13) * _P1) & _M32
                pos += 4
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M32
    else:
        h = (seed + _P5) & _M32
    h = (h + n) & _M32
    while pos <= n - 4:
        h = (_rotl((h + _U32_LE.unpack_from(view, pos)[0] * _P3) & _M32, 17) * _P4) & _M32
        pos += 4
    while pos < n:
        h = (_rotl((h + view[pos] * _P5) & _M32, 11) * _P1) & _M32
        pos += 1
    h ^= h >> 15
    h = (h * _P2) & _M32
    h ^= h >> 13
    h = (h * _P3) & _M32
    h ^= h >> 16
    return h


def _lz4_descriptor_end(data: bytes | bytearray | memoryview) -> int:
    """The position of the header-checksum byte of the lz4 frame starting ``data``."""
    if len(data) < 7:
        raise _corrupt("lz4 frame shorter than its header")
    flg = data[4]
    end = 6 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
    if len(data) <= end:
        raise _corrupt("lz4 frame shorter than its header")
    return end


def lz4_fix_header_checksum(data: bytes | bytearray | memoryview) -> bytes:
    """The lz4 frame with the header checksum a standard reader expects (magic-0 writers put
    a checksum over the frame magic too, which Kafka's magic-0 readers skip)."""
    end = _lz4_descriptor_end(data)
    out = bytearray(data)
    out[end] = (xxh32(out[4:end]) >> 8) & 0xFF
    return bytes(out)


def lz4_break_header_checksum(data: bytes | bytearray | memoryview) -> bytes:
    """The lz4 frame with the header checksum Kafka's magic-0 writers compute (over the frame
    magic and the descriptor), as old readers expect it."""
    end = _lz4_descriptor_end(data)
    out = bytearray(data)
    out[end] = (xxh32(out[0:end]) >> 8) & 0xFF
    return bytes(out)


# ---------------------------------------------------------------- writing


def write_message(out: bytearray, offset: int, magic: int, attributes: int, timestamp: int,
                  key: bytes | bytearray | memoryview | None,
                  value: bytes | bytearray | memoryview | None) -> int:
    """Append one entry (offset, size, CRC and the message) to ``out``; returns its CRC."""
    start = len(out)
    out += bytes(MAGIC_OFFSET)  # offset, size, crc: filled in below
    out.append(magic)
    out.append(attributes)
    if magic > MAGIC_V0:
        out += _I64.pack(timestamp)
    for blob in (key, value):
        if blob is None:
            out += _I32.pack(-1)
        else:
            out += _I32.pack(len(blob))
            out += blob
    crc = zlib.crc32(memoryview(out)[start + MAGIC_OFFSET :])
    _OFFSET_SIZE.pack_into(out, start, offset, len(out) - start - LOG_OVERHEAD)
    _U32.pack_into(out, start + CRC_OFFSET, crc)
    return crc


#: what a legacy message is built from: (absolute offset, timestamp, key, value)
LegacyRecordTuple = tuple[int, int, bytes | None, bytes | None]


def build_message_set(records: Iterable[LegacyRecordTuple], *, magic: int,
                      codec: int = CompressionType.NONE, log_append_time: int | None = None,
                      compression_level: int | None = None) -> bytearray:
    """A message set of ``magic`` holding ``records`` as Kafka's ``MemoryRecordsBuilder``
    writes it: one message per record without compression; with it, one wrapper whose offset
    is the last record's and whose timestamp (magic 1) is the largest, or the log append time.

    With ``log_append_time`` (magic 1) every message carries the LogAppendTime bit and that
    timestamp. Raises UNSUPPORTED_COMPRESSION_TYPE for zstd, which these formats never had."""
    if magic not in (MAGIC_V0, MAGIC_V1):
        raise ValueError(f"legacy magic must be 0 or 1, not {magic}")
    if codec == CompressionType.ZSTD or codec > CompressionType.ZSTD:
        raise KafkaError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
                         f"compression codec {codec} cannot be used with magic {magic}")
    ts_bit = TIMESTAMP_TYPE_MASK if magic > MAGIC_V0 and log_append_time is not None else 0
    compressed = codec != CompressionType.NONE
    out = bytearray()
    body = bytearray() if compressed else out
    base_offset: int | None = None
    last_offset = -1
    max_timestamp = NO_TIMESTAMP
    for offset, timestamp, key, value in records:
        if base_offset is None:
            base_offset = offset
        elif offset <= last_offset:
            raise ValueError(f"offset {offset} does not follow {last_offset}")
        if log_append_time is not None:
            timestamp = log_append_time
        if magic > MAGIC_V0 and timestamp > max_timestamp:
            max_timestamp = timestamp
        # magic 1 wrappers number their inner messages from 0
        inner_offset = offset - base_offset if compressed and magic > MAGIC_V0 else offset
        write_message(body, inner_offset, magic, ts_bit, timestamp, key, value)
        last_offset = offset
    if not compressed or base_offset is None:
        return out
    payload = compress(codec, body, level=compression_level)
    if codec == CompressionType.LZ4 and magic == MAGIC_V0:
        payload = lz4_break_header_checksum(payload)
    wrapper_ts = log_append_time if log_append_time is not None else max_timestamp
    write_message(out, last_offset, magic, codec | ts_bit, wrapper_ts, None, payload)
    return out


# ---------------------------------------------------------------- down-conversion


def _level(codec: int, levels: dict[int, int] | None) -> int | None:
    return None if levels is None else levels.get(codec)


def _convert_batches(buf: bytes | bytearray | memoryview, batches: list[int], to_magic: int,
                     first_offset: int, levels: dict[int, int] | None) -> bytearray:
    """``RecordsUtil.downConvert`` of the v2 batches at the given positions of ``buf``."""
    out = bytearray()
    for pos in batches:
        header, records = decode_batch(buf, pos, verify_crc=False)
        if header.is_control:
            continue  # transaction markers have no legacy form
        codec = header.compression
        if codec == CompressionType.ZSTD:
            raise KafkaError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
                             "Down-conversion of zstandard-compressed batches is not supported")
        if codec == CompressionType.NONE:
            # legacy messages are unbatched: a fetch from the middle of a batch starts there
            records = [r for r in records if r.offset >= first_offset]
        if not records:
            continue
        out += build_message_set(
            ((r.offset, r.timestamp, r.key, r.value) for r in records),
            magic=to_magic, codec=codec,
            log_append_time=header.max_timestamp if header.is_log_append_time else None,
            compression_level=_level(codec, levels))
    return out


def _batch_positions(buf: bytes | bytearray | memoryview) -> list[tuple[int, int]]:
    return [(pos, header.size) for pos, header in iter_batches(buf)]


def down_convert(buf: bytes | bytearray | memoryview, to_magic: int, first_offset: int, *,
                 compression_levels: dict[int, int] | None = None) -> bytearray:
    """The complete v2 batches of ``buf`` as a message set of ``to_magic`` (0 or 1), as
    Kafka's ``RecordsUtil.downConvert`` converts them: control batches dropped, headers
    dropped, each batch keeping its codec (a compressed batch becomes one wrapper), records
    of an uncompressed batch before ``first_offset`` left out. A zstd batch raises
    UNSUPPORTED_COMPRESSION_TYPE. ``compression_levels`` maps a codec to its level."""
    return _convert_batches(buf, [pos for pos, _ in _batch_positions(buf)], to_magic,
                            first_offset, compression_levels)


def _overflow(remaining: int) -> bytes:
    """``LazyDownConversionRecordsSend.buildOverflowBatch``: an entry header whose size runs
    past the response, which readers take as a partial message and skip."""
    length = max(MIN_OVERFLOW_MESSAGE_LENGTH, min(remaining + 1, MAX_READ_SIZE))
    head = _OFFSET_SIZE.pack(-1, max(remaining + 1, V2_HEADER_SIZE))
    return (head + bytes(length - len(head)))[:remaining]


def lazy_down_convert(buf: bytes | bytearray | memoryview, to_magic: int, first_offset: int, *,
                      compression_levels: dict[int, int] | None = None) -> bytes:
    """The records a Kafka 3.9 broker sends an old fetcher for one partition whose log read
    gave ``buf`` (``LazyDownConversionRecords`` and its send).

    Kafka commits to a size before converting all of it: the larger of the bytes read and
    the first batch that converts to something. Batches are then converted in chunks of up to
    128 KiB of original bytes and written until that size is reached, the last one cut short
    if need be; when the conversion runs out first (converted messages are often smaller, or a
    zstd batch stops it), the rest is an overflow entry that readers skip as a partial
    message. A zstd batch first raises UNSUPPORTED_COMPRESSION_TYPE (the partition is answered
    with that error); later, it ends the conversion.

    Kafka's second pass skips only the first batch read, so when batches before the first
    convertible one were dropped (control batches) it converts that one twice; this
    conversion continues after it instead."""
    batches = _batch_positions(buf)
    first: bytearray | None = None
    rest = 0
    for i, (pos, _) in enumerate(batches):
        converted = _convert_batches(buf, [pos], to_magic, first_offset, compression_levels)
        if converted:
            first, rest = converted, i + 1
            break
    if first is None:
        size = MIN_OVERFLOW_MESSAGE_LENGTH if batches else 0
        return _overflow(size)
    size = max(len(buf), len(first))
    out = bytearray(first[:size])
    while len(out) < size and rest < len(batches):
        chunk = [batches[rest][0]]
        read = batches[rest][1]
        rest += 1
        while rest < len(batches) and read + batches[rest][1] <= MAX_READ_SIZE:
            chunk.append(batches[rest][0])
            read += batches[rest][1]
            rest += 1
        try:
            converted = _convert_batches(buf, chunk, to_magic, first_offset, compression_levels)
        except KafkaError as e:
            if e.code != ErrorCode.UNSUPPORTED_COMPRESSION_TYPE:
                raise
            break
        out += converted[: size - len(out)]
    while len(out) < size:
        out += _overflow(size - len(out))
    return bytes(out)
