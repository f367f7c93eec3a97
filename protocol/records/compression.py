"""Compression codecs of magic-v2 record batches, as the Kafka clients write them.

What each client produces, and so what ``decompress`` must accept:

* gzip - a gzip stream (Java ``GZIPOutputStream``, librdkafka, kafka-python); several
  concatenated members are accepted, as Java's ``GZIPInputStream`` does.
* snappy - Java and kafka-python write the xerial (snappy-java) stream: a 16-byte header
  (``\\x82SNAPPY\\x00``, version, compatible version) then ``[int32 length][raw snappy block]``
  repeated; librdkafka writes one raw snappy block. Both readers (snappy-java's
  ``SnappyInputStream`` and librdkafka's msgset reader) accept either form, so we read both and
  write the xerial form with 32 KiB blocks, as Java does.
* lz4 - the standard LZ4 frame format. Java's reader only handles independent blocks and no
  dictionary id, so that is what ``compress`` writes.
* zstd - standard frames; zstd-jni's streaming encoder leaves the content size out, so nothing
  here relies on it.

Decompression is bounded: ``max_size`` caps the output, and for snappy, lz4 and zstd the cap is
enforced from the block headers *before* any output is allocated (a few bytes of a crafted zstd
RLE block can otherwise expand to gigabytes). For lz4 and zstd the headers only give an upper
bound for compressed blocks, so data within one block (at most 4 MiB for lz4, 128 KiB for
zstd) of the cap may be refused.

Every failure is reported as ``KafkaError(CORRUPT_MESSAGE)``; an unknown codec id as
``KafkaError(UNSUPPORTED_COMPRESSION_TYPE)``.
"""

from __future__ import annotations

import enum
import struct
import zlib
from collections.abc import Callable

import cramjam

from protocol.errors import ErrorCode, KafkaError

DEFAULT_MAX_DECOMPRESSED = 256 * 1024 * 1024

BytesLike = bytes | bytearray | memoryview


class CompressionType(enum.IntEnum):
    """Codec ids of the batch attributes (bits 0-2)."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4

    @property
    def config_name(self) -> str:
        """The name Kafka configs use: ``none``, ``gzip``, ``snappy``, ``lz4``, ``zstd``."""
        return self.name.lower()

    @classmethod
    def from_name(cls, name: str) -> CompressionType:
        """Parse a producer-style codec name (``uncompressed`` is accepted for ``none``)."""
        key = name.strip().lower()
        if key == "uncompressed":
            return cls.NONE
        try:
            return cls[key.upper()]
        except KeyError:
            raise ValueError(f"unknown compression type {name!r}") from None


# Values of the topic/broker config ``compression.type``.
TOPIC_COMPRESSION_TYPES = ("uncompressed", "gzip", "snappy", "lz4", "zstd", "producer")


def topic_compression(config_value: str, producer_codec: int) -> CompressionType:
    """The codec a topic stores a batch with: its own, or the producer's for ``producer``."""
    if config_value.strip().lower() == "producer":
        return CompressionType(producer_codec)
    return CompressionType.from_name(config_value)


def compression_level(codec: int, *, gzip_level: int, lz4_level: int, zstd_level: int,
                      ) -> int | None:
    """The level a topic's ``compression.<codec>.level`` settings give ``codec`` (snappy has
    none; gzip's -1 is zlib's default, 6)."""
    return {
        CompressionType.GZIP: gzip_level if gzip_level >= 0 else None,
        CompressionType.LZ4: lz4_level,
        CompressionType.ZSTD: zstd_level,
    }.get(CompressionType(codec))


def _corrupt(message: str) -> KafkaError:
    return KafkaError(ErrorCode.CORRUPT_MESSAGE, message)


def _too_large(size: int, max_size: int) -> KafkaError:
    return _corrupt(f"decompressed size {size} exceeds the limit of {max_size} bytes")


_I32_BE = struct.Struct(">i")
_U32_LE = struct.Struct("<I")

# ---------------------------------------------------------------- gzip


def _gzip_compress(data: BytesLike, level: int | None) -> bytes:
    return bytes(cramjam.gzip.compress(data, level=6 if level is None else level))


def _gzip_decompress(data: BytesLike, max_size: int) -> bytes:
    # zlib's max_length bounds the output exactly, which cramjam's one-shot call cannot.
    parts: list[bytes] = []
    remaining = max_size
    rest: BytesLike = data
    while True:
        d = zlib.decompressobj(wbits=31)
        out = d.decompress(rest, remaining + 1)
        if len(out) > remaining:
            raise _too_large(max_size - remaining + len(out), max_size)
        if not d.eof:
            raise _corrupt("truncated gzip stream")
        parts.append(out)
        remaining -= len(out)
        rest = d.unused_data
        if not rest:
            return b"".join(parts)


# ---------------------------------------------------------------- snappy

XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = XERIAL_MAGIC + struct.pack(">ii", 1, 1)
_XERIAL_HEADER_SIZE = len(_XERIAL_HEADER)
XERIAL_BLOCK_SIZE = 32 * 1024


def _snappy_compress(data: BytesLike, level: int | None) -> bytes:
    view = memoryview(data)
    parts = [_XERIAL_HEADER]
    # An empty input still gets one (empty) block: librdkafka only takes the xerial path for
    # streams longer than header + 4 bytes, and would misread a bare header as raw snappy.
    for start in range(0, max(len(view), 1), XERIAL_BLOCK_SIZE):
        block = cramjam.snappy.compress_raw(view[start : start + XERIAL_BLOCK_SIZE])
        parts.append(_I32_BE.pack(len(block)))
        parts.append(bytes(block))
    return b"".join(parts)


def _xerial_blocks(view: memoryview) -> list[memoryview]:
    """The raw snappy blocks of a xerial stream (a repeated header starts a new stream)."""
    blocks = []
    pos = _XERIAL_HEADER_SIZE
    end = len(view)
    while pos < end:
        if view[pos : pos + 8] == XERIAL_MAGIC:
            pos += _XERIAL_HEADER_SIZE
            continue
        if end - pos < 4:
            raise _corrupt("truncated xerial snappy block length")
        (length,) = _I32_BE.unpack_from(view, pos)
        pos += 4
        if length < 0 or length > end - pos:
            raise _corrupt(f"bad xerial snappy block length {length}")
        blocks.append(view[pos : pos + length])
        pos += length
    return blocks


def _snappy_decompress(data: BytesLike, max_size: int) -> bytes:
    view = memoryview(data)
    if view[:8] == XERIAL_MAGIC and len(view) >= _XERIAL_HEADER_SIZE:
        # The version fields are not checked: some producers write them little-endian.
        blocks = _xerial_blocks(view)
    else:
        blocks = [view]
    sizes = [cramjam.snappy.decompress_raw_len(b) for b in blocks]
    total = sum(sizes)
    if total > max_size:
        raise _too_large(total, max_size)
    out = bytearray(total)
    out_view = memoryview(out)
    pos = 0
    for block, size in zip(blocks, sizes, strict=True):
        if cramjam.snappy.decompress_raw_into(block, out_view[pos : pos + size]) != size:
            raise _corrupt("snappy block shorter than its declared length")
        pos += size
    out_view.release()
    return bytes(out)


# ---------------------------------------------------------------- lz4

_LZ4_MAGIC = 0x184D2204
_SKIPPABLE_MAGIC_MASK = 0xFFFFFFF0
_SKIPPABLE_MAGIC = 0x184D2A50


def _lz4_compress(data: BytesLike, level: int | None) -> bytes:
    c = cramjam.lz4.Compressor(level=level, content_checksum=False, block_linked=False)
    c.compress(data if isinstance(data, bytes) else bytes(data))  # this one takes bytes only
    return bytes(c.finish())


def _lz4_bound(view: memoryview) -> int:
    """Upper bound of the decompressed size, from the frame and block headers alone."""
    total = 0
    pos = 0
    end = len(view)
    while pos < end:
        (magic,) = _U32_LE.unpack_from(view, pos)
        if magic & _SKIPPABLE_MAGIC_MASK == _SKIPPABLE_MAGIC:
            pos += 8 + _U32_LE.unpack_from(view, pos + 4)[0]
            continue
        if magic != _LZ4_MAGIC:
            raise _corrupt("bad lz4 frame magic")
        flg, bd = view[pos + 4], view[pos + 5]
        if flg >> 6 != 1 or not 4 <= (bd >> 4) & 7 <= 7:
            raise _corrupt("unsupported lz4 frame descriptor")
        block_max = 1 << (2 * ((bd >> 4) & 7) + 8)
        block_checksum = 4 if flg & 0x10 else 0
        pos += 7 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
        while True:
            (word,) = _U32_LE.unpack_from(view, pos)
            pos += 4
            if word == 0:
                break
            size = word & 0x7FFFFFFF
            if size > block_max:
                raise _corrupt(f"lz4 block of {size} bytes exceeds the frame's {block_max}")
            total += size if word & 0x80000000 else block_max
            pos += size + block_checksum
        pos += 4 if flg & 0x04 else 0
    if pos > end:
        raise _corrupt("truncated lz4 frame")
    return total


# ---------------------------------------------------------------- zstd

_ZSTD_MAGIC = 0xFD2FB528
_ZSTD_BLOCK_MAX = 128 * 1024
_ZSTD_DICT_ID_SIZES = (0, 1, 2, 4)


def _zstd_compress(data: BytesLike, level: int | None) -> bytes:
    return bytes(cramjam.zstd.compress(data, level=3 if level is None else level))


def _zstd_bound(view: memoryview) -> int:
    """Upper bound of the decompressed size, from the frame and block headers alone."""
    total = 0
    pos = 0
    end = len(view)
    while pos < end:
        (magic,) = _U32_LE.unpack_from(view, pos)
        if magic & _SKIPPABLE_MAGIC_MASK == _SKIPPABLE_MAGIC:
            pos += 8 + _U32_LE.unpack_from(view, pos + 4)[0]
            continue
        if magic != _ZSTD_MAGIC:
            raise _corrupt("bad zstd frame magic")
        fhd = view[pos + 4]
        if fhd & 0x08:
            raise _corrupt("zstd frame header has its reserved bit set")
        single_segment = fhd & 0x20
        fcs_size = (1 if single_segment else 0, 2, 4, 8)[fhd >> 6]
        pos += 5 + (0 if single_segment else 1) + _ZSTD_DICT_ID_SIZES[fhd & 3] + fcs_size
        while True:
            header = view[pos] | view[pos + 1] << 8 | view[pos + 2] << 16
            pos += 3
            block_type = (header >> 1) & 3
            size = header >> 3
            if block_type == 0:  # raw
                total += size
                pos += size
            elif block_type == 1:  # RLE: one byte repeated `size` times
                total += size
                pos += 1
            elif block_type == 2 and size <= _ZSTD_BLOCK_MAX:
                total += _ZSTD_BLOCK_MAX
                pos += size
            else:
                raise _corrupt("bad zstd block header")
            if header & 1:
                break
        pos += 4 if fhd & 0x04 else 0
    if pos > end:
        raise _corrupt("truncated zstd frame")
    return total


def _bounded(
    bound: Callable[[memoryview], int], decompress_all: Callable[[BytesLike], cramjam.Buffer]
) -> Callable[[BytesLike, int], bytes]:
    def decompress(data: BytesLike, max_size: int) -> bytes:
        size = bound(memoryview(data))
        if size > max_size:
            raise _too_large(size, max_size)
        return bytes(decompress_all(data))

    return decompress


# ---------------------------------------------------------------- dispatch

_COMPRESSORS: dict[int, Callable[[BytesLike, int | None], bytes]] = {
    CompressionType.GZIP: _gzip_compress,
    CompressionType.SNAPPY: _snappy_compress,
    CompressionType.LZ4: _lz4_compress,
    CompressionType.ZSTD: _zstd_compress,
}

_DECOMPRESSORS: dict[int, Callable[[BytesLike, int], bytes]] = {
    CompressionType.GZIP: _gzip_decompress,
    CompressionType.SNAPPY: _snappy_decompress,
    CompressionType.LZ4: _bounded(_lz4_bound, cramjam.lz4.decompress),
    CompressionType.ZSTD: _bounded(_zstd_bound, cramjam.zstd.decompress),
}


def _unsupported(codec: int) -> KafkaError:
    return KafkaError(
        ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, f"unknown compression codec id {codec}"
    )


def compress(codec: int, data: BytesLike, *, level: int | None = None) -> bytes:
    """Compress ``data`` the way the Java client does for ``codec``.

    ``level`` is the codec's own level (Kafka's ``compression.<codec>.level``); the defaults
    are gzip 6 and zstd 3 like Java, and cramjam's fast default for lz4 (Java uses 9).
    """
    if codec == CompressionType.NONE:
        return bytes(data)
    try:
        compressor = _COMPRESSORS[codec]
    except KeyError:
        raise _unsupported(codec) from None
    return compressor(data, level)


def decompress(codec: int, data: BytesLike, *, max_size: int = DEFAULT_MAX_DECOMPRESSED) -> bytes:
    """Decompress a batch's records section; at most ``max_size`` bytes of output."""
    if codec == CompressionType.NONE:
        if len(data) > max_size:
            raise _too_large(len(data), max_size)
        return bytes(data)
    try:
        decompressor = _DECOMPRESSORS[codec]
    except KeyError:
        raise _unsupported(codec) from None
    try:
        return decompressor(data, max_size)
    except KafkaError:
        raise
    except Exception as exc:  # cramjam.DecompressionError, zlib.error, struct.error, IndexError...
        name = CompressionType(codec).config_name
        raise _corrupt(f"invalid {name} data: {exc}") from exc
