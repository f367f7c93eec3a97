"""Partition log: append, read, segment rolls, indexes, recovery and timestamp lookup."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import BatchHeader, crc_is_valid, write_crc
from protocol.records.compression import CompressionType
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.log import FileSlice, Log, LogConfig
from pybroker.log.index import PENDING_BYTES
from pybroker.log.validator import InvalidRecords
from tests.unit.log.helpers import OPENED as _opened

T0 = 1_700_000_000_000


def make_batch(n: int = 1, *, ts: int | list[int] = T0, value: bytes = b"v", **kw: int) -> bytearray:
    stamps = ts if isinstance(ts, list) else [ts + i for i in range(n)]
    return build_batch([(None, value + b"%d" % i, (), t) for i, t in enumerate(stamps)], **kw)


def open_log(tmp_path: Path, *, now_ms: int = T0, clean: bool = False, recovery_point: int = 0,
             log_start_offset: int = 0, **config: object) -> Log:
    log = Log.open(
        tmp_path / "my-topic-0",
        LogConfig(**config),  # type: ignore[arg-type]
        now_ms=now_ms,
        clean_shutdown=clean,
        recovery_point=recovery_point,
        log_start_offset=log_start_offset,
    )
    _opened.append(log)
    return log


def read_bytes(log: Log, offset: int, max_bytes: int = 1 << 20, **kw: object) -> bytes:
    records = log.read(offset, max_bytes, **kw).records  # type: ignore[arg-type]
    return records.read_bytes() if isinstance(records, FileSlice) else bytes(records)


def read_batches(log: Log, offset: int, max_bytes: int = 1 << 20, **kw: object) -> list[BatchHeader]:
    data = read_bytes(log, offset, max_bytes, **kw)
    headers = [h for _, h in iter_batches(data)]
    assert sum(h.size for h in headers) == len(data), "read must return whole batches only"
    return headers


def read_all(log: Log) -> list[tuple[int, bytes | None]]:
    """Every record of the log, following segment boundaries."""
    out: list[tuple[int, bytes | None]] = []
    offset = log.log_start_offset
    while offset < log.log_end_offset:
        data = read_bytes(log, offset)
        assert data, f"no data at {offset}"
        for pos, h in iter_batches(data):
            assert crc_is_valid(data, pos)
            _, records = decode_batch(data, pos)
            out += [(r.offset, r.value) for r in records if r.offset >= offset]
            offset = h.next_offset
    return out


def log_file(log: Log, base: int = 0, suffix: str = ".log") -> Path:
    return log.dir / f"{base:020d}{suffix}"


# -- append and read ------------------------------------------------------------------------


def test_appends_assign_dense_offsets_and_read_back(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    infos = [log.append_as_leader(make_batch(n), leader_epoch=7, now_ms=T0) for n in (1, 3, 2)]
    assert [(i.first_offset, i.last_offset, i.record_count) for i in infos] == [(0, 0, 1), (1, 3, 3), (4, 5, 2)]
    assert all(not i.duplicate and i.log_append_time == -1 for i in infos)
    assert log.log_end_offset == 6
    headers = read_batches(log, 0)
    assert [h.base_offset for h in headers] == [0, 1, 4]
    assert {h.partition_leader_epoch for h in headers} == {7}
    assert read_all(log) == [(0, b"v0"), (1, b"v0"), (2, b"v1"), (3, b"v2"), (4, b"v0"), (5, b"v1")]
    assert (log.topic, log.partition) == ("my-topic", 0)


def test_read_starts_at_the_batch_containing_the_offset(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    for n in (2, 3, 2):
        log.append_as_leader(make_batch(n), leader_epoch=0, now_ms=T0)
    assert [h.base_offset for h in read_batches(log, 3)] == [2, 5]
    info = log.read(3, 1000)
    assert info.first_offset == 3 and info.size == len(info.records)


def test_read_at_log_end_is_empty_and_outside_is_out_of_range(tmp_path: Path) -> None:
    log = open_log(tmp_path, log_start_offset=0)
    log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)
    assert log.read(2, 1000).records == b""
    for bad in (-1, 3):
        with pytest.raises(KafkaError) as e:
            log.read(bad, 1000)
        assert e.value.code == ErrorCode.OFFSET_OUT_OF_RANGE


def test_read_returns_whole_batches_within_max_bytes(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    size = len(make_batch(3))
    for _ in range(4):
        log.append_as_leader(make_batch(3), leader_epoch=0, now_ms=T0)
    assert len(read_batches(log, 0, max_bytes=size * 2 + size // 2)) == 2
    assert len(read_batches(log, 0, max_bytes=size * 4)) == 4
    # One batch even when it alone is larger than max_bytes, unless told otherwise.
    assert len(read_batches(log, 0, max_bytes=10)) == 1
    assert log.read(0, 10, min_one_batch=False).records == b""


def test_read_never_passes_max_offset(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    for _ in range(4):
        log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)  # bases 0, 2, 4, 6
    assert [h.base_offset for h in read_batches(log, 0, max_offset=4)] == [0, 2]
    assert [h.base_offset for h in read_batches(log, 2, max_offset=5)] == [2, 4]
    assert log.read(4, 1000, max_offset=4).records == b""
    assert log.read(6, 1000, max_offset=5).records == b""


def test_file_slice_exposes_the_segment_file(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    raw = bytes(make_batch(2))
    log.append_as_leader(make_batch(2), leader_epoch=3, now_ms=T0)
    records = log.read(0, 1000).records
    assert isinstance(records, FileSlice)
    assert len(records) == len(raw)
    assert os.pread(records.fileno(), len(records), records.position) == records.read_bytes()
    assert records.read_bytes() == log_file(log).read_bytes()


def test_empty_directory_starts_at_log_start_offset(tmp_path: Path) -> None:
    log = open_log(tmp_path, log_start_offset=42)
    assert (log.log_start_offset, log.log_end_offset) == (42, 42)
    assert log_file(log, 42).exists()
    assert log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0).first_offset == 42
    with pytest.raises(KafkaError) as e:
        log.read(41, 100)
    assert e.value.code == ErrorCode.OFFSET_OUT_OF_RANGE


def test_open_rejects_a_directory_that_is_not_a_partition(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        Log.open(tmp_path / "no_partition", LogConfig(), now_ms=T0)


# -- validation -----------------------------------------------------------------------------


def test_crc_mismatch_is_rejected_and_nothing_is_written(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    batch = make_batch(2)
    batch[-1] ^= 0xFF
    with pytest.raises(KafkaError) as e:
        log.append_as_leader(batch, leader_epoch=0, now_ms=T0)
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE
    assert log.log_end_offset == 0 and log.active_segment.size == 0


def test_batch_length_must_match_the_buffer(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    with pytest.raises(KafkaError) as e:
        log.append_as_leader(make_batch() + b"\0\0", leader_epoch=0, now_ms=T0)
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE


def test_batch_above_max_message_bytes_is_too_large(tmp_path: Path) -> None:
    log = open_log(tmp_path, max_message_bytes=100)
    with pytest.raises(KafkaError) as e:
        log.append_as_leader(make_batch(value=b"x" * 200), leader_epoch=0, now_ms=T0)
    assert e.value.code == ErrorCode.MESSAGE_TOO_LARGE


def test_record_count_must_match_offset_delta(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    batch = make_batch(3)
    batch[57:61] = (2).to_bytes(4, "big")  # recordsCount 2 with lastOffsetDelta 2
    write_crc(batch)
    with pytest.raises(KafkaError) as e:
        log.append_as_leader(batch, leader_epoch=0, now_ms=T0)
    assert e.value.code == ErrorCode.INVALID_RECORD


def test_timestamp_bounds_from_config(tmp_path: Path) -> None:
    log = open_log(tmp_path, message_timestamp_before_max_ms=1000, message_timestamp_after_max_ms=1000)
    with pytest.raises(KafkaError) as e:
        log.append_as_leader(make_batch(ts=T0 - 5000), leader_epoch=0, now_ms=T0)
    assert e.value.code == ErrorCode.INVALID_TIMESTAMP
    with pytest.raises(KafkaError):
        log.append_as_leader(make_batch(ts=T0 + 5000), leader_epoch=0, now_ms=T0)
    assert log.append_as_leader(make_batch(ts=T0 - 500), leader_epoch=0, now_ms=T0).first_offset == 0


def test_a_compacted_topic_refuses_keyless_records_naming_each(tmp_path: Path) -> None:
    log = open_log(tmp_path, cleanup_policy="compact,delete")
    mixed = build_batch([(b"k", b"a", (), T0), (None, b"b", (), T0), (None, b"c", (), T0)],
                        codec=CompressionType.LZ4)
    with pytest.raises(InvalidRecords) as e:
        log.append_as_leader(mixed, leader_epoch=0, now_ms=T0)
    assert e.value.code == ErrorCode.INVALID_RECORD
    text = "Compacted topic cannot accept message without key in topic partition my-topic-0"
    assert e.value.record_errors == [(1, text), (2, text)]
    assert log.log_end_offset == 0
    keyed = build_batch([(b"k", b"a", (), T0), (b"j", None, (), T0)])
    assert log.append_as_leader(keyed, leader_epoch=0, now_ms=T0).first_offset == 0
    # once the topic no longer compacts, keyless records are taken
    log.update_config(LogConfig(cleanup_policy="delete"))
    assert log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0).first_offset == 2


def test_a_topic_codec_recompresses_batches_produced_in_another(tmp_path: Path) -> None:
    log = open_log(tmp_path, compression_type="zstd")
    rows = [(b"k%d" % i, b"v" * 50, (), T0 + i) for i in range(5)]
    produced = build_batch(rows, codec=CompressionType.GZIP, producer_id=7, producer_epoch=2,
                           base_sequence=10, is_transactional=True)
    info = log.append_as_leader(produced, leader_epoch=3, now_ms=T0 + 100)
    assert (info.first_offset, info.last_offset, info.max_timestamp) == (0, 4, T0 + 4)
    data = read_bytes(log, 0)
    header, records = decode_batch(data)  # checks the new CRC
    assert header.compression == CompressionType.ZSTD
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (7, 2, 10)
    assert header.is_transactional and header.partition_leader_epoch == 3
    assert [(r.offset, r.key, r.value, r.timestamp) for r in records] == [
        (i, k, v, ts) for i, (k, v, _, ts) in enumerate(rows)]
    # a batch already in the topic's codec is appended as it came
    same = build_batch(rows, codec=CompressionType.ZSTD, producer_id=7, producer_epoch=2,
                       base_sequence=15, is_transactional=True)
    log.append_as_leader(same, leader_epoch=3, now_ms=T0 + 100)
    assert read_bytes(log, 5)[61:] == bytes(same)[61:]
    # "uncompressed" stores a compressed batch without compression
    log.update_config(LogConfig(compression_type="uncompressed"))
    log.append_as_leader(build_batch(rows, codec=CompressionType.LZ4), leader_epoch=3, now_ms=T0)
    assert BatchHeader.parse(read_bytes(log, 10)).compression == CompressionType.NONE


def test_log_append_time_rewrites_timestamp_and_keeps_crc_valid(tmp_path: Path) -> None:
    log = open_log(tmp_path, message_timestamp_type="LogAppendTime")
    now = T0 + 5000
    info = log.append_as_leader(make_batch(3, ts=T0), leader_epoch=0, now_ms=now)
    assert info.log_append_time == now and info.max_timestamp == now
    data = read_bytes(log, 0)
    header = BatchHeader.parse(data)
    assert header.is_log_append_time and header.max_timestamp == now
    assert crc_is_valid(data)
    _, records = decode_batch(data)
    assert [r.timestamp for r in records] == [now] * 3


# -- segments and indexes -------------------------------------------------------------------


def test_roll_by_size(tmp_path: Path) -> None:
    size = len(make_batch(2))
    log = open_log(tmp_path, segment_bytes=size * 3)
    for _ in range(7):
        log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)
    assert [s.base_offset for s in log.segments] == [0, 6, 12]
    assert [s.size for s in log.segments] == [size * 3, size * 3, size]
    for base in (0, 6, 12):
        assert {p.name for p in log.dir.glob(f"{base:020d}.*")} >= {f"{base:020d}.log"}
    # A read stays within one segment; the next read continues in the following one.
    assert [h.base_offset for h in read_batches(log, 0)] == [0, 2, 4]
    assert [h.base_offset for h in read_batches(log, 7)] == [6, 8, 10]
    assert [o for o, _ in read_all(log)] == list(range(14))
    # Rolling made the closed segments durable and moved the recovery point.
    assert log.recovery_point == 12


def test_roll_by_time(tmp_path: Path) -> None:
    log = open_log(tmp_path, segment_ms=1000)
    log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0)
    log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0 + 1000)
    assert len(log.segments) == 1
    log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0 + 1001)
    assert [s.base_offset for s in log.segments] == [0, 2]
    # The new segment's age starts at its first append.
    log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0 + 1900)
    assert len(log.segments) == 2


def test_roll_when_the_offset_index_is_full(tmp_path: Path) -> None:
    # Three offset entries fit in 24 bytes; one entry per batch after the first.
    log = open_log(tmp_path, segment_index_bytes=24, index_interval_bytes=0)
    for _ in range(5):
        log.append_as_leader(make_batch(ts=T0), leader_epoch=0, now_ms=T0)
    assert [s.base_offset for s in log.segments] == [0, 4]
    assert len(log.segments[0].offset_index) == 3
    assert [o for o, _ in read_all(log)] == list(range(5))


def test_roll_when_the_time_index_is_full(tmp_path: Path) -> None:
    # 24 bytes hold two time entries; each batch brings a new max timestamp.
    log = open_log(tmp_path, segment_index_bytes=24, index_interval_bytes=0)
    for i in range(4):
        log.append_as_leader(make_batch(ts=T0 + i), leader_epoch=0, now_ms=T0)
    assert [s.base_offset for s in log.segments] == [0, 3]
    assert len(log.segments[0].time_index) == 2


def _check_reads(log: Log, batch_size: int, batch_records: int) -> None:
    """Every offset, byte limit and max_offset gives the batches a plain walk would."""
    end = log.log_end_offset
    for offset in range(log.log_start_offset, end):
        first = read_batches(log, offset, max_bytes=1)[0]
        assert first.base_offset <= offset <= first.last_offset
        for max_batches in (1, 2, 5):
            for max_offset in (None, offset + 1, offset + 4, end):
                headers = read_batches(
                    log, offset, max_bytes=batch_size * max_batches + 1, max_offset=max_offset
                )
                stop = end if max_offset is None else max_offset
                expected = [
                    b for b in range(first.base_offset, end, batch_records) if b < stop
                ][:max_batches]
                assert [h.base_offset for h in headers] == expected


@pytest.mark.parametrize("reopen", [False, True])
def test_sparse_index_finds_the_right_batch(tmp_path: Path, reopen: bool) -> None:
    size = len(make_batch(3))
    log = open_log(tmp_path, index_interval_bytes=size * 3)
    for i in range(60):
        log.append_as_leader(make_batch(3, ts=T0 + i * 10), leader_epoch=0, now_ms=T0)
    if reopen:  # a reopened segment has only its sparse index to go by
        log.close()
        log = open_log(tmp_path, clean=True, index_interval_bytes=size * 3)
    index = log.active_segment.offset_index
    assert 5 < len(index) < 30
    _check_reads(log, size, 3)
    # Index files hold 8-byte (relative offset, position) and 12-byte (timestamp, offset) entries
    # (entries reach them in bunches: a flush writes what is left)
    log.flush()
    assert log_file(log, 0, ".index").stat().st_size == len(index) * 8
    assert log_file(log, 0, ".timeindex").stat().st_size == len(log.active_segment.time_index) * 12


def test_index_entries_lost_with_the_process_are_walked_after_a_crash(tmp_path: Path) -> None:
    """Index entries reach the file in bunches, not one write each; a kill -9 loses those not
    yet written, and the next start walks the batches after the last entry on disk."""
    log = open_log(tmp_path / "running", index_interval_bytes=1)  # an entry for every batch
    n = PENDING_BYTES // 8 + 100
    for i in range(n):
        log.append_as_leader(make_batch(1, ts=T0 + i), leader_epoch=0, now_ms=T0)
    index = log_file(log, 0, ".index")
    assert 0 < index.stat().st_size < n * 8  # some written, the rest still in memory
    # the crash: the files hold what the process had written, nothing more
    shutil.copytree(log.dir, tmp_path / "crashed" / log.dir.name)
    crashed = open_log(tmp_path / "crashed", clean=False, index_interval_bytes=1)
    assert crashed.log_end_offset == n
    assert [o for o, _ in read_all(crashed)] == list(range(n))
    for offset in (0, n // 2, n - 1):
        assert read_batches(crashed, offset, 1)[0].base_offset == offset
    log.flush()
    assert index.stat().st_size == len(log.active_segment.offset_index) * 8


def test_reads_past_the_recent_batch_window(tmp_path: Path) -> None:
    size = len(make_batch(1))
    log = open_log(tmp_path, index_interval_bytes=size * 40)
    for _ in range(1500):
        log.append_as_leader(make_batch(1), leader_epoch=0, now_ms=T0)
    for offset in (0, 1, 300, 700, 1023, 1024, 1499):
        headers = read_batches(log, offset, max_bytes=size * 3, max_offset=1499)
        assert [h.base_offset for h in headers] == [o for o in range(offset, offset + 3) if o < 1499]


def test_clean_reopen_keeps_offsets_and_indexes(tmp_path: Path) -> None:
    size = len(make_batch(2))
    log = open_log(tmp_path, index_interval_bytes=size, segment_bytes=size * 10)
    for i in range(25):
        log.append_as_leader(make_batch(2, ts=T0 + i), leader_epoch=0, now_ms=T0)
    before = read_all(log)
    log.close()
    log = open_log(tmp_path, clean=True, index_interval_bytes=size, segment_bytes=size * 10)
    assert log.log_end_offset == 50 and len(log.segments) == 3
    assert read_all(log) == before
    assert log.offset_for_timestamp(T0 + 13) == (25, T0 + 13)  # batch 12 holds T0+12, T0+13
    assert log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0).first_offset == 50


# -- recovery -------------------------------------------------------------------------------


def _write_five(tmp_path: Path) -> tuple[Log, list[int]]:
    """A closed log with five batches; returns it and the batch start positions."""
    log = open_log(tmp_path)
    positions = []
    for i in range(5):
        positions.append(log.active_segment.size)
        log.append_as_leader(make_batch(2, ts=T0 + i), leader_epoch=0, now_ms=T0)
    log.close()
    return log, positions


@pytest.mark.parametrize("damage", ["torn", "crc", "garbage", "short_garbage"])
def test_recovery_drops_exactly_the_bad_tail(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    log, positions = _write_five(tmp_path)
    path = log_file(log)
    data = bytearray(path.read_bytes())
    original = len(data)
    if damage == "torn":
        data = data[:-7]
        keep_batches = 4
    elif damage == "crc":
        data[positions[4] + 70] ^= 0x01
        keep_batches = 4
    elif damage == "garbage":
        data += os.urandom(100)
        keep_batches = 5
    else:
        data += b"\x00" * 20
        keep_batches = 5
    path.write_bytes(bytes(data))

    with caplog.at_level(logging.WARNING):
        log = open_log(tmp_path, clean=False)
    expected_size = positions[keep_batches] if keep_batches < 5 else original
    assert path.stat().st_size == expected_size
    assert log.log_end_offset == keep_batches * 2
    assert "dropped" in caplog.text and path.name in caplog.text
    assert [o for o, _ in read_all(log)] == list(range(keep_batches * 2))
    assert log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0).first_offset == keep_batches * 2
    assert [o for o, _ in read_all(log)] == list(range(keep_batches * 2 + 1))


def test_recovery_cuts_at_a_corrupt_batch_in_the_middle(tmp_path: Path) -> None:
    log, positions = _write_five(tmp_path)
    path = log_file(log)
    data = bytearray(path.read_bytes())
    data[positions[2] + 65] ^= 0x40
    path.write_bytes(bytes(data))
    log = open_log(tmp_path)
    assert log.log_end_offset == 4
    assert path.stat().st_size == positions[2]


def test_recovery_deletes_segments_after_a_cut(tmp_path: Path) -> None:
    size = len(make_batch(2))
    log = open_log(tmp_path, segment_bytes=size * 2)
    for _ in range(6):
        log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)
    log.close()
    assert [s.base_offset for s in log.segments] == [0, 4, 8]
    middle = log_file(log, 4)
    middle.write_bytes(middle.read_bytes()[:-3])
    log = open_log(tmp_path, segment_bytes=size * 2, recovery_point=0)
    assert [s.base_offset for s in log.segments] == [0, 4]
    assert log.log_end_offset == 6
    assert not log_file(log, 8).exists()


def test_recovery_starts_at_the_recovery_point_segment(tmp_path: Path) -> None:
    size = len(make_batch(2))
    log = open_log(tmp_path, segment_bytes=size * 2)
    for _ in range(6):
        log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)
    log.close()
    # Damage in a segment below the recovery point is not looked for (it was flushed)...
    first = log_file(log, 0)
    data = bytearray(first.read_bytes())
    data[70] ^= 1
    first.write_bytes(bytes(data))
    log = open_log(tmp_path, segment_bytes=size * 2, recovery_point=8)
    assert log.log_end_offset == 12
    log.close()
    # ...but a full recovery finds it and drops everything after it.
    log = open_log(tmp_path, segment_bytes=size * 2, recovery_point=0)
    assert log.log_end_offset == 0 and len(log.segments) == 1


@pytest.mark.parametrize("suffix", [".index", ".timeindex"])
@pytest.mark.parametrize("damage", ["odd_size", "out_of_order", "past_the_log"])
def test_damaged_index_is_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, suffix: str, damage: str
) -> None:
    log = open_log(tmp_path, index_interval_bytes=0)
    for i in range(10):
        log.append_as_leader(make_batch(2, ts=T0 + i), leader_epoch=0, now_ms=T0)
    before = read_all(log)
    log.close()
    index = log_file(log, 0, suffix)
    good = index.read_bytes()
    width = 8 if suffix == ".index" else 12
    assert len(good) >= 3 * width
    if damage == "odd_size":
        index.write_bytes(good + b"\x01\x02\x03")
    elif damage == "out_of_order":
        index.write_bytes(good[width : 2 * width] + good[:width] + good[2 * width :])
    elif suffix == ".index":
        index.write_bytes(good + (100).to_bytes(4, "big") + (10_000).to_bytes(4, "big"))
    else:
        index.write_bytes(good + (T0 + 99).to_bytes(8, "big") + (500).to_bytes(4, "big"))

    with caplog.at_level(logging.WARNING):
        log = open_log(tmp_path, clean=True, index_interval_bytes=0)
    assert "rebuilding" in caplog.text
    assert index.read_bytes() == good
    assert read_all(log) == before
    for offset in range(20):
        first = read_batches(log, offset, max_bytes=1)[0]
        assert first.base_offset <= offset <= first.last_offset


def test_older_segment_indexes_are_checked_on_first_use(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    size = len(make_batch(2))
    config = {"index_interval_bytes": 0, "segment_bytes": size * 5}
    log = open_log(tmp_path, **config)
    for i in range(10):
        log.append_as_leader(make_batch(2, ts=T0 + i), leader_epoch=0, now_ms=T0)
    before = read_all(log)
    log.close()
    index = log_file(log, 0, ".index")
    good = index.read_bytes()
    index.write_bytes(good[8:16] + good[:8] + good[16:])  # first two entries swapped

    with caplog.at_level(logging.WARNING):
        log = open_log(tmp_path, clean=True, **config)
        assert "rebuilding" not in caplog.text  # opening reads only the last entry
        assert read_all(log) == before
    assert "rebuilding" in caplog.text
    assert index.read_bytes() == good


def test_orphan_and_temporary_files_are_removed(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0)
    log.close()
    (log.dir / f"{77:020d}.index").write_bytes(b"")
    (log.dir / "00000000000000000000.index.tmp").write_bytes(b"x")
    log = open_log(tmp_path, clean=True)
    names = set(log.files())
    assert f"{77:020d}.index" not in names and "00000000000000000000.index.tmp" not in names
    assert log.log_end_offset == 1


# -- timestamps -----------------------------------------------------------------------------


def test_offset_for_timestamp_is_exact_per_record(tmp_path: Path) -> None:
    log = open_log(tmp_path, index_interval_bytes=0)
    log.append_as_leader(make_batch(ts=[T0, T0 + 10, T0 + 20]), leader_epoch=0, now_ms=T0)  # 0-2
    log.append_as_leader(make_batch(ts=[T0 + 30, T0 + 25]), leader_epoch=0, now_ms=T0)  # 3-4
    log.append_as_leader(make_batch(ts=[T0 + 5]), leader_epoch=0, now_ms=T0)  # 5, late record
    log.append_as_leader(make_batch(ts=[T0 + 40, T0 + 50]), leader_epoch=0, now_ms=T0)  # 6-7
    assert log.offset_for_timestamp(T0 - 1) == (0, T0)
    assert log.offset_for_timestamp(T0) == (0, T0)
    assert log.offset_for_timestamp(T0 + 10) == (1, T0 + 10)
    assert log.offset_for_timestamp(T0 + 15) == (2, T0 + 20)
    assert log.offset_for_timestamp(T0 + 21) == (3, T0 + 30)
    assert log.offset_for_timestamp(T0 + 31) == (6, T0 + 40)
    assert log.offset_for_timestamp(T0 + 45) == (7, T0 + 50)
    assert log.offset_for_timestamp(T0 + 51) is None


def test_offset_for_timestamp_across_segments(tmp_path: Path) -> None:
    size = len(make_batch(2))
    log = open_log(tmp_path, segment_bytes=size * 2)
    for i in range(6):
        log.append_as_leader(make_batch(2, ts=T0 + i * 100), leader_epoch=0, now_ms=T0)
    assert len(log.segments) == 3
    assert log.offset_for_timestamp(T0 + 250) == (6, T0 + 300)
    assert log.offset_for_timestamp(T0 + 301) == (7, T0 + 301)
    assert log.offset_for_timestamp(T0 + 502) is None


def test_offset_for_timestamp_with_log_append_time(tmp_path: Path) -> None:
    log = open_log(tmp_path, message_timestamp_type="LogAppendTime")
    log.append_as_leader(make_batch(2, ts=0), leader_epoch=0, now_ms=T0)
    log.append_as_leader(make_batch(2, ts=0), leader_epoch=0, now_ms=T0 + 100)
    assert log.offset_for_timestamp(T0 + 1) == (2, T0 + 100)


# -- flushing and truncation ----------------------------------------------------------------


def test_flush_messages_moves_the_recovery_point(tmp_path: Path) -> None:
    log = open_log(tmp_path, flush_messages=3)
    log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)
    assert log.recovery_point == 0
    log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0 + 7)
    assert log.recovery_point == 4 and log.last_flush_ms == T0 + 7


def test_default_config_never_flushes_on_append(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    for _ in range(10):
        log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)
    assert log.recovery_point == 0
    log.flush(up_to=6)
    assert log.recovery_point == 6
    log.flush()
    assert log.recovery_point == 20


def test_truncate_to_a_batch_boundary(tmp_path: Path) -> None:
    size = len(make_batch(2))
    log = open_log(tmp_path, segment_bytes=size * 2)
    for _ in range(6):
        log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)
    log.truncate_to(6)
    assert log.log_end_offset == 6
    assert [s.base_offset for s in log.segments] == [0, 4]
    assert not log_file(log, 8).exists()
    assert log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0).first_offset == 6
    assert [o for o, _ in read_all(log)] == list(range(7))
    log.truncate_to(0)
    assert (log.log_start_offset, log.log_end_offset, len(log.segments)) == (0, 0, 1)


def test_delete_removes_the_directory(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.append_as_leader(make_batch(), leader_epoch=0, now_ms=T0)
    log.delete()
    assert not log.dir.exists()


# -- retention ------------------------------------------------------------------------------


def test_retention_by_time_deletes_whole_old_segments(tmp_path: Path) -> None:
    size = len(make_batch(2))
    log = open_log(tmp_path, segment_bytes=size * 2, retention_ms=1000, file_delete_delay_ms=500)
    for i in range(5):
        log.append_as_leader(make_batch(2, ts=T0 + i * 1000), leader_epoch=0, now_ms=T0)
    assert [s.base_offset for s in log.segments] == [0, 4, 8]
    assert log.enforce_retention(T0 + 2000) == 0  # segment 0 ends at T0+1001
    # A slice handed out before deletion stays readable until the delay passes.
    pending = log.read(0, 1 << 20).records
    assert isinstance(pending, FileSlice)
    assert log.enforce_retention(T0 + 2002) == 1
    assert log.log_start_offset == 4 and [s.base_offset for s in log.segments] == [4, 8]
    assert log_file(log, 0, ".log.deleted").exists() and not log_file(log, 0).exists()
    assert len(pending.read_bytes()) == size * 2
    with pytest.raises(KafkaError) as e:
        log.read(3, 100)
    assert e.value.code == ErrorCode.OFFSET_OUT_OF_RANGE
    # The active segment is never deleted, however old.
    assert log.enforce_retention(T0 + 10**9) == 1
    assert [s.base_offset for s in log.segments] == [8]
    assert not log_file(log, 0, ".log.deleted").exists()
    assert log_file(log, 4, ".log.deleted").exists()
    log.enforce_retention(T0 + 10**9 + 500)
    assert not log_file(log, 4, ".log.deleted").exists()
    assert [o for o, _ in read_all(log)] == [8, 9]


def test_retention_by_size_and_policy(tmp_path: Path) -> None:
    size = len(make_batch(2))
    log = open_log(tmp_path, segment_bytes=size * 2, retention_bytes=size * 3, retention_ms=-1)
    for _ in range(5):
        log.append_as_leader(make_batch(2), leader_epoch=0, now_ms=T0)
    assert log.enforce_retention(T0) == 1  # 5 batches > 3 allowed: drop one 2-batch segment
    assert log.log_start_offset == 4
    log.update_config(LogConfig(segment_bytes=size * 2, retention_bytes=0, cleanup_policy="compact"))
    assert log.enforce_retention(T0) == 0


def test_a_log_renamed_for_deletion_is_deleted_with_index_entries_not_yet_written(
        tmp_path: Path) -> None:
    """Index entries reach their file in bunches; a log whose directory was renamed ``-delete``
    (topic deletion, a log-dir move) drops the ones still in memory instead of writing them."""
    log = open_log(tmp_path, index_interval_bytes=1)
    for _ in range(5):
        log.append_as_leader(make_batch(3), leader_epoch=0, now_ms=T0)
    doomed = log.dir.with_name(log.dir.name + ".0123-delete")
    log.dir.rename(doomed)
    log.dir = doomed
    log.delete()
    assert not doomed.exists()
