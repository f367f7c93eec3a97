"""Batch compression codecs: round trips, the forms real clients write, and bad input."""

from __future__ import annotations

import gzip
import io
import os
import random
import struct
import zlib

import cramjam
import kafka.codec as kafka_codec
import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.compression import (
    XERIAL_MAGIC,
    CompressionType,
    compress,
    decompress,
    topic_compression,
)

CODECS = [CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD]


def _payloads() -> dict[str, bytes]:
    rng = random.Random(1234)
    text = b"".join(b"key-%d:value-%d;" % (i, rng.randrange(1000)) for i in range(100_000))
    return {
        "empty": b"",
        "one": b"x",
        "small": b"hello kafka",
        "random-4k": rng.randbytes(4096),
        "block-edge": rng.randbytes(32 * 1024) + b"a" * (32 * 1024 + 1),
        "text-1.6MiB": text,
        "random-1.1MiB": rng.randbytes(1_100_000),
    }


PAYLOADS = _payloads()


def _assert_corrupt(codec: int, data: bytes, **kwargs: int) -> KafkaError:
    with pytest.raises(KafkaError) as info:
        decompress(codec, data, **kwargs)
    assert info.value.code == ErrorCode.CORRUPT_MESSAGE
    return info.value


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.config_name)
@pytest.mark.parametrize("name", list(PAYLOADS))
def test_round_trip(codec: CompressionType, name: str) -> None:
    data = PAYLOADS[name]
    packed = compress(codec, data)
    assert decompress(codec, packed) == data
    for kind in (bytearray, lambda d: memoryview(bytearray(d))):
        assert decompress(codec, compress(codec, kind(data))) == data
    assert decompress(codec, bytearray(packed)) == data
    assert decompress(codec, memoryview(b"pad" + packed)[3:]) == data


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.config_name)
def test_compression_shrinks_repetitive_data(codec: CompressionType) -> None:
    data = PAYLOADS["text-1.6MiB"]
    assert len(compress(codec, data)) < len(data) // 2


def test_none_is_identity() -> None:
    assert compress(CompressionType.NONE, b"abc") == b"abc"
    assert decompress(CompressionType.NONE, memoryview(b"abc")) == b"abc"


def test_levels_are_passed_through() -> None:
    data = PAYLOADS["text-1.6MiB"]
    for codec, low, high in ((CompressionType.GZIP, 1, 9), (CompressionType.ZSTD, 1, 19)):
        fast, small = compress(codec, data, level=low), compress(codec, data, level=high)
        assert fast != small
        assert decompress(codec, fast) == decompress(codec, small) == data


def test_unknown_codec_id() -> None:
    for call in (lambda: compress(5, b"x"), lambda: decompress(7, b"x")):
        with pytest.raises(KafkaError) as info:
            call()
        assert info.value.code == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE


# ---------------------------------------------------------------- names / topic config


def test_names() -> None:
    assert [c.config_name for c in CompressionType] == ["none", "gzip", "snappy", "lz4", "zstd"]
    assert CompressionType.from_name("ZSTD") is CompressionType.ZSTD
    assert CompressionType.from_name("uncompressed") is CompressionType.NONE
    with pytest.raises(ValueError):
        CompressionType.from_name("brotli")


def test_topic_compression() -> None:
    assert topic_compression("producer", 3) is CompressionType.LZ4
    assert topic_compression("uncompressed", 3) is CompressionType.NONE
    assert topic_compression("gzip", 4) is CompressionType.GZIP


# ---------------------------------------------------------------- gzip


def test_gzip_from_stdlib_and_multi_member() -> None:
    data = PAYLOADS["text-1.6MiB"]
    assert decompress(CompressionType.GZIP, gzip.compress(data, compresslevel=9)) == data
    two = gzip.compress(b"first,") + gzip.compress(b"second")
    assert decompress(CompressionType.GZIP, two) == b"first,second"


def test_gzip_output_is_a_standard_gzip_stream() -> None:
    data = PAYLOADS["random-4k"]
    packed = compress(CompressionType.GZIP, data)
    assert packed[:2] == b"\x1f\x8b"
    assert gzip.decompress(packed) == data


def test_gzip_rejects_trailing_garbage_and_truncation() -> None:
    packed = gzip.compress(b"payload" * 100)
    _assert_corrupt(CompressionType.GZIP, packed + b"junk")
    _assert_corrupt(CompressionType.GZIP, packed[:-5])
    _assert_corrupt(CompressionType.GZIP, zlib.compress(b"zlib, not gzip"))


# ---------------------------------------------------------------- snappy


def _xerial(data: bytes, block_size: int, version: bytes = struct.pack(">ii", 1, 1)) -> bytes:
    out = io.BytesIO()
    out.write(XERIAL_MAGIC + version)
    for i in range(0, len(data), block_size):
        block = bytes(cramjam.snappy.compress_raw(data[i : i + block_size]))
        out.write(struct.pack(">i", len(block)) + block)
    return out.getvalue()


@pytest.mark.parametrize("block_size", [1, 1000, 32 * 1024, 64 * 1024])
def test_snappy_reads_hand_built_xerial(block_size: int) -> None:
    data = PAYLOADS["block-edge"][: 70_000 if block_size > 1 else 3000]
    assert decompress(CompressionType.SNAPPY, _xerial(data, block_size)) == data


def test_snappy_xerial_ignores_version_fields_and_repeated_headers() -> None:
    data = b"kafka " * 5000
    little_endian = _xerial(data, 4096, struct.pack("<ii", 1, 1))
    assert decompress(CompressionType.SNAPPY, little_endian) == data
    concatenated = _xerial(b"abc" * 100, 64) + _xerial(b"def" * 100, 64)
    assert decompress(CompressionType.SNAPPY, concatenated) == b"abc" * 100 + b"def" * 100


def test_snappy_reads_raw_blocks() -> None:
    for data in (b"x", PAYLOADS["text-1.6MiB"], PAYLOADS["random-4k"]):
        raw = bytes(cramjam.snappy.compress_raw(data))
        assert decompress(CompressionType.SNAPPY, raw) == data


def test_snappy_writes_xerial_with_32k_blocks() -> None:
    data = PAYLOADS["random-1.1MiB"][:100_000]
    packed = compress(CompressionType.SNAPPY, data)
    assert packed[:16] == XERIAL_MAGIC + struct.pack(">ii", 1, 1)
    pos, sizes = 16, []
    while pos < len(packed):
        (length,) = struct.unpack_from(">i", packed, pos)
        sizes.append(cramjam.snappy.decompress_raw_len(packed[pos + 4 : pos + 4 + length]))
        pos += 4 + length
    assert pos == len(packed)
    assert sizes == [32768, 32768, 32768, 100_000 - 3 * 32768]


def test_snappy_empty_input_still_has_a_block() -> None:
    # librdkafka treats a xerial stream of header + <= 4 bytes as raw snappy.
    packed = compress(CompressionType.SNAPPY, b"")
    assert len(packed) > 20
    assert decompress(CompressionType.SNAPPY, packed) == b""


def test_snappy_bad_input() -> None:
    good = _xerial(b"abcdef" * 1000, 1024)
    _assert_corrupt(CompressionType.SNAPPY, good[:-3])  # truncated block
    _assert_corrupt(CompressionType.SNAPPY, good + b"\x00\x00")  # truncated length
    negative = XERIAL_MAGIC + struct.pack(">iii", 1, 1, -5)
    _assert_corrupt(CompressionType.SNAPPY, negative)
    _assert_corrupt(CompressionType.SNAPPY, b"\x00garbage")
    _assert_corrupt(CompressionType.SNAPPY, b"")
    # a raw block declaring more output than it holds
    _assert_corrupt(CompressionType.SNAPPY, b"\xff\x01abc")


# ---------------------------------------------------------------- lz4


def test_lz4_output_is_a_frame_java_can_read() -> None:
    packed = compress(CompressionType.LZ4, PAYLOADS["text-1.6MiB"])
    assert packed[:4] == b"\x04\x22\x4d\x18"
    flg, bd = packed[4], packed[5]
    assert flg >> 6 == 1  # version 01
    assert flg & 0x20  # independent blocks: Java rejects linked ones
    assert not flg & 0x03  # no dictionary id, reserved bit clear
    assert 4 <= (bd >> 4) & 7 <= 7


def test_lz4_reads_frames_with_content_size_checksums_and_linked_blocks() -> None:
    data = PAYLOADS["text-1.6MiB"]
    linked = cramjam.lz4.Compressor(content_checksum=True, block_linked=True)
    linked.compress(data)
    assert decompress(CompressionType.LZ4, bytes(linked.finish())) == data
    # cramjam's one-shot frame: content checksum on, 64 KiB linked blocks
    assert decompress(CompressionType.LZ4, bytes(cramjam.lz4.compress(data))) == data


def _lz4_frame(descriptor: bytes, blocks: bytes) -> bytes:
    """A frame with the header checksum byte cramjam accepts (we have no xxhash to compute it)."""
    for hc in range(256):
        frame = b"\x04\x22\x4d\x18" + descriptor + bytes([hc]) + blocks
        try:
            cramjam.lz4.decompress(frame)
        except cramjam.DecompressionError:
            continue
        return frame
    raise AssertionError("no header checksum accepted")


def test_lz4_frame_with_content_size_and_uncompressed_blocks() -> None:
    # FLG = version 01 | independent blocks | content size; BD = 64 KiB blocks (kafka-python's form)
    data = os.urandom(1000)
    frame = _lz4_frame(
        b"\x68\x40" + struct.pack("<Q", len(data)),
        struct.pack("<I", 0x80000000 | len(data)) + data + struct.pack("<I", 0),
    )
    assert decompress(CompressionType.LZ4, frame) == data
    _assert_corrupt(CompressionType.LZ4, frame, max_size=999)


def test_lz4_bad_input() -> None:
    packed = compress(CompressionType.LZ4, b"lz4 data " * 1000)
    _assert_corrupt(CompressionType.LZ4, packed[:-4])
    _assert_corrupt(CompressionType.LZ4, packed[:10])
    _assert_corrupt(CompressionType.LZ4, b"\x00" + packed[1:])
    broken = bytearray(packed)
    broken[20] ^= 0xFF
    _assert_corrupt(CompressionType.LZ4, bytes(broken))


# ---------------------------------------------------------------- zstd


def test_zstd_frames_without_content_size() -> None:
    data = PAYLOADS["text-1.6MiB"]
    streaming = cramjam.zstd.Compressor(level=3)
    streaming.compress(data[:500_000])
    streaming.compress(data[500_000:])
    packed = bytes(streaming.finish())
    fhd = packed[4]
    assert fhd >> 6 == 0 and not fhd & 0x20  # no content size in the header
    assert decompress(CompressionType.ZSTD, packed) == data


def test_zstd_concatenated_frames() -> None:
    parts = [b"first " * 100, b"", b"third " * 1000]
    packed = b"".join(bytes(cramjam.zstd.compress(p)) for p in parts)
    assert decompress(CompressionType.ZSTD, packed) == b"".join(parts)


def test_zstd_bad_input() -> None:
    packed = compress(CompressionType.ZSTD, b"zstd data " * 1000)
    _assert_corrupt(CompressionType.ZSTD, packed[:-3])
    _assert_corrupt(CompressionType.ZSTD, packed + b"\x01")
    broken = bytearray(packed)
    broken[-6] ^= 0xFF
    _assert_corrupt(CompressionType.ZSTD, bytes(broken))


# ---------------------------------------------------------------- decompression bombs


def _zstd_rle_bomb(blocks: int) -> bytes:
    # Frame: no content size, window descriptor 2^20; each RLE block expands 1 byte to ~2 MiB-1.
    header = struct.pack("<I", 0xFD2FB528) + b"\x00" + b"\x50"
    size = (1 << 21) - 1
    out = bytearray(header)
    for i in range(blocks):
        word = (size << 3) | (1 << 1) | (1 if i == blocks - 1 else 0)
        out += word.to_bytes(3, "little") + b"A"
    return bytes(out)


def test_zstd_bomb_is_refused_before_expanding() -> None:
    bomb = _zstd_rle_bomb(2000)  # 8 KB that would expand to ~4 GiB
    err = _assert_corrupt(CompressionType.ZSTD, bomb, max_size=64 * 1024 * 1024)
    assert "exceeds the limit" in str(err)


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.config_name)
def test_max_size(codec: CompressionType) -> None:
    data = b"\x00" * (3 * 1024 * 1024)
    packed = compress(codec, data)
    assert decompress(codec, packed, max_size=len(data) + (4 << 20)) == data
    err = _assert_corrupt(codec, packed, max_size=1024 * 1024)
    assert "exceeds the limit" in str(err)


def test_max_size_is_exact_for_gzip_and_snappy() -> None:
    data = b"y" * 100_000
    for codec in (CompressionType.GZIP, CompressionType.SNAPPY):
        packed = compress(codec, data)
        assert decompress(codec, packed, max_size=len(data)) == data
        _assert_corrupt(codec, packed, max_size=len(data) - 1)


# ---------------------------------------------------------------- kafka-python's encoders


def test_kafka_python_gzip() -> None:
    data = PAYLOADS["text-1.6MiB"]
    assert decompress(CompressionType.GZIP, kafka_codec.gzip_encode(data)) == data
    assert kafka_codec.gzip_decode(compress(CompressionType.GZIP, data)) == data


def test_kafka_python_snappy() -> None:
    for data in (b"tiny", PAYLOADS["text-1.6MiB"], PAYLOADS["random-4k"]):
        assert decompress(CompressionType.SNAPPY, kafka_codec.snappy_encode(data)) == data
        raw = kafka_codec.snappy_encode(data, xerial_compatible=False)
        assert decompress(CompressionType.SNAPPY, raw) == data
        assert kafka_codec.snappy_decode(compress(CompressionType.SNAPPY, data)) == data


def test_kafka_python_lz4() -> None:
    data = PAYLOADS["text-1.6MiB"]
    assert decompress(CompressionType.LZ4, kafka_codec.lz4_encode(data)) == data
    assert kafka_codec.lz4_decode(compress(CompressionType.LZ4, data)) == data


def test_kafka_python_zstd() -> None:
    data = PAYLOADS["text-1.6MiB"]
    assert decompress(CompressionType.ZSTD, kafka_codec.zstd_encode(data)) == data
    assert kafka_codec.zstd_decode(compress(CompressionType.ZSTD, data)) == data
