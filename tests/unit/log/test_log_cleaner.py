"""Log compaction: what survives a pass, when a log is cleaned, the swap and its crash recovery."""

from __future__ import annotations

import asyncio
import shutil
import struct
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import DELETE_HORIZON_MASK, BatchHeader, crc_is_valid
from protocol.records.compression import CompressionType
from protocol.records.control import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from protocol.records.record import Record, build_batch, decode_batch, iter_batches
from pybroker.kernel.clock import ManualClock
from pybroker.log import FileSlice, Log, LogConfig, LogManager
from pybroker.log.cleaner import LogCleaner
from pybroker.log.cleaner_manager import CLEANER_CHECKPOINT, measure
from pybroker.log.config import LONG_MAX
from pybroker.log.producer_state import AppendOrigin

T0 = 1_700_000_000_000
TOPIC = "compacted"

KV = tuple[bytes | None, bytes | None]


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[LogManager]:
    m = LogManager([tmp_path / "logs"], LogConfig())
    m.startup(T0)
    yield m
    m.shutdown()


def compacted(**overrides: object) -> LogConfig:
    return LogConfig(**{"cleanup_policy": "compact", **overrides})  # type: ignore[arg-type]


def new_log(manager: LogManager, config: LogConfig | None = None, partition: int = 0) -> Log:
    return manager.get_or_create_log(TOPIC, partition, config or compacted(), T0)


def append(log: Log, records: Sequence[KV], *, ts: int = T0, **batch: int) -> None:
    log.append_as_leader(
        build_batch([(k, v, (), ts) for k, v in records], **batch), leader_epoch=0, now_ms=ts
    )


def segment(log: Log, records: Sequence[KV], *, ts: int = T0, per_batch: int = 1, **batch: int) -> None:
    """Append ``records`` (``per_batch`` to a batch) and roll, so they form one inactive segment."""
    for i in range(0, len(records), per_batch):
        append(log, records[i : i + per_batch], ts=ts, **batch)
    log.roll(ts)


def read_records(log: Log, start: int | None = None) -> list[Record]:
    """Every record from ``start`` (default the log start), read the way a fetch reads."""
    out: list[Record] = []
    offset = log.log_start_offset if start is None else start
    while offset < log.log_end_offset:
        records = log.read(offset, 1 << 20).records
        data = records.read_bytes() if isinstance(records, FileSlice) else bytes(records)
        assert data, f"nothing readable at {offset}"
        for pos, header in iter_batches(data):
            assert crc_is_valid(data, pos)
            out += [r for r in decode_batch(data, pos)[1] if r.offset >= offset]
            offset = header.next_offset
    return out


def contents(log: Log) -> list[tuple[int, bytes | None, bytes | None]]:
    return [(r.offset, r.key, r.value) for r in read_records(log)]


def batch_headers(log: Log) -> list[BatchHeader]:
    out: list[BatchHeader] = []
    for seg in log.segments:
        out += [h for _, h in seg.headers_from(0)]
    return out


def written(records: Sequence[KV], start: int = 0) -> list[tuple[int, bytes | None, bytes | None]]:
    return [(start + i, k, v) for i, (k, v) in enumerate(records)]


def latest_per_key(entries: list[tuple[int, bytes | None, bytes | None]]) -> list[tuple[int, bytes | None, bytes | None]]:
    latest: dict[bytes | None, tuple[int, bytes | None, bytes | None]] = {}
    for entry in entries:
        latest[entry[1]] = entry
    return sorted(latest.values())


def kv(key: int, version: int) -> KV:
    return b"key-%d" % key, b"value-%d-%d" % (key, version)


# -- what a pass keeps -----------------------------------------------------------------------


def test_latest_value_per_key_survives_and_offsets_do_not_change(manager: LogManager) -> None:
    log = new_log(manager)
    history: list[KV] = []
    for version in range(4):
        records = [kv(k, version) for k in range(5) if (k + version) % 3]  # keys skip some rounds
        segment(log, records)
        history += records
    active_records = [kv(0, 9), kv(0, 10)]
    for record in active_records:
        append(log, [record])
    active, active_size, end = log.active_segment, log.active_segment.size, log.log_end_offset

    stats = LogCleaner(manager).clean_once(T0 + 1)

    assert stats is not None and not stats.aborted
    assert stats.end_offset == active.base_offset
    cleaned_part = latest_per_key(written(history))
    assert contents(log) == cleaned_part + written(active_records, len(history))
    # The active segment is the same object with the same bytes; the log end did not move.
    assert log.active_segment is active and active.size == active_size and log.log_end_offset == end
    assert len(log.segments) == 2
    # Fetching from an offset that compaction removed returns the next surviving record.
    removed = next(o for o in range(len(history)) if o not in {e[0] for e in cleaned_part})
    assert read_records(log, removed)[0].offset > removed
    # The next pass starts where this one ended.
    checkpoint = manager.log_dirs[0] / CLEANER_CHECKPOINT
    assert f"{TOPIC} 0 {active.base_offset}" in checkpoint.read_text()


def test_a_log_with_only_its_active_segment_is_left_alone(manager: LogManager) -> None:
    log = new_log(manager)
    for version in range(5):
        append(log, [kv(1, version)])
    before, files = contents(log), log.files()
    assert LogCleaner(manager).clean_once(T0 + 10**9) is None
    assert contents(log) == before and log.files() == files


def test_delete_policy_logs_are_not_compacted(manager: LogManager) -> None:
    log = new_log(manager, LogConfig(cleanup_policy="delete"))
    for version in range(3):
        segment(log, [kv(1, version)])
    assert LogCleaner(manager).clean_once(T0) is None
    assert len(contents(log)) == 3


@pytest.mark.parametrize(
    "codec", [CompressionType.GZIP, CompressionType.ZSTD, CompressionType.SNAPPY, CompressionType.LZ4]
)
def test_compressed_batches_are_compacted_in_their_codec(manager: LogManager, codec: int) -> None:
    log = new_log(manager)
    first = [kv(k, 0) for k in range(6)]
    second = [kv(k, 1) for k in range(0, 6, 2)]
    segment(log, first, per_batch=6, codec=codec)
    segment(log, second, per_batch=3, codec=codec)
    append(log, [kv(99, 0)])

    LogCleaner(manager).clean_once(T0)

    assert contents(log)[:-1] == latest_per_key(written(first) + written(second, 6))
    headers = batch_headers(log)[:-1]
    assert [h.compression for h in headers] == [codec, codec]
    # The thinned batch keeps its offset range (base offset and last offset delta).
    assert [(h.base_offset, h.last_offset, h.records_count) for h in headers] == [(0, 5, 3), (6, 8, 3)]


def test_keyless_records_are_dropped_and_binary_keys_compact(manager: LogManager) -> None:
    """__consumer_offsets style: binary keys (version, group, topic, partition) and tombstones.
    A keyless record (refused on produce to a compacted topic, so written while the topic was
    not compacted yet) is dropped."""

    def offset_key(group: bytes, partition: int) -> bytes:
        return struct.pack(">hh", 1, len(group)) + group + struct.pack(">h", 5) + b"topic" + struct.pack(">i", partition)

    def offset_value(offset: int) -> bytes:
        return struct.pack(">hqiq", 3, offset, -1, T0) + b"\x00\x00\xff"

    log = new_log(manager, compacted(cleanup_policy="delete"))
    commits: list[KV] = []
    for n in range(3):
        commits += [(offset_key(b"g1", p), offset_value(n * 10 + p)) for p in range(3)]
        commits += [(offset_key(b"g\x00\xff", 0), offset_value(n))]
    commits += [(None, b"no key"), (offset_key(b"g1", 2), None)]
    segment(log, commits, per_batch=4)
    log.update_config(compacted(delete_retention_ms=1000))
    append(log, [(b"other", b"x")])

    LogCleaner(manager).clean_once(T0)

    expected = [e for e in latest_per_key(written(commits)) if e[1] is not None]
    assert contents(log)[:-1] == expected
    assert (len(commits) - 1, offset_key(b"g1", 2), None) in expected  # the tombstone, for now


# -- tombstones --------------------------------------------------------------------------------


def test_tombstones_stay_for_delete_retention_after_the_first_pass(manager: LogManager) -> None:
    retention = 60_000
    log = new_log(manager, compacted(delete_retention_ms=retention, min_cleanable_dirty_ratio=0.0))
    cleaner = LogCleaner(manager)
    segment(log, [kv(1, 0), kv(2, 0)], ts=T0)
    segment(log, [(b"key-1", None)], ts=T0 + 5)
    append(log, [kv(3, 0)])

    t1 = T0 + 10**7  # long after the tombstone was written: its age does not matter
    assert cleaner.clean_once(t1) is not None
    assert contents(log)[:2] == [(1, b"key-2", b"value-2-0"), (2, b"key-1", None)]
    tombstone_batch = next(h for h in batch_headers(log) if h.base_offset == 2)
    assert tombstone_batch.attributes & DELETE_HORIZON_MASK
    assert tombstone_batch.base_timestamp == t1 + retention
    assert next(r for r in read_records(log) if r.offset == 2).timestamp == T0 + 5  # unchanged

    segment(log, [kv(4, 0)], ts=t1)  # new dirty data makes the log cleanable again
    assert cleaner.clean_once(t1 + retention - 1) is not None
    assert (2, b"key-1", None) in contents(log)
    horizon = next(h for h in batch_headers(log) if h.base_offset == 2).base_timestamp
    assert horizon == t1 + retention  # not pushed back by the second pass

    segment(log, [kv(5, 0)], ts=t1)
    assert cleaner.clean_once(t1 + retention) is not None
    assert [e[1] for e in contents(log)] == [b"key-2", b"key-3", b"key-4", b"key-5"]
    assert 2 not in {h.base_offset for h in batch_headers(log)}


# -- when a log is cleaned -----------------------------------------------------------------------


def test_min_compaction_lag_keeps_recent_segments_dirty(manager: LogManager) -> None:
    lag = 5000
    log = new_log(manager, compacted(min_compaction_lag_ms=lag))
    cleaner = LogCleaner(manager)
    segment(log, [kv(1, 0), kv(1, 1)], ts=T0)
    segment(log, [kv(1, 2), kv(1, 3)], ts=T0 + 4000)
    append(log, [kv(1, 4)], ts=T0 + 4000)

    assert cleaner.clean_once(T0 + lag - 1) is None  # both segments hold records younger than the lag
    stats = cleaner.clean_once(T0 + lag)  # the first one has aged
    assert stats is not None and stats.end_offset == 2
    assert contents(log) == [(1, b"key-1", b"value-1-1"), (2, b"key-1", b"value-1-2"),
                             (3, b"key-1", b"value-1-3"), (4, b"key-1", b"value-1-4")]
    assert cleaner.clean_once(T0 + 4000 + lag - 1) is None
    stats = cleaner.clean_once(T0 + 4000 + lag)
    assert stats is not None and stats.end_offset == 4
    assert contents(log) == [(3, b"key-1", b"value-1-3"), (4, b"key-1", b"value-1-4")]


def test_dirty_ratio_must_exceed_min_cleanable_dirty_ratio(manager: LogManager) -> None:
    log = new_log(manager)  # min.cleanable.dirty.ratio 0.5
    cleaner = LogCleaner(manager)
    segment(log, [kv(k, 0) for k in range(20)])  # distinct keys: cleaning removes nothing
    append(log, [kv(0, 1)])
    assert cleaner.clean_once(T0) is not None
    clean_bytes = log.segments[0].size

    outcomes = []
    for version in range(1, 30):
        segment(log, [kv(0, version)])
        ltc = measure(TOPIC, 0, log, cleaner.checkpoint_of(TOPIC, 0), T0)
        dirty_bytes = sum(s.size for s in log.segments[1:-1])
        assert ltc.cleanable_bytes == dirty_bytes and ltc.clean_bytes == clean_bytes
        expected = dirty_bytes / (clean_bytes + dirty_bytes) > 0.5
        assert (cleaner.clean_once(T0) is not None) == expected
        outcomes.append(expected)
        if expected:
            break
    assert outcomes[0] is False and outcomes[-1] is True
    assert [e for e in contents(log) if e[1] == b"key-0"][0][2] == b"value-0-%d" % len(outcomes)


def test_max_compaction_lag_forces_a_pass_below_the_dirty_ratio(manager: LogManager) -> None:
    log = new_log(manager, compacted(min_cleanable_dirty_ratio=1.0, max_compaction_lag_ms=10_000))
    cleaner = LogCleaner(manager)
    segment(log, [kv(1, 0), kv(1, 1)], ts=T0)
    append(log, [kv(2, 0)], ts=T0)
    assert cleaner.clean_once(T0 + 10_000) is None  # a ratio of 1.0 is not above 1.0
    assert cleaner.clean_once(T0 + 10_001) is not None
    assert contents(log) == [(1, b"key-1", b"value-1-1"), (2, b"key-2", b"value-2-0")]
    assert LogConfig().max_compaction_lag_ms == LONG_MAX


def test_a_full_offset_map_cleans_in_several_passes(manager: LogManager) -> None:
    log = new_log(manager)
    history: list[KV] = []
    for version in range(4):
        records = [kv(k, version) for k in range(2 * version, 2 * version + 4)]  # sliding keys
        segment(log, records, per_batch=2)
        history += records
    append(log, [kv(0, 99)])
    cleaner = LogCleaner(manager, max_map_entries=6)

    first = cleaner.clean_once(T0)
    assert first is not None and first.end_offset == 8  # keys 0-5: the next batch would overflow
    passes = 1
    while cleaner.clean_once(T0) is not None:
        passes += 1
    assert passes > 1
    assert contents(log)[:-1] == latest_per_key(written(history))


def test_small_segments_are_merged_within_segment_bytes(manager: LogManager) -> None:
    one = len(build_batch([(kv(0, 0)[0], kv(0, 0)[1], (), T0)]))
    log = new_log(manager, compacted(segment_bytes=one * 5))
    distinct = [kv(k, 0) for k in range(12)]
    for i in range(0, 12, 2):
        segment(log, distinct[i : i + 2])  # six segments of two batches
    append(log, [kv(0, 1)])

    LogCleaner(manager).clean_once(T0)

    assert [s.base_offset for s in log.segments] == [0, 4, 8, 12]  # groups of two segments
    assert all(s.size <= one * 5 for s in log.segments)
    assert contents(log) == written(distinct) + [(12, b"key-0", b"value-0-1")]


# -- producer state ------------------------------------------------------------------------------


def test_a_producers_last_batch_survives_as_an_empty_batch(manager: LogManager, tmp_path: Path) -> None:
    log = new_log(manager)
    append(log, [kv(1, 0), kv(2, 0)], producer_id=7, producer_epoch=0, base_sequence=0)
    append(log, [kv(3, 0)], producer_id=8, producer_epoch=0, base_sequence=0)
    append(log, [kv(1, 1), kv(2, 1), kv(3, 1)])
    log.roll(T0)
    append(log, [kv(4, 0)])
    del log.producer_state.producers[8]  # producer 8 has expired

    LogCleaner(manager).clean_once(T0)

    headers = batch_headers(log)
    empty = headers[0]
    assert (empty.base_offset, empty.last_offset, empty.records_count) == (0, 1, 0)
    assert (empty.producer_id, empty.producer_epoch, empty.base_sequence) == (7, 0, 0)
    assert all(h.producer_id != 8 for h in headers)
    assert contents(log) == [(3, b"key-1", b"value-1-1"), (4, b"key-2", b"value-2-1"),
                             (5, b"key-3", b"value-3-1"), (6, b"key-4", b"value-4-0")]

    # Rebuilt from the log alone, the producer state still knows producer 7's last sequence.
    manager.shutdown()
    for snapshot in log.dir.glob("*.snapshot"):
        snapshot.unlink()
    reopened = LogManager(manager.log_dirs, LogConfig())
    reopened.startup(T0, config_for=lambda _topic: compacted())
    try:
        log = reopened.get_log(TOPIC, 0)
        assert log is not None
        retry = build_batch([(*kv(1, 0), (), T0), (*kv(2, 0), (), T0)], producer_id=7, producer_epoch=0, base_sequence=0)
        info = log.append_as_leader(retry, leader_epoch=0, now_ms=T0)
        assert info.duplicate and (info.first_offset, info.last_offset) == (0, 1)
        with pytest.raises(KafkaError) as e:
            bad = build_batch([(*kv(1, 5), (), T0)], producer_id=7, producer_epoch=0, base_sequence=5)
            log.append_as_leader(bad, leader_epoch=0, now_ms=T0)
        assert e.value.code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    finally:
        reopened.shutdown()


# -- transactions ----------------------------------------------------------------------------


def txn_append(log: Log, pid: int, seq: int, records: Sequence[KV], *, ts: int = T0) -> None:
    log.append_as_leader(
        build_batch([(k, v, (), ts) for k, v in records], producer_id=pid, producer_epoch=0,
                    base_sequence=seq, is_transactional=True), leader_epoch=0, now_ms=ts)


def end_txn(log: Log, pid: int, control_type: ControlRecordType, *, ts: int = T0) -> int:
    marker = build_end_txn_marker_batch(pid, 0, EndTransactionMarker(control_type, 0),
                                        timestamp=ts)
    return log.append_as_leader(marker, leader_epoch=0, now_ms=ts,
                                origin=AppendOrigin.COORDINATOR).first_offset


def control_offsets(log: Log) -> list[int]:
    return [h.base_offset for h in batch_headers(log) if h.is_control]


def test_aborted_records_go_and_committed_ones_are_compacted(manager: LogManager) -> None:
    log = new_log(manager, compacted(delete_retention_ms=1000))
    txn_append(log, 7, 0, [kv(1, 0), kv(2, 0)])  # 0-1, aborted below
    append(log, [kv(1, 1)])  # 2
    abort = end_txn(log, 7, ControlRecordType.ABORT)  # 3
    txn_append(log, 8, 0, [kv(1, 2)])  # 4, committed
    commit = end_txn(log, 8, ControlRecordType.COMMIT)  # 5
    append(log, [kv(3, 0)])  # 6, no producer
    log.roll(T0)
    append(log, [kv(9, 9)])  # the active segment
    assert [t.last_offset for s in log.segments for t in s.txn_index.entries] == [abort]
    assert log.producer_state.first_unstable_offset() == 0  # the markers are not replicated
    assert LogCleaner(manager).clean_once(T0 + 10) is None
    log.last_stable_offset(log.log_end_offset)  # the high watermark reaches the log end

    stats = LogCleaner(manager).clean_once(T0 + 10)
    assert stats is not None and not stats.aborted

    # key-1's aborted write never counted: the committed one (4) wins over the plain one (2);
    # key-2 existed only in the aborted transaction
    assert [(o, k, v) for o, k, v in contents(log) if k and k.startswith(b"key-")] == [
        (4, b"key-1", b"value-1-2"), (6, b"key-3", b"value-3-0"), (7, b"key-9", b"value-9-9")]
    # the abort marker stays while the pass met its records, with its index entry in the
    # cleaned segment; the commit marker of a transaction with a record left stays too
    assert control_offsets(log) == [abort, commit]
    assert [(t.producer_id, t.first_offset, t.last_offset)
            for s in log.segments for t in s.txn_index.entries] == [(7, 0, abort)]
    assert log.collect_aborted_transactions(0, log.log_end_offset)[0].producer_id == 7


def test_markers_of_emptied_transactions_go_after_delete_retention(manager: LogManager) -> None:
    retention = 1000
    log = new_log(manager, compacted(delete_retention_ms=retention, min_cleanable_dirty_ratio=0.01))
    txn_append(log, 7, 0, [kv(1, 0)])  # 0
    end_txn(log, 7, ControlRecordType.ABORT)  # 1
    txn_append(log, 8, 0, [kv(2, 0)])  # 2
    end_txn(log, 8, ControlRecordType.COMMIT)  # 3
    txn_append(log, 8, 1, [kv(2, 1)])  # 4: supersedes 2
    end_txn(log, 8, ControlRecordType.COMMIT)  # 5
    # forget the producers (as if expired), so that no batch is kept as a producer's last
    # and only the transaction rules decide what stays
    log.producer_state.clear()
    log.roll(T0)
    append(log, [kv(5, 0)])
    cleaner = LogCleaner(manager)

    def clean(now: int) -> None:
        log.roll(now)
        append(log, [kv(6, now)], ts=now)
        assert cleaner.clean_once(now) is not None

    clean(T0 + 1)
    # pass 1: the aborted record and the superseded committed one go; their markers stay (the
    # pass met records of both transactions); the index keeps the abort
    assert control_offsets(log) == [1, 3, 5]
    assert [(o, k) for o, k, _ in contents(log) if k and k.startswith(b"key-")][:1] == \
        [(4, b"key-2")]
    assert len([t for s in log.segments for t in s.txn_index.entries]) == 1
    clean(T0 + 2)
    # pass 2: both transactions of the first two markers have no record left: the markers get
    # a delete horizon (and the abort loses its index entry); the last commit keeps its record
    headers = [h for h in batch_headers(log) if h.is_control]
    assert [bool(h.attributes & DELETE_HORIZON_MASK) for h in headers] == [True, True, False]
    assert [t for s in log.segments for t in s.txn_index.entries] == []
    clean(T0 + 2 + retention - 1)
    assert control_offsets(log) == [1, 3, 5]
    clean(T0 + 2 + retention + 10)
    assert control_offsets(log) == [5]


def test_the_cleaner_never_passes_an_open_transaction(manager: LogManager) -> None:
    log = new_log(manager)
    segment(log, [kv(1, v) for v in range(3)])  # 0-2: cleanable
    txn_append(log, 7, 0, [kv(1, 10)])  # 3: open
    log.roll(T0)
    segment(log, [kv(1, v) for v in range(20, 23)])  # 4-6: after the open transaction
    append(log, [kv(2, 0)])
    stats = LogCleaner(manager).clean_once(T0 + 1)
    assert stats is not None and stats.end_offset == 3
    assert [o for o, _, _ in contents(log)] == [2, 3, 4, 5, 6, 7]
    end_txn(log, 7, ControlRecordType.ABORT)
    assert log.last_stable_offset(log.log_end_offset) == log.log_end_offset


def test_an_interrupted_swap_rebuilds_the_txnindex(manager: LogManager, tmp_path: Path) -> None:
    log = new_log(manager, compacted(delete_retention_ms=10**9))
    txn_append(log, 7, 0, [kv(1, 0)])
    append(log, [kv(1, 1)])
    abort = end_txn(log, 7, ControlRecordType.ABORT)
    log.roll(T0)
    append(log, [kv(2, 0)])
    LogCleaner(manager).clean_once(T0 + 1)
    before = log.collect_aborted_transactions(0, log.log_end_offset)
    assert [t.last_offset for t in before] == [abort]
    manager.shutdown()
    # as if the broker died right after the commit point: the cleaned log is a .swap and
    # the cleaned .txnindex never got its name
    dir = log.dir
    base = dir / "00000000000000000000"
    base.with_suffix(".log").rename(dir / "00000000000000000000.log.swap")
    base.with_suffix(".txnindex").rename(dir / "00000000000000000000.txnindex.cleaned")
    reopened = LogManager([tmp_path / "logs"], LogConfig())
    reopened.startup(T0)
    try:
        again = reopened.get_log(TOPIC, 0)
        assert again is not None
        assert again.collect_aborted_transactions(0, again.log_end_offset) == before
    finally:
        reopened.shutdown()


# -- the swap --------------------------------------------------------------------------------------


def test_a_fetch_holding_a_replaced_segment_still_reads_it(manager: LogManager) -> None:
    log = new_log(manager, compacted(file_delete_delay_ms=1000))
    segment(log, [kv(1, v) for v in range(5)])
    append(log, [kv(2, 0)])
    in_flight = log.read(0, 1 << 20).records
    assert isinstance(in_flight, FileSlice)
    before = in_flight.read_bytes()

    LogCleaner(manager).clean_once(T0)

    assert in_flight.read_bytes() == before  # the old file is renamed, not gone
    assert any(name.endswith(".deleted") for name in log.files())
    log.enforce_retention(T0 + 1000)  # also removes segments whose deletion is due
    assert not any(name.endswith(".deleted") for name in log.files())
    assert contents(log) == [(4, b"key-1", b"value-1-4"), (5, b"key-2", b"value-2-0")]


def test_a_reopened_log_reads_the_cleaned_data_and_is_not_cleaned_again(manager: LogManager) -> None:
    log = new_log(manager)
    history: list[KV] = []
    for version in range(3):
        records = [kv(k, version) for k in range(3)]
        segment(log, records, codec=CompressionType.GZIP, per_batch=3)
        history += records
    append(log, [kv(9, 0)])
    assert LogCleaner(manager).clean_once(T0) is not None
    expected = contents(log)
    manager.shutdown()

    for clean_shutdown in (True, False):
        if not clean_shutdown:
            (manager.log_dirs[0] / ".kafka_cleanshutdown").unlink(missing_ok=True)
        reopened = LogManager(manager.log_dirs, LogConfig())
        reopened.startup(T0, config_for=lambda _topic: compacted())
        try:
            log = reopened.get_log(TOPIC, 0)
            assert log is not None and contents(log) == expected
            cleaner = LogCleaner(reopened)
            assert cleaner.checkpoint_of(TOPIC, 0) == 9
            assert cleaner.clean_once(T0) is None
        finally:
            reopened.shutdown()
        if not clean_shutdown:
            break


def _crash_images(tmp_path: Path) -> tuple[Path, Path, list[tuple[int, bytes | None, bytes | None]], list[tuple[int, bytes | None, bytes | None]]]:
    """A partition directory before cleaning, one after, and their contents."""
    m = LogManager([tmp_path / "live"], LogConfig())
    m.startup(T0)
    try:
        log = new_log(m)
        for version in range(3):
            segment(log, [kv(k, version) for k in range(3)])
        append(log, [kv(0, 9)])
        before_dir = tmp_path / "before" / log.dir.name
        shutil.copytree(log.dir, before_dir)
        before = contents(log)
        LogCleaner(m).clean_once(T0)
        after_dir = tmp_path / "after" / log.dir.name
        shutil.copytree(log.dir, after_dir, ignore=shutil.ignore_patterns("*.deleted"))
        after = contents(log)
    finally:
        m.shutdown()
    assert before != after
    return before_dir, after_dir, before, after


def _reopen(dir: Path) -> Log:
    return Log.open(dir, compacted(), now_ms=T0, clean_shutdown=False)


def test_crash_before_the_swap_leaves_the_old_segments(tmp_path: Path) -> None:
    before_dir, after_dir, before, _ = _crash_images(tmp_path)
    for suffix in (".log", ".index", ".timeindex"):
        name = f"{0:020d}{suffix}"
        shutil.copy(after_dir / name, before_dir / (name + ".cleaned"))
    log = _reopen(before_dir)
    try:
        assert contents(log) == before
        assert not any(name.endswith(".cleaned") for name in log.files())
    finally:
        log.close()


@pytest.mark.parametrize("old_files_renamed", [False, True])
def test_crash_after_the_commit_completes_the_swap(tmp_path: Path, old_files_renamed: bool) -> None:
    before_dir, after_dir, _, after = _crash_images(tmp_path)
    shutil.copy(after_dir / f"{0:020d}.log", before_dir / f"{0:020d}.log.swap")
    shutil.copy(after_dir / f"{0:020d}.index", before_dir / f"{0:020d}.index.cleaned")
    old_bases = [3, 6]
    if old_files_renamed:  # the crash came after the old segments went .deleted
        for path in list(before_dir.iterdir()):
            stem = path.name.split(".")[0]
            if path.suffix in (".log", ".index", ".timeindex") and int(stem) < 9:
                path.rename(path.with_name(path.name + ".deleted"))
    log = _reopen(before_dir)
    try:
        assert contents(log) == after
        assert [s.base_offset for s in log.segments] == [0, 9]
        assert not any(name.endswith((".swap", ".cleaned", ".deleted")) for name in log.files())
        assert all(not (before_dir / f"{b:020d}.log").exists() for b in old_bases)
        assert (before_dir / f"{0:020d}.index").exists()  # rebuilt from the swapped-in log
    finally:
        log.close()


def test_a_pass_is_abandoned_when_the_log_changes_under_it(manager: LogManager) -> None:
    log = new_log(manager)
    for version in range(4):
        segment(log, [kv(k, version) for k in range(8)])
    append(log, [kv(0, 99)])
    cleaner = LogCleaner(manager, step_bytes=64)

    async def main() -> object:
        async def meddle() -> None:
            await asyncio.sleep(0)
            log.delete_records_before(8, T0)  # drops the first segment mid-pass

        task = asyncio.create_task(meddle())
        stats = await cleaner.clean(T0)
        await task
        return stats

    stats = asyncio.run(main())
    assert stats is not None and stats.aborted  # type: ignore[attr-defined]
    assert not any(name.endswith((".cleaned", ".swap")) for name in log.files())
    assert len(contents(log)) == 25  # nothing was compacted
    assert (TOPIC, 0) not in cleaner.uncleanable
    again = cleaner.clean_once(T0)
    assert again is not None and not again.aborted
    assert [e[1] for e in contents(log)] == [b"key-%d" % k for k in range(8)] + [b"key-0"]


def test_a_corrupt_segment_makes_the_partition_uncleanable(manager: LogManager) -> None:
    log = new_log(manager)
    segment(log, [kv(1, v) for v in range(3)])
    append(log, [kv(2, 0)])
    first = log.segments[0]
    with open(first.log_path, "r+b") as f:  # flip a byte inside the last record's value
        f.seek(first.size - 3)
        byte = f.read(1)
        f.seek(first.size - 3)
        f.write(bytes([byte[0] ^ 0xFF]))
    cleaner = LogCleaner(manager)
    stats = cleaner.clean_once(T0)
    assert stats is not None and stats.aborted
    assert (TOPIC, 0) in cleaner.uncleanable
    assert cleaner.clean_once(T0) is None
    assert not any(name.endswith(".cleaned") for name in log.files())
    assert [s.base_offset for s in log.segments] == [0, 3]


def test_the_async_pass_yields_to_the_event_loop(manager: LogManager) -> None:
    log = new_log(manager)
    for version in range(3):
        segment(log, [kv(k, version) for k in range(10)])
    append(log, [kv(0, 99)])
    cleaner = LogCleaner(manager, step_bytes=256)
    ticks = 0

    async def main() -> None:
        nonlocal ticks
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        await cleaner.clean(T0)
        done.set()
        await task

    asyncio.run(main())
    assert ticks >= 10  # the loop ran other work between the pass's steps
    assert [e[1] for e in contents(log)] == [b"key-%d" % k for k in range(10)] + [b"key-0"]


def test_a_cancelled_pass_leaves_no_cleaned_files(manager: LogManager) -> None:
    log = new_log(manager)
    for version in range(3):
        segment(log, [kv(k, version) for k in range(10)])
    append(log, [kv(0, 99)])
    before = contents(log)
    cleaner = LogCleaner(manager, step_bytes=256)
    seen_cleaned = False

    async def main() -> None:
        nonlocal seen_cleaned
        task = asyncio.create_task(cleaner.clean(T0))
        for _ in range(1000):
            await asyncio.sleep(0)
            if any(name.endswith(".cleaned") for name in log.files()):
                seen_cleaned = True
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert seen_cleaned
    assert not any(name.endswith((".cleaned", ".swap")) for name in log.files())
    assert contents(log) == before


def test_the_cleaner_task_cleans_until_cancelled(manager: LogManager) -> None:
    log = new_log(manager)
    segment(log, [kv(1, v) for v in range(5)])
    append(log, [kv(2, 0)])
    other = new_log(manager, partition=1)
    segment(other, [kv(3, v) for v in range(5)])
    append(other, [kv(4, 0)])
    cleaner = LogCleaner(manager, backoff_ms=60_000)

    async def main() -> None:
        task = asyncio.create_task(cleaner.run(ManualClock(T0)))
        for _ in range(1000):
            await asyncio.sleep(0)
            if cleaner.checkpoint_of(TOPIC, 0) and cleaner.checkpoint_of(TOPIC, 1):
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert contents(log) == [(4, b"key-1", b"value-1-4"), (5, b"key-2", b"value-2-0")]
    assert contents(other) == [(4, b"key-3", b"value-3-4"), (5, b"key-4", b"value-4-0")]


def test_compact_delete_logs_are_compacted_and_retention_still_applies(manager: LogManager) -> None:
    log = new_log(manager, compacted(cleanup_policy="compact,delete", retention_ms=1000))
    segment(log, [kv(1, 0), kv(1, 1)], ts=T0)
    segment(log, [kv(2, 0), kv(2, 1)], ts=T0 + 5000)
    append(log, [kv(3, 0)], ts=T0 + 5000)
    assert LogCleaner(manager).clean_once(T0 + 5000) is not None
    assert contents(log) == [(1, b"key-1", b"value-1-1"), (3, b"key-2", b"value-2-1"), (4, b"key-3", b"value-3-0")]
    assert [s.base_offset for s in log.segments] == [0, 4]  # the two cleaned segments merged
    assert log.enforce_retention(T0 + 6000) == 0
    assert log.enforce_retention(T0 + 6001) == 1  # the cleaned segment is past retention
    assert contents(log) == [(4, b"key-3", b"value-3-0")]


# -- configuration ---------------------------------------------------------------------------------


def test_compaction_configs_are_real_topic_configs() -> None:
    defaults = LogConfig()
    assert (defaults.delete_retention_ms, defaults.min_cleanable_dirty_ratio) == (86_400_000, 0.5)
    assert (defaults.min_compaction_lag_ms, defaults.max_compaction_lag_ms) == (0, LONG_MAX)
    props = defaults.to_properties()
    assert props["min.cleanable.dirty.ratio"] == "0.5" and props["delete.retention.ms"] == "86400000"
    cfg = LogConfig.from_properties({"min.cleanable.dirty.ratio": "0.1", "min.compaction.lag.ms": "7"})
    assert (cfg.min_cleanable_dirty_ratio, cfg.min_compaction_lag_ms) == (0.1, 7)
    broker = LogConfig.from_broker_properties(
        {
            "log.cleaner.delete.retention.ms": "5",
            "log.cleaner.min.cleanable.ratio": "0.25",
            "log.cleaner.min.compaction.lag.ms": "6",
            "log.cleaner.max.compaction.lag.ms": "7",
        }
    )
    assert (broker.delete_retention_ms, broker.min_cleanable_dirty_ratio) == (5, 0.25)
    assert (broker.min_compaction_lag_ms, broker.max_compaction_lag_ms) == (6, 7)
    for bad in ({"min.cleanable.dirty.ratio": "1.5"}, {"min.cleanable.dirty.ratio": "x"},
                {"max.compaction.lag.ms": "0"}, {"delete.retention.ms": "-1"}):
        with pytest.raises(KafkaError) as e:
            LogConfig.from_properties(bad)
        assert e.value.code == ErrorCode.INVALID_CONFIG
