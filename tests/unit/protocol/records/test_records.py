"""Building and decoding whole record batches, checked against kafka-python's implementation."""

from __future__ import annotations

import struct

import kafka.codec as kafka_codec
import pytest
from hypothesis import given, settings, strategies as st
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import (
    HEADER_SIZE,
    BatchHeader,
    crc_is_valid,
    set_base_offset,
    set_log_append_time,
    set_partition_leader_epoch,
    write_crc,
)
from protocol.records.compression import CompressionType
from protocol.records.record import Record, build_batch, decode_batch, iter_batches

CODECS = list(CompressionType)
T0 = 1_700_000_000_000

KAFKA_PYTHON_HAS = {
    CompressionType.NONE: True,
    CompressionType.GZIP: kafka_codec.has_gzip(),
    CompressionType.SNAPPY: kafka_codec.has_snappy(),
    CompressionType.LZ4: kafka_codec.has_lz4(),
    CompressionType.ZSTD: kafka_codec.has_zstd(),
}


def _needs_kafka_python_codec(codec: CompressionType):
    # python-snappy, lz4 and zstandard are test dependencies (pyproject.toml), so every
    # kafka-python codec must be present: a missing one fails here instead of skipping.
    assert KAFKA_PYTHON_HAS[codec], f"kafka-python has no {codec.config_name} codec: run make setup"
    return pytest.param(codec, id=codec.config_name)


SAMPLE = [
    Record(offset=0, timestamp=T0, key=b"k0", value=b"v0", headers=[]),
    Record(offset=1, timestamp=T0 - 5, key=None, value=b"value without key", headers=[("h", b"x")]),
    Record(
        offset=2,
        timestamp=T0 + 250,
        key=b"k2",
        value=None,
        headers=[("a", None), ("ключ", b"\x00\xff")],
    ),
    Record(offset=3, timestamp=T0 + 10, key=b"", value=b"", headers=[("", b"")]),
    Record(offset=4, timestamp=T0 + 11, key=b"big", value=b"payload " * 20_000, headers=[]),
]


def _assert_corrupt(buf: bytes | bytearray, **kwargs) -> KafkaError:
    with pytest.raises(KafkaError) as info:
        decode_batch(buf, **kwargs)
    assert info.value.code == ErrorCode.CORRUPT_MESSAGE
    return info.value


def _raw_batch(body: bytes, count: int, last_offset_delta: int | None = None) -> bytearray:
    """A batch around hand-written record bytes, with a valid CRC."""
    out = bytearray(HEADER_SIZE) + body
    BatchHeader(
        base_offset=0,
        batch_length=len(out) - 12,
        partition_leader_epoch=0,
        magic=2,
        crc=0,
        attributes=0,
        last_offset_delta=count - 1 if last_offset_delta is None else last_offset_delta,
        base_timestamp=T0,
        max_timestamp=T0,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        records_count=count,
    ).pack_into(out)
    write_crc(out)
    return out


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.config_name)
def test_round_trip(codec: CompressionType) -> None:
    buf = build_batch(SAMPLE, base_offset=0, codec=codec)
    header, records = decode_batch(buf)
    assert records == SAMPLE
    assert header.compression == codec
    assert header.records_count == len(SAMPLE)
    assert header.last_offset_delta == 4
    assert header.base_timestamp == T0  # the first record's, not the smallest
    assert header.max_timestamp == T0 + 250
    assert header.size == len(buf)
    assert crc_is_valid(buf)


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_decode_at_a_position_in_any_buffer(kind: type) -> None:
    first = build_batch([(b"a", b"1", [], T0)], base_offset=10)
    second = build_batch(
        [(b"b", b"2", [], T0), (b"c", b"3", [], T0 + 1)], base_offset=11, codec=CompressionType.LZ4
    )
    buf = kind(bytes(first + second))
    header, records = decode_batch(buf, len(first))
    assert header.base_offset == 11
    assert [(r.offset, r.key, r.value) for r in records] == [(11, b"b", b"2"), (12, b"c", b"3")]
    assert all(type(r.key) is bytes and type(r.value) is bytes for r in records)


def test_tuple_records_get_sequential_offsets_and_default_timestamp() -> None:
    buf = build_batch(
        [(b"k", b"v"), (None, b"w", [("h", b"1")]), (b"x", None, [], T0 + 7)],
        base_offset=100,
        default_timestamp=T0,
    )
    header, records = decode_batch(buf)
    assert [r.offset for r in records] == [100, 101, 102]
    assert [r.timestamp for r in records] == [T0, T0, T0 + 7]
    assert records[1].headers == [("h", b"1")]
    assert header.base_offset == 100 and header.last_offset == 102 and header.next_offset == 103


def test_record_objects_keep_their_offsets() -> None:
    kept = [Record(1005, T0, b"a", b"1"), Record(1009, T0, b"b", b"2")]
    header, records = decode_batch(build_batch(kept, base_offset=1000))
    assert [r.offset for r in records] == [1005, 1009]
    assert header.last_offset_delta == 9
    with pytest.raises(ValueError):
        build_batch([Record(5, T0, None, None), Record(5, T0, None, None)], base_offset=0)
    with pytest.raises(ValueError):
        build_batch([Record(3, T0, None, None)], base_offset=4)


def test_emptied_batch_keeps_its_offset_range() -> None:
    buf = build_batch(
        [], base_offset=50, last_offset_delta=9, producer_id=7, producer_epoch=1, base_sequence=40
    )
    header, records = decode_batch(buf)
    assert records == []
    assert header.records_count == 0
    assert header.last_offset == 59
    assert header.last_sequence == 49
    assert header.base_timestamp == header.max_timestamp == -1


def test_producer_fields_and_flags() -> None:
    buf = build_batch(
        [(b"k", b"v", [], T0)],
        producer_id=42,
        producer_epoch=3,
        base_sequence=17,
        partition_leader_epoch=5,
        is_transactional=True,
        is_control=True,
    )
    header, _ = decode_batch(buf)
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (42, 3, 17)
    assert header.partition_leader_epoch == 5
    assert header.is_transactional and header.is_control and not header.is_log_append_time


def test_log_append_time_records_report_the_batch_time() -> None:
    buf = build_batch(SAMPLE[:3])
    set_log_append_time(buf, T0 + 99_999)
    assert crc_is_valid(buf)
    header, records = decode_batch(buf)
    assert header.is_log_append_time and header.max_timestamp == T0 + 99_999
    assert {r.timestamp for r in records} == {T0 + 99_999}


def test_offset_and_epoch_rewrites_need_no_new_crc() -> None:
    for codec in (CompressionType.NONE, CompressionType.ZSTD):
        buf = build_batch(SAMPLE, codec=codec)
        crc = BatchHeader.parse(buf).crc
        set_base_offset(buf, 1_000_000)
        set_partition_leader_epoch(buf, 12)
        assert BatchHeader.parse(buf).crc == crc and crc_is_valid(buf)
        header, records = decode_batch(buf)
        assert header.partition_leader_epoch == 12
        assert [r.offset for r in records] == [1_000_000 + i for i in range(len(SAMPLE))]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.none() | st.binary(max_size=40),
            st.none() | st.binary(max_size=300),
            st.lists(
                st.tuples(st.text(max_size=10), st.none() | st.binary(max_size=20)), max_size=3
            ),
            st.integers(min_value=0, max_value=2**41),
            st.integers(min_value=1, max_value=2**20),
        ),
        max_size=20,
    ),
    st.sampled_from(CODECS),
    st.integers(min_value=0, max_value=2**62),
)
def test_round_trip_property(items, codec, base_offset) -> None:
    offset = base_offset
    wanted = []
    for key, value, headers, timestamp, gap in items:
        wanted.append(Record(offset, timestamp, key, value, headers))
        offset += gap
    header, records = decode_batch(build_batch(wanted, base_offset=base_offset, codec=codec))
    assert records == wanted
    if wanted:
        assert header.max_timestamp == max(r.timestamp for r in wanted)
        assert header.last_offset == wanted[-1].offset


# ---------------------------------------------------------------- corruption


@pytest.mark.parametrize(
    "codec", [CompressionType.NONE, CompressionType.GZIP], ids=lambda c: c.config_name
)
def test_any_flipped_bit_in_the_crc_range_is_detected(codec: CompressionType) -> None:
    buf = build_batch(SAMPLE[:3], codec=codec)
    for pos in [17, 20, 21, 22, 23, 30, 40, 52, 57, 60, 61, len(buf) // 2, len(buf) - 1]:
        broken = bytearray(buf)
        broken[pos] ^= 0x10
        err = _assert_corrupt(broken)
        assert "CRC" in str(err)


def test_crc_check_can_be_skipped() -> None:
    buf = build_batch(SAMPLE[:1])
    assert buf[-3:] == b"v0\x00"
    buf[-2] = ord("1")  # still decodable, only the CRC is off
    with pytest.raises(KafkaError):
        decode_batch(buf)
    _, records = decode_batch(buf, verify_crc=False)
    assert records[0].value == b"v1"


def test_truncated_and_short_batches() -> None:
    buf = build_batch(SAMPLE)
    _assert_corrupt(buf[:-1])
    _assert_corrupt(buf[:40])
    short = bytearray(buf)
    struct.pack_into(">i", short, 8, 10)  # batch length smaller than a header
    _assert_corrupt(short)


def test_old_magic_is_unsupported() -> None:
    buf = build_batch(SAMPLE[:1])
    buf[16] = 1
    with pytest.raises(KafkaError) as info:
        decode_batch(buf)
    assert info.value.code == ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT


def _one_record(body: bytes) -> bytes:
    """Length-prefix a record body (length < 64 so a single varint byte)."""
    assert len(body) < 64
    return bytes([len(body) << 1]) + body


# attributes 0, timestampDelta 0, offsetDelta 0, then key/value/headers as given
GOOD_RECORD = _one_record(b"\x00\x00\x00" + b"\x02k" + b"\x02v" + b"\x00")


@pytest.mark.parametrize(
    ("body", "count"),
    [
        pytest.param(GOOD_RECORD, 2, id="fewer-records-than-count"),
        pytest.param(GOOD_RECORD + GOOD_RECORD, 1, id="bytes-after-last-record"),
        pytest.param(GOOD_RECORD[:-1], 1, id="record-cut-short"),
        pytest.param(_one_record(b"\x00\x00\x00" + b"\x03" + b"\x02v\x00"), 1, id="key-length--2"),
        pytest.param(
            _one_record(b"\x00\x00\x00" + b"\x10k" + b"\x02v\x00"), 1, id="key-past-record"
        ),
        pytest.param(_one_record(b"\x00\x00\x00\x02k\x02v\x01"), 1, id="negative-header-count"),
        pytest.param(_one_record(b"\x00\x00\x00\x02k\x02v\x02\x01\x00"), 1, id="null-header-key"),
        pytest.param(
            _one_record(b"\x00\x00\x00\x02k\x02v\x02\x02\xff\x00"), 1, id="header-key-not-utf8"
        ),
        pytest.param(
            _one_record(b"\x00\x00\x00\x02k\x02v\x00\x00"), 1, id="record-longer-than-fields"
        ),
        pytest.param(bytes([0x80] * 11), 1, id="endless-varint"),
        pytest.param(b"\x01" + GOOD_RECORD[1:], 1, id="negative-record-length"),
        pytest.param(b"", -1, id="negative-count"),
    ],
)
def test_malformed_records(body: bytes, count: int) -> None:
    assert decode_batch(_raw_batch(GOOD_RECORD, 1))[1][0].key == b"k"  # the helper itself is sound
    _assert_corrupt(_raw_batch(body, count))


@pytest.mark.parametrize("codec", CODECS[1:], ids=lambda c: c.config_name)
def test_corrupt_compressed_payload(codec: CompressionType) -> None:
    buf = build_batch(SAMPLE, codec=codec)
    # Cut the compressed data short but keep the batch consistent: length and CRC both valid.
    broken = buf[:-3]
    struct.pack_into(">i", broken, 8, len(broken) - 12)
    write_crc(broken)
    _assert_corrupt(broken)


def test_unknown_codec_bits() -> None:
    buf = build_batch(SAMPLE[:1])
    buf[22] |= 0x07
    write_crc(buf)
    _assert_corrupt(buf)


def test_decompression_limit() -> None:
    buf = build_batch([(b"k", b"\x00" * 2_000_000, [], T0)], codec=CompressionType.ZSTD)
    assert len(buf) < 10_000
    err = _assert_corrupt(buf, max_decompressed=1_000_000)
    assert "exceeds the limit" in str(err)
    assert decode_batch(buf, max_decompressed=3_000_000)[1][0].value == b"\x00" * 2_000_000


# ---------------------------------------------------------------- iter_batches


def test_iter_batches_stops_at_a_truncated_tail() -> None:
    batches = [build_batch([(b"k", b"v" * i, [], T0)], base_offset=i) for i in range(1, 5)]
    whole = b"".join(batches)
    positions = [sum(len(b) for b in batches[:i]) for i in range(4)]
    assert [(p, h.base_offset) for p, h in iter_batches(whole)] == list(
        zip(positions, [1, 2, 3, 4], strict=True)
    )
    for cut in (1, 11, 12, 13, 60, 61, len(batches[-1]) - 1):
        seen = [h.base_offset for _, h in iter_batches(whole[:-cut])]
        assert seen == [1, 2, 3]
    assert list(iter_batches(b"")) == []
    assert [h.base_offset for _, h in iter_batches(memoryview(whole), positions[2])] == [3, 4]


def test_iter_batches_rejects_an_impossible_length() -> None:
    buf = bytearray(build_batch([(b"k", b"v", [], T0)]) * 2)
    struct.pack_into(">i", buf, 8, 3)
    with pytest.raises(KafkaError) as info:
        list(iter_batches(buf))
    assert info.value.code == ErrorCode.CORRUPT_MESSAGE


# ---------------------------------------------------------------- kafka-python golden tests


def _kafka_python_batch(codec: CompressionType) -> tuple[bytes, list[tuple]]:
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=int(codec),
        is_transactional=False,
        producer_id=9,
        producer_epoch=2,
        base_sequence=100,
        batch_size=10_000_000,
    )
    appended = []
    for i in range(50):
        key = None if i % 7 == 0 else b"key-%d" % i
        value = None if i % 11 == 5 else b"value %d " % i * 40
        headers = [("idx", str(i).encode()), ("none", None)] if i % 3 == 0 else []
        timestamp = T0 + (i * 37) % 500
        assert builder.append(i, timestamp, key, value, headers) is not None
        appended.append((i, timestamp, key, value, headers))
    return bytes(builder.build()), appended


@pytest.mark.parametrize("codec", [_needs_kafka_python_codec(c) for c in CODECS])
def test_decode_kafka_python_batches(codec: CompressionType) -> None:
    buf, appended = _kafka_python_batch(codec)
    header, records = decode_batch(buf)
    assert header.compression == codec  # this data compresses, so kafka-python keeps the codec
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (9, 2, 100)
    assert header.max_timestamp == max(a[1] for a in appended)
    assert [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in records] == appended


@pytest.mark.parametrize("codec", [_needs_kafka_python_codec(c) for c in CODECS])
def test_kafka_python_reads_our_batches(codec: CompressionType) -> None:
    buf = build_batch(SAMPLE, codec=codec, producer_id=5, producer_epoch=0, base_sequence=0)
    set_base_offset(buf, 300)
    batch = DefaultRecordBatch(bytes(buf))
    assert batch.validate_crc()
    assert batch.compression_type == codec
    assert batch.base_offset == 300 and batch.last_offset_delta == 4
    assert batch.max_timestamp == T0 + 250
    got = [(r.offset, r.timestamp, r.key, r.value, list(r.headers)) for r in batch]
    assert got == [(300 + i, r.timestamp, r.key, r.value, r.headers) for i, r in enumerate(SAMPLE)]


def test_kafka_python_reads_log_append_time_and_control_batches() -> None:
    buf = build_batch(
        [(b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x07", [], T0)],
        is_control=True,
        is_transactional=True,
        producer_id=1,
        producer_epoch=0,
    )
    set_log_append_time(buf, T0 + 5)
    batch = DefaultRecordBatch(bytes(buf))
    assert batch.validate_crc()
    assert batch.is_control_batch and batch.is_transactional
    (record,) = list(batch)
    assert record.commit and record.timestamp == T0 + 5
