"""Legacy message sets (magic 0/1): reading, writing and down-conversion, checked against
kafka-python's legacy record builder and reader and against the rules of Kafka 3.9."""

from __future__ import annotations

import random
import struct
import zlib

import pytest
from hypothesis import given, settings, strategies as st
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

from protocol.errors import ErrorCode, KafkaError
from protocol.records import legacy
from protocol.records.batch import write_crc
from protocol.records.compression import CompressionType, compress
from protocol.records.record import Record, build_batch

T0 = 1_700_000_000_000
LEGACY_CODECS = [CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY,
                 CompressionType.LZ4]


def entries(buf: bytes) -> list[legacy.LegacyMessage]:
    """Every message of a legacy message set, wrappers expanded."""
    out = []
    for pos, size in legacy.iter_entries(buf):
        message = legacy.read_message(buf, pos, size)
        assert message.crc_ok
        if message.compression:
            inner = legacy.inner_messages(message)
            assert all(m.crc_ok for m in inner)
            out.extend(inner)
        else:
            out.append(message)
    return out


def kafka_python_records(buf: bytes) -> list:
    """The records kafka-python's consumer would see in ``buf``."""
    records = MemoryRecords(bytes(buf))
    out = []
    while True:
        batch = records.next_batch()
        if batch is None:
            return out
        out.extend(batch)


# -- xxh32 and lz4's header checksum --------------------------------------------------------


@pytest.mark.parametrize(("data", "expected"), [
    (b"", 0x02CC5D05),
    (b"a", 0x550D7456),
    (b"abc", 0x32D153FF),
    (b"Nobody inspects the spammish repetition", 0xE2293B2F),
])
def test_xxh32_known_values(data: bytes, expected: int) -> None:
    assert legacy.xxh32(data) == expected


def test_lz4_header_checksum_matches_a_standard_frame() -> None:
    frame = compress(CompressionType.LZ4, b"x" * 1000)
    assert legacy.lz4_fix_header_checksum(frame) == frame
    broken = legacy.lz4_break_header_checksum(frame)
    assert broken != frame and broken[7:] == frame[7:]
    assert legacy.lz4_fix_header_checksum(broken) == frame


# -- writing, byte for byte as kafka-python's builder ----------------------------------------


@pytest.mark.parametrize("magic", [0, 1])
def test_uncompressed_message_set_is_byte_exact(magic: int) -> None:
    rows = [(0, T0, b"k0", b"v0"), (1, T0 + 5, None, b"v1"), (2, T0 + 2, b"k2", None),
            (3, T0 + 9, b"", b"x" * 300)]
    builder = LegacyRecordBatchBuilder(magic=magic, compression_type=0, batch_size=1 << 20)
    for offset, ts, key, value in rows:
        assert builder.append(offset, timestamp=ts, key=key, value=value) is not None
    ours = legacy.build_message_set(
        [(o, ts if magic else legacy.NO_TIMESTAMP, k, v) for o, ts, k, v in rows], magic=magic)
    assert bytes(ours) == bytes(builder.build())


@pytest.mark.parametrize("magic", [0, 1])
@pytest.mark.parametrize("codec", [CompressionType.GZIP, CompressionType.SNAPPY,
                                   CompressionType.LZ4])
def test_kafka_python_reads_our_wrappers(magic: int, codec: int) -> None:
    rows = [(40 + i, T0 + i * 3, f"k{i}".encode(), bytes([i]) * i) for i in range(20)]
    buf = legacy.build_message_set(
        [(o, ts if magic else -1, k, v) for o, ts, k, v in rows], magic=magic, codec=codec)
    if codec == CompressionType.LZ4 and magic == 0:
        # kafka-python reads magic-0 lz4 only with the xxhash package; check the checksum
        # Kafka's old readers skip is the one old writers computed, and that the rest reads
        message = legacy.read_message(buf)
        end = 6
        assert message.value[end] == (legacy.xxh32(message.value[0:end]) >> 8) & 0xFF
        assert [(m.offset, m.key, m.value) for m in entries(bytes(buf))] == \
            [(o, k, v) for o, _, k, v in rows]
        return
    got = kafka_python_records(bytes(buf))
    assert [(r.offset, r.key, r.value) for r in got] == [(o, k, v) for o, _, k, v in rows]
    if magic == 1:
        assert [r.timestamp for r in got] == [ts for _, ts, _, _ in rows]
        assert all(r.validate_crc() for r in got)


# (kafka-python writes magic-0 lz4 only with the xxhash package, not a test dependency; the
# magic-0 lz4 frames of old writers are checked against our own writer above)
@pytest.mark.parametrize(("magic", "codec"), [
    (magic, codec) for magic in (0, 1) for codec in LEGACY_CODECS
    if (magic, codec) != (0, CompressionType.LZ4)])
def test_we_read_kafka_pythons_message_sets(magic: int, codec: int) -> None:
    builder = LegacyRecordBatchBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
    rows = [(i, T0 + i, None if i % 3 == 0 else f"k{i}".encode(), b"v" * i) for i in range(12)]
    for offset, ts, key, value in rows:
        builder.append(offset, timestamp=ts, key=key, value=value)
    buf = bytes(builder.build())
    got = entries(buf)
    # a producer's v1 wrapper has offset 0: inner offsets count from 0 (librdkafka's way)
    assert [(m.offset, m.key, m.value) for m in got] == [(o, k, v) for o, _, k, v in rows]
    expected_ts = [ts for _, ts, _, _ in rows] if magic else [-1] * len(rows)
    assert [m.timestamp for m in got] == expected_ts


# -- reading: Kafka's checks ------------------------------------------------------------------


def test_crc_is_checked_with_crc32() -> None:
    buf = bytearray(legacy.build_message_set([(0, T0, b"k", b"value")], magic=1))
    stored = struct.unpack_from(">I", buf, legacy.CRC_OFFSET)[0]
    assert stored == zlib.crc32(buf[legacy.MAGIC_OFFSET:])
    assert legacy.read_message(buf).crc_ok
    buf[-1] ^= 0xFF
    assert not legacy.read_message(buf).crc_ok


def test_entries_with_bad_size_or_magic_are_corrupt() -> None:
    good = legacy.build_message_set([(0, -1, b"k", b"v")], magic=0)
    small = bytearray(good)
    struct.pack_into(">i", small, 8, 13)
    with pytest.raises(KafkaError) as e:
        list(legacy.iter_entries(small))
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE
    bad_magic = bytearray(good)
    bad_magic[legacy.MAGIC_OFFSET] = 3
    with pytest.raises(KafkaError) as e:
        list(legacy.iter_entries(bad_magic))
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE


def test_a_truncated_last_entry_ends_the_set_quietly() -> None:
    buf = legacy.build_message_set([(0, T0, b"a", b"1"), (1, T0, b"b", b"2")], magic=1)
    assert len(list(legacy.iter_entries(buf))) == 2
    assert len(list(legacy.iter_entries(buf[:-3]))) == 1
    assert list(legacy.iter_entries(buf[:10])) == []


def test_a_key_running_past_the_message_is_corrupt() -> None:
    buf = bytearray(legacy.build_message_set([(0, T0, b"key", b"value")], magic=1))
    struct.pack_into(">i", buf, 12 + 4 + 2 + 8, 1000)
    with pytest.raises(KafkaError) as e:
        legacy.read_message(buf)
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE


def _wrapper(magic: int, inner: bytes, *, offset: int, codec: int = CompressionType.GZIP,
             attributes: int = 0, timestamp: int = T0) -> legacy.LegacyMessage:
    out = bytearray()
    legacy.write_message(out, offset, magic, codec | attributes, timestamp, None,
                         compress(codec, inner) if codec else inner)
    return legacy.read_message(out)


def test_v1_wrapper_offsets_make_inner_offsets_absolute() -> None:
    inner = legacy.build_message_set([(i, T0 + i, None, b"x") for i in range(3)], magic=1)
    assert [m.offset for m in legacy.inner_messages(_wrapper(1, inner, offset=12))] == [10, 11, 12]
    # librdkafka's producers send 0: inner offsets are taken as they are
    assert [m.offset for m in legacy.inner_messages(_wrapper(1, inner, offset=0))] == [0, 1, 2]
    with pytest.raises(KafkaError) as e:
        legacy.inner_messages(_wrapper(1, inner, offset=1))
    assert e.value.code == ErrorCode.INVALID_RECORD


def test_v0_inner_offsets_are_absolute() -> None:
    inner = legacy.build_message_set([(7 + i, -1, None, b"x") for i in range(3)], magic=0)
    assert [m.offset for m in legacy.inner_messages(_wrapper(0, inner, offset=99))] == [7, 8, 9]


def test_log_append_time_wrapper_gives_its_timestamp_to_inner_messages() -> None:
    inner = legacy.build_message_set([(i, T0 + i, None, b"x") for i in range(3)], magic=1)
    wrapper = _wrapper(1, inner, offset=2, attributes=legacy.TIMESTAMP_TYPE_MASK,
                       timestamp=T0 + 500)
    assert [m.timestamp for m in legacy.inner_messages(wrapper)] == [T0 + 500] * 3


@pytest.mark.parametrize(("case", "code"), [
    ("zstd", ErrorCode.INVALID_RECORD),
    ("null value", ErrorCode.INVALID_RECORD),
    ("magic mismatch", ErrorCode.INVALID_RECORD),
    ("empty", ErrorCode.INVALID_RECORD),
    ("not gzip", ErrorCode.CORRUPT_MESSAGE),
])
def test_wrappers_kafka_refuses(case: str, code: ErrorCode) -> None:
    v0_inner = legacy.build_message_set([(0, -1, None, b"x")], magic=0)
    if case == "zstd":
        wrapper = _wrapper(1, v0_inner, offset=0, codec=CompressionType.ZSTD)
    elif case == "null value":
        out = bytearray()
        legacy.write_message(out, 0, 1, CompressionType.GZIP, T0, None, None)
        wrapper = legacy.read_message(out)
    elif case == "magic mismatch":
        wrapper = _wrapper(1, bytes(v0_inner), offset=0)
    elif case == "empty":
        wrapper = _wrapper(1, b"", offset=0)
    else:
        out = bytearray()
        legacy.write_message(out, 0, 1, CompressionType.GZIP, T0, None, b"plain bytes")
        wrapper = legacy.read_message(out)
    with pytest.raises(KafkaError) as e:
        legacy.inner_messages(wrapper)
    assert e.value.code == code


def test_inner_crc_is_reported_per_message() -> None:
    inner = bytearray(legacy.build_message_set([(0, T0, None, b"a"), (1, T0, None, b"b")],
                                               magic=1))
    inner[-1] ^= 0x01
    got = legacy.inner_messages(_wrapper(1, bytes(inner), offset=1))
    assert [m.crc_ok for m in got] == [True, False]


# -- down-conversion ---------------------------------------------------------------------------

record_values = st.one_of(st.none(), st.binary(max_size=64))
rows_strategy = st.lists(st.tuples(record_values, record_values,
                                   st.integers(min_value=0, max_value=10_000)),
                         min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(rows=rows_strategy, codec=st.sampled_from(LEGACY_CODECS), magic=st.sampled_from([0, 1]),
       base=st.integers(min_value=0, max_value=1 << 40), skip=st.integers(0, 40))
def test_down_conversion_round_trips(rows, codec, magic, base, skip) -> None:
    batch = build_batch([(k, v, [("h", b"dropped")], T0 + d) for k, v, d in rows],
                        base_offset=base, codec=codec)
    first_offset = base + skip
    got = entries(bytes(legacy.down_convert(batch, magic, first_offset)))
    expected = [(base + i, (T0 + d) if magic else -1, k, v) for i, (k, v, d) in enumerate(rows)]
    if codec == CompressionType.NONE:
        expected = [e for e in expected if e[0] >= first_offset]  # unbatched: cut at the offset
    assert [(m.offset, m.timestamp, m.key, m.value) for m in got] == expected
    assert all(m.magic == magic and not m.attributes for m in got)


@pytest.mark.parametrize("codec", LEGACY_CODECS)
def test_log_append_time_batches_keep_their_type_in_v1(codec: int) -> None:
    batch = build_batch([(b"k", b"v", (), T0), (None, b"w", (), T0 + 1)], base_offset=5,
                        codec=codec, timestamp_type=1)
    struct.pack_into(">q", batch, 35, T0 + 900)  # the broker's log append time
    write_crc(batch)
    buf = bytes(legacy.down_convert(batch, 1, 0))
    outer = legacy.read_message(buf)
    assert outer.is_log_append_time and outer.timestamp == T0 + 900
    assert [(m.timestamp, m.is_log_append_time) for m in entries(buf)] == [(T0 + 900, True)] * 2
    got = kafka_python_records(buf)
    assert [(r.offset, r.timestamp, r.timestamp_type) for r in got] == \
        [(5, T0 + 900, 1), (6, T0 + 900, 1)]


def test_wrapper_offset_and_timestamp_are_kafkas() -> None:
    batch = build_batch([(None, b"a", (), T0 + 7), (None, b"b", (), T0 + 3)], base_offset=20,
                        codec=CompressionType.GZIP)
    buf = bytes(legacy.down_convert(batch, 1, 21))
    outer = legacy.read_message(buf)
    assert (outer.offset, outer.timestamp, outer.compression) == (21, T0 + 7, CompressionType.GZIP)
    # compressed: the records before the fetch offset stay (the client skips them)
    assert [m.offset for m in entries(buf)] == [20, 21]
    v0 = legacy.read_message(bytes(legacy.down_convert(batch, 0, 20)))
    assert (v0.offset, v0.magic, v0.timestamp) == (21, 0, -1)


def test_control_batches_are_dropped_and_zstd_refused() -> None:
    control = build_batch([(b"\x00\x00\x00\x00", b"\x00\x00\x00\x00\x00\x00", (), T0)],
                          is_control=True, is_transactional=True, producer_id=1,
                          producer_epoch=0, base_offset=3)
    data = build_batch([(None, b"x", (), T0)], base_offset=4)
    assert [m.offset for m in entries(bytes(legacy.down_convert(control + data, 1, 0)))] == [4]
    zstd = build_batch([(None, b"x", (), T0)], base_offset=5, codec=CompressionType.ZSTD)
    with pytest.raises(KafkaError) as e:
        legacy.down_convert(zstd, 1, 0)
    assert e.value.code == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE


# -- the bytes Kafka sends an old fetcher ------------------------------------------------------


def test_lazy_conversion_of_nothing_is_nothing() -> None:
    assert legacy.lazy_down_convert(b"", 1, 0) == b""


def test_lazy_conversion_cuts_at_the_size_read_when_messages_grow() -> None:
    batches = b"".join(bytes(build_batch([(None, b"v" * 10, (), T0)] * 5, base_offset=5 * i))
                       for i in range(4))
    full = legacy.down_convert(batches, 1, 0)
    assert len(full) > len(batches)  # 34 bytes of overhead per message against a few in v2
    sent = legacy.lazy_down_convert(batches, 1, 0)
    assert sent == bytes(full[: len(batches)])
    # what a client reads: the complete messages, the cut one left for the next fetch
    got = kafka_python_records(sent)
    assert [r.offset for r in got] == list(range(len(got))) and 0 < len(got) < 20


def test_lazy_conversion_sends_a_whole_first_batch_even_past_the_size_read() -> None:
    batch = bytes(build_batch([(None, b"v", (), T0)] * 50))
    sent = legacy.lazy_down_convert(batch, 0, 0)
    assert sent == bytes(legacy.down_convert(batch, 0, 0))
    assert len(sent) > len(batch)


def test_lazy_conversion_pads_with_an_overflow_entry() -> None:
    # a v1 wrapper is smaller than a v2 batch header and these values compress to little
    batch = bytes(build_batch([(None, b"a" * 2000, (), T0)] * 40, codec=CompressionType.GZIP))
    converted = bytes(legacy.down_convert(batch, 0, 0))
    assert len(converted) + legacy.LOG_OVERHEAD < len(batch)
    sent = legacy.lazy_down_convert(batch, 0, 0)
    assert len(sent) == len(batch) and sent.startswith(converted)
    remaining = len(batch) - len(converted)
    tail = sent[len(converted):]
    assert struct.unpack_from(">qi", tail) == (-1, max(remaining + 1, 61))
    assert tail[12:] == bytes(remaining - 12)
    assert [r.offset for r in kafka_python_records(sent)] == list(range(40))


def test_lazy_conversion_of_control_batches_only_is_an_overflow_entry() -> None:
    control = bytes(build_batch([(b"\x00\x00\x00\x00", b"\x00" * 6, (), T0)], is_control=True,
                                is_transactional=True, producer_id=1, producer_epoch=0))
    sent = legacy.lazy_down_convert(control, 1, 0)
    assert sent == struct.pack(">qi", -1, 61)


def test_lazy_conversion_refuses_zstd_first_and_stops_at_it_later() -> None:
    zstd = bytes(build_batch([(None, b"z", (), T0)], base_offset=1, codec=CompressionType.ZSTD))
    with pytest.raises(KafkaError) as e:
        legacy.lazy_down_convert(zstd, 1, 0)
    assert e.value.code == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE
    plain = bytes(build_batch([(None, b"p", (), T0)], base_offset=0))
    sent = legacy.lazy_down_convert(plain + zstd, 1, 0)
    first = bytes(legacy.down_convert(plain, 1, 0))
    assert sent.startswith(first) and len(sent) == max(len(plain + zstd), len(first))
    assert [r.offset for r in kafka_python_records(sent)] == [0]


def test_lazy_conversion_of_many_batches_converts_them_all() -> None:
    rng = random.Random(7)
    batches = b"".join(bytes(build_batch([(None, rng.randbytes(3000), (), T0) for _ in range(10)],
                                         base_offset=10 * i, codec=CompressionType.SNAPPY))
                       for i in range(30))
    assert len(batches) > 2 * legacy.MAX_READ_SIZE  # several chunks
    full = bytes(legacy.down_convert(batches, 1, 0))
    sent = legacy.lazy_down_convert(batches, 1, 0)
    assert len(sent) == len(batches)
    if len(full) >= len(sent):
        assert sent == full[: len(sent)]
    else:
        assert sent.startswith(full)
    got = [r.offset for r in kafka_python_records(sent)]
    assert got == list(range(len(got))) and len(got) >= 290


def test_records_keep_their_payload_through_kafka_python() -> None:
    batch = build_batch([Record(9, T0, b"key", b"value")], base_offset=9)
    got = kafka_python_records(bytes(legacy.down_convert(batch, 1, 0)))
    assert [(r.offset, r.key, r.value) for r in got] == [(9, b"key", b"value")]
