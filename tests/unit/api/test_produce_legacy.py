"""Produce v0-v2's record sets turned into one v2 batch, with the checks Kafka 3.9 makes on
them (pybroker.api.produce_legacy)."""

from __future__ import annotations

import struct

import pytest
from kafka.record.legacy_records import LegacyRecordBatchBuilder

from protocol.errors import ErrorCode, KafkaError
from protocol.records import legacy
from protocol.records.compression import CompressionType, compress
from protocol.records.record import build_batch, decode_batch
from pybroker.api.produce_legacy import to_v2_batch
from pybroker.log.config import LogConfig
from pybroker.log.validator import LogValidator

NOW = 1_700_000_000_000
CODECS = [CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY,
          CompressionType.LZ4]


def client_set(magic: int, codec: int, rows: list[tuple[bytes | None, bytes | None]],
               timestamp: int = NOW) -> bytes:
    """A message set as kafka-python's producer builds it (offsets from 0)."""
    builder = LegacyRecordBatchBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
    for i, (key, value) in enumerate(rows):
        builder.append(i, timestamp=timestamp + i, key=key, value=value)
    return bytes(builder.build())


def converted(records: bytes, config: LogConfig | None = None):
    batch = to_v2_batch(records, config or LogConfig(), NOW)
    assert batch is not None
    return decode_batch(batch)


def refusal(records: bytes, config: LogConfig | None = None) -> ErrorCode:
    with pytest.raises(KafkaError) as e:
        to_v2_batch(records, config or LogConfig(), NOW)
    return e.value.code


ROWS = [(b"k0", b"v0"), (None, b"v1"), (b"k2", None), (b"k3", b"x" * 500)]


@pytest.mark.parametrize("codec", [c for c in CODECS if c != CompressionType.LZ4])
@pytest.mark.parametrize("magic", [0, 1])
def test_a_client_message_set_becomes_one_v2_batch(magic: int, codec: int) -> None:
    header, records = converted(client_set(magic, codec, ROWS))
    assert header.compression == codec  # compression.type=producer: the producer's codec
    assert (header.base_offset, header.records_count, header.producer_id) == (0, 4, -1)
    assert not header.is_log_append_time
    assert [(r.offset, r.key, r.value, r.headers) for r in records] == \
        [(i, k, v, []) for i, (k, v) in enumerate(ROWS)]
    expected = [NOW + i for i in range(4)] if magic else [-1] * 4
    assert [r.timestamp for r in records] == expected
    assert header.max_timestamp == max(expected)


def test_magic_0_lz4_with_the_old_header_checksum() -> None:
    rows = legacy.build_message_set([(i, -1, k, v) for i, (k, v) in enumerate(ROWS)], magic=0,
                                    codec=CompressionType.LZ4)
    header, records = converted(bytes(rows))
    assert header.compression == CompressionType.LZ4
    assert [(r.key, r.value) for r in records] == ROWS


def test_the_topic_codec_applies_to_converted_batches() -> None:
    header, records = converted(client_set(1, CompressionType.NONE, ROWS),
                                LogConfig(compression_type="gzip"))
    assert header.compression == CompressionType.GZIP and len(records) == 4
    header, _ = converted(client_set(1, CompressionType.SNAPPY, ROWS),
                          LogConfig(compression_type="uncompressed"))
    assert header.compression == CompressionType.NONE


def test_nothing_to_append() -> None:
    assert to_v2_batch(None, LogConfig(), NOW) is None
    assert to_v2_batch(b"", LogConfig(), NOW) is None
    partial = client_set(1, 0, ROWS[:1])[:-2]
    assert to_v2_batch(partial, LogConfig(), NOW) is None


def test_a_truncated_last_message_is_dropped() -> None:
    whole = client_set(0, 0, ROWS)
    _, records = converted(whole[:-3])
    assert len(records) == 3


def test_crc_size_and_shape_refusals() -> None:
    bad = bytearray(client_set(1, 0, ROWS))
    bad[-1] ^= 0xFF
    assert refusal(bytes(bad)) == ErrorCode.CORRUPT_MESSAGE
    big = client_set(1, 0, [(None, b"x" * 2000)])
    assert refusal(big, LogConfig(max_message_bytes=1000)) == ErrorCode.MESSAGE_TOO_LARGE
    two_wrappers = client_set(1, CompressionType.GZIP, ROWS) * 2
    assert refusal(two_wrappers) == ErrorCode.INVALID_RECORD
    mixed = client_set(0, 0, ROWS[:1]) + client_set(1, 0, ROWS[:1])
    assert refusal(mixed) == ErrorCode.INVALID_RECORD
    small = bytearray(client_set(1, 0, ROWS))
    struct.pack_into(">i", small, 8, 5)
    assert refusal(bytes(small)) == ErrorCode.CORRUPT_MESSAGE


def test_inner_messages_are_checked() -> None:
    inner = bytearray(legacy.build_message_set([(0, NOW, b"a", b"1"), (1, NOW, b"b", b"2")],
                                               magic=1))
    inner[-1] ^= 0x01
    wrapper = bytearray()
    legacy.write_message(wrapper, 1, 1, CompressionType.GZIP, NOW, None,
                         compress(CompressionType.GZIP, inner))
    assert refusal(bytes(wrapper)) == ErrorCode.CORRUPT_MESSAGE
    nested = client_set(1, CompressionType.GZIP, ROWS)
    wrapper = bytearray()
    legacy.write_message(wrapper, 0, 1, CompressionType.GZIP, NOW, None,
                         compress(CompressionType.GZIP, nested))
    assert refusal(bytes(wrapper)) == ErrorCode.INVALID_RECORD


def test_keys_are_required_on_compacted_topics() -> None:
    compacted = LogConfig(cleanup_policy="compact")
    assert refusal(client_set(1, 0, ROWS), compacted) == ErrorCode.INVALID_RECORD
    assert refusal(client_set(1, CompressionType.GZIP, ROWS), compacted) == \
        ErrorCode.INVALID_RECORD
    _, records = converted(client_set(1, 0, [(b"k", b"v")]), compacted)
    assert len(records) == 1


def test_timestamps_within_the_topic_bounds() -> None:
    strict = LogConfig(message_timestamp_before_max_ms=3_600_000)
    assert refusal(client_set(1, 0, ROWS, timestamp=NOW - 7_200_000), strict) == \
        ErrorCode.INVALID_TIMESTAMP
    # magic 0 has no timestamps to bound
    _, records = converted(client_set(0, 0, ROWS, timestamp=NOW - 7_200_000), strict)
    assert [r.timestamp for r in records] == [-1] * 4
    # a timestamp error outweighs a key error in the same batch
    both = LogConfig(message_timestamp_before_max_ms=3_600_000, cleanup_policy="compact")
    assert refusal(client_set(1, CompressionType.GZIP, ROWS, timestamp=NOW - 7_200_000),
                   both) == ErrorCode.INVALID_TIMESTAMP


def _log_append_time_set() -> bytes:
    out = bytearray()
    legacy.write_message(out, 0, 1, legacy.TIMESTAMP_TYPE_MASK, NOW, b"k", b"v")
    return bytes(out)


def test_producers_may_not_claim_log_append_time() -> None:
    lat_topic = LogConfig(message_timestamp_type="LogAppendTime")
    assert refusal(_log_append_time_set(), lat_topic) == ErrorCode.INVALID_TIMESTAMP
    # a CreateTime topic checks the timestamp and keeps it, as Kafka does
    header, records = converted(_log_append_time_set())
    assert not header.is_log_append_time and records[0].timestamp == NOW
    _, records = converted(client_set(1, 0, ROWS), lat_topic)
    assert len(records) == 4  # the log stamps the append time


def test_v2_batches_in_old_requests_pass_through() -> None:
    batch = bytes(build_batch([(b"k", b"v")], codec=CompressionType.ZSTD, producer_id=7,
                              producer_epoch=0, base_sequence=0))
    assert to_v2_batch(batch, LogConfig(), NOW) == batch
    assert to_v2_batch(batch + b"\x00\x00\x00", LogConfig(), NOW) == batch
    assert refusal(batch + batch) == ErrorCode.INVALID_RECORD
    assert refusal(client_set(1, 0, ROWS[:1]) + batch) == ErrorCode.INVALID_RECORD


def test_the_log_validator_does_not_bound_missing_timestamps() -> None:
    """A converted magic-0 set has no timestamps (-1): the bounds of
    message.timestamp.before/after.max.ms do not apply to them, in Kafka's validator as here."""
    strict = LogConfig(message_timestamp_before_max_ms=3_600_000)
    batch = to_v2_batch(client_set(0, 0, ROWS), strict, NOW)
    assert batch is not None
    LogValidator(strict, "t-0").validate(batch, NOW)
    old = bytearray(build_batch([(b"k", b"v", (), NOW - 7_200_000), (b"k", b"v", (), -1)]))
    with pytest.raises(KafkaError) as e:
        LogValidator(strict, "t-0").validate(old, NOW)
    assert e.value.code == ErrorCode.INVALID_TIMESTAMP
    assert [i for i, _ in e.value.record_errors] == [0]  # type: ignore[attr-defined]
