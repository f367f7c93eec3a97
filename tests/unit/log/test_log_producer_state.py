"""Idempotent producer checks in the log and their persistence across restarts."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.record import build_batch
from pybroker.log import AppendInfo, Log, LogConfig
from tests.unit.log.helpers import OPENED as _opened

T0 = 1_700_000_000_000
PID = 4000


def produce(log: Log, seq: int, n: int = 1, *, pid: int = PID, epoch: int = 0, now_ms: int = T0) -> AppendInfo:
    batch = build_batch(
        [(None, b"v%d" % (seq + i), (), T0) for i in range(n)],
        producer_id=pid,
        producer_epoch=epoch,
        base_sequence=seq,
    )
    return log.append_as_leader(batch, leader_epoch=0, now_ms=now_ms)


def open_log(tmp_path: Path, *, clean: bool = True, **config: object) -> Log:
    log = Log.open(
        tmp_path / "idem-0",
        LogConfig(**config),  # type: ignore[arg-type]
        now_ms=T0,
        clean_shutdown=clean,
    )
    _opened.append(log)
    return log


def expect_error(code: ErrorCode, log: Log, *args: int, **kw: int) -> None:
    end = log.log_end_offset
    with pytest.raises(KafkaError) as e:
        produce(log, *args, **kw)
    assert e.value.code == code
    assert log.log_end_offset == end, "a rejected batch must not be appended"


def test_duplicate_returns_the_original_offsets_without_appending(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    first = produce(log, 0, 3)
    produce(log, 3, 2)
    size = log.active_segment.size
    again = produce(log, 0, 3)
    assert again.duplicate
    assert (again.first_offset, again.last_offset) == (first.first_offset, first.last_offset) == (0, 2)
    assert log.log_end_offset == 5 and log.active_segment.size == size


def test_duplicates_are_recognised_among_the_last_five_batches(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    for seq in range(7):
        produce(log, seq)
    for seq in range(2, 7):
        info = produce(log, seq)
        assert info.duplicate and info.first_offset == seq
    # Older than the five cached batches: neither a duplicate nor in sequence.
    expect_error(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, log, 1)


def test_sequence_gap_is_out_of_order(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    produce(log, 0, 2)
    expect_error(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, log, 3)
    # A partial overlap with a cached batch is not a duplicate either.
    expect_error(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, log, 1)
    assert produce(log, 2).first_offset == 2


def test_unknown_producer_is_accepted_at_any_sequence(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    assert produce(log, 42, pid=7).first_offset == 0
    assert produce(log, 43, pid=7).first_offset == 1


def test_epoch_rules(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    produce(log, 0, 2, epoch=3)
    expect_error(ErrorCode.INVALID_PRODUCER_EPOCH, log, 2, epoch=2)
    expect_error(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, log, 2, epoch=4)
    assert produce(log, 0, epoch=4).first_offset == 2
    # The old epoch is now fenced and the new one continues from its own sequence.
    expect_error(ErrorCode.INVALID_PRODUCER_EPOCH, log, 2, epoch=3)
    assert produce(log, 1, epoch=4).first_offset == 3


def test_sequence_wraps_after_int32_max(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    produce(log, 2**31 - 2, 2)  # sequences 2**31-2 and 2**31-1
    assert produce(log, 0).first_offset == 2
    assert produce(log, 2**31 - 2, 2).duplicate


def test_batches_without_producer_id_are_not_checked(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    batch = build_batch([(None, b"x", (), T0)])
    for offset in range(3):
        assert log.append_as_leader(bytearray(batch), leader_epoch=0, now_ms=T0).first_offset == offset


def test_state_survives_clean_close_and_open(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    produce(log, 0, 2, epoch=1)
    produce(log, 2, 2, epoch=1)
    log.close()
    assert (log.dir / f"{4:020d}.snapshot").exists()
    log = open_log(tmp_path, clean=True)
    info = produce(log, 2, 2, epoch=1)
    assert info.duplicate and info.first_offset == 2
    expect_error(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, log, 5, epoch=1)
    expect_error(ErrorCode.INVALID_PRODUCER_EPOCH, log, 4, epoch=0)
    assert produce(log, 4, epoch=1).first_offset == 4


def test_state_is_rebuilt_from_the_log_without_a_snapshot(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    for seq in range(0, 6, 2):
        produce(log, seq, 2)
    log.close()
    for snap in log.dir.glob("*.snapshot"):
        snap.unlink()
    log = open_log(tmp_path, clean=False)
    assert produce(log, 4, 2).duplicate
    expect_error(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, log, 7)
    assert produce(log, 6).first_offset == 6


def test_snapshot_plus_replay_after_a_crash(tmp_path: Path) -> None:
    size = len(build_batch([(None, b"v0", (), T0)], producer_id=PID, producer_epoch=0, base_sequence=0))
    log = open_log(tmp_path, segment_bytes=size * 2)
    for seq in range(5):
        produce(log, seq)
    # Rolls wrote snapshots at the new segments' base offsets; the process then "crashes"
    # (no close), so the last batch is only in the log.
    assert sorted(p.name for p in log.dir.glob("*.snapshot")) == [f"{2:020d}.snapshot", f"{4:020d}.snapshot"]
    reopened = open_log(tmp_path, clean=False, segment_bytes=size * 2)
    assert produce(reopened, 4).duplicate
    assert produce(reopened, 5).first_offset == 5


def test_a_corrupt_snapshot_falls_back_to_replay(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    produce(log, 0, 3)
    log.close()
    snap = log.dir / f"{3:020d}.snapshot"
    data = bytearray(snap.read_bytes())
    data[-1] ^= 0xFF
    snap.write_bytes(bytes(data))
    log = open_log(tmp_path, clean=True)
    assert produce(log, 0, 3).duplicate
    expect_error(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, log, 4)


def test_snapshots_past_a_recovered_tail_are_discarded(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    produce(log, 0, 2)
    produce(log, 2, 2)
    log.close()
    seg = log.dir / f"{0:020d}.log"
    seg.write_bytes(seg.read_bytes()[:-5])  # tear the second batch
    log = open_log(tmp_path, clean=False)
    assert log.log_end_offset == 2
    assert not (log.dir / f"{4:020d}.snapshot").exists()
    # Sequence 2 was lost with the torn batch, so the producer may (and must) resend it.
    info = produce(log, 2, 2)
    assert not info.duplicate and info.first_offset == 2


def test_truncation_rolls_producer_state_back(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    produce(log, 0, 2)
    produce(log, 2, 2)
    log.truncate_to(2)
    assert log.log_end_offset == 2
    info = produce(log, 2, 2)
    assert not info.duplicate and info.first_offset == 2


def test_expired_producers_are_forgotten(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    produce(log, 0)
    assert log.remove_expired_producers(T0 + 1000) == 0
    assert log.remove_expired_producers(T0 + 86_400_001) == 1
    assert produce(log, 17).first_offset == 1  # unknown again: any sequence
