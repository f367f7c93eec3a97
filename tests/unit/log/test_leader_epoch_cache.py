"""The leader epoch cache (pybroker.log.leader_epoch) and its place in a log: every rule of
``assign``, the two truncations, ``end_offset_for`` (OffsetForLeaderEpoch's answers), the
``leader-epoch-checkpoint`` file format, and how a log keeps the cache as it is appended to,
truncated, trimmed, reopened and recovered. Real files in a temporary directory."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.log import Log, LogConfig
from pybroker.log.checkpoints import CheckpointError
from pybroker.log.leader_epoch import (
    LEADER_EPOCH_CHECKPOINT,
    EpochEntry,
    LeaderEpochFileCache,
    format_leader_epoch_checkpoint,
    read_leader_epoch_checkpoint,
)
from tests.unit.protocol.records.helpers import value_batch

T0 = 1_700_000_000_000


def entries(cache: LeaderEpochFileCache) -> list[tuple[int, int]]:
    return [(e.epoch, e.start_offset) for e in cache.entries]


def cache_of(*pairs: tuple[int, int], path: Path | None = None) -> LeaderEpochFileCache:
    return LeaderEpochFileCache(path, [EpochEntry(e, o) for e, o in pairs])


# -- assign ----------------------------------------------------------------------------------


def test_assign_appends_a_newer_epoch_at_or_after_the_latest_start() -> None:
    cache = cache_of()
    assert cache.assign(0, 0) is True
    assert cache.assign(2, 150) is True
    assert cache.assign(5, 312) is True
    assert entries(cache) == [(0, 0), (2, 150), (5, 312)]
    assert cache.latest_epoch == 5 and cache.earliest_entry == EpochEntry(0, 0)


def test_an_epoch_starting_where_another_started_replaces_it() -> None:
    cache = cache_of((0, 0), (2, 150))
    assert cache.assign(5, 150) is True
    # an entry whose start is not below the new one's goes: epoch 2 wrote nothing
    assert entries(cache) == [(0, 0), (5, 150)]


def test_assign_of_the_latest_epoch_at_or_after_its_start_changes_nothing(tmp_path) -> None:
    path = tmp_path / LEADER_EPOCH_CHECKPOINT
    cache = cache_of((0, 0), (2, 150), path=path)
    cache.flush()
    written = path.stat().st_mtime_ns
    path.write_text("sentinel")  # proves the file is not rewritten
    assert cache.assign(2, 150) is False
    assert cache.assign(2, 400) is False
    assert path.read_text() == "sentinel" and written
    assert entries(cache) == [(0, 0), (2, 150)]


def test_assign_of_the_latest_epoch_below_its_start_moves_the_start_back() -> None:
    cache = cache_of((0, 0), (2, 150))
    assert cache.assign(2, 120) is True
    assert entries(cache) == [(0, 0), (2, 120)]


def test_assign_of_an_older_epoch_drops_every_entry_from_that_epoch_on() -> None:
    cache = cache_of((0, 0), (2, 150), (5, 312))
    assert cache.assign(1, 400) is True
    assert entries(cache) == [(0, 0), (1, 400)]


def test_assign_of_a_newer_epoch_below_later_starts_drops_those_entries() -> None:
    cache = cache_of((0, 0), (2, 150), (5, 312))
    assert cache.assign(7, 200) is True
    assert entries(cache) == [(0, 0), (2, 150), (7, 200)]


def test_assign_refuses_negative_epochs_and_offsets() -> None:
    cache = cache_of()
    with pytest.raises(ValueError):
        cache.assign(-1, 0)
    with pytest.raises(ValueError):
        cache.assign(0, -1)
    assert entries(cache) == []


def test_assign_writes_the_file_each_time_it_changes_something(tmp_path) -> None:
    path = tmp_path / LEADER_EPOCH_CHECKPOINT
    cache = LeaderEpochFileCache(path)
    assert not path.exists()
    cache.assign(3, 10)
    assert path.read_text() == "0\n1\n3 10\n"
    cache.assign(4, 20)
    assert path.read_text() == "0\n2\n3 10\n4 20\n"
    assert not (tmp_path / (LEADER_EPOCH_CHECKPOINT + ".tmp")).exists()


# -- truncation ------------------------------------------------------------------------------


def test_truncate_from_end_drops_the_epochs_starting_at_or_after_the_offset() -> None:
    cache = cache_of((0, 0), (2, 150), (5, 312))
    assert cache.truncate_from_end(400) is False  # nothing starts there
    assert cache.truncate_from_end(312) is True  # epoch 5 had no data below 312
    assert entries(cache) == [(0, 0), (2, 150)]
    assert cache.truncate_from_end(151) is False
    assert cache.truncate_from_end(-1) is False  # no offset: nothing to do
    assert cache.truncate_from_end(0) is True
    assert entries(cache) == []


def test_truncate_from_start_moves_the_first_surviving_epoch_to_the_new_start() -> None:
    cache = cache_of((0, 0), (2, 150), (5, 312))
    assert cache.truncate_from_start(0) is False  # already there
    assert cache.truncate_from_start(200) is True
    assert entries(cache) == [(2, 200), (5, 312)]
    assert cache.truncate_from_start(312) is True  # epoch 2's data is all gone
    assert entries(cache) == [(5, 312)]
    assert cache.truncate_from_start(1000) is True  # past everything: the latest epoch stays
    assert entries(cache) == [(5, 1000)]


def test_truncate_from_start_below_the_first_entry_changes_nothing() -> None:
    cache = cache_of((2, 150), (5, 312))
    assert cache.truncate_from_start(100) is False
    assert entries(cache) == [(2, 150), (5, 312)]


def test_clear_and_flush_empties_the_cache_and_its_file(tmp_path) -> None:
    path = tmp_path / LEADER_EPOCH_CHECKPOINT
    cache = cache_of((0, 0), (2, 5), path=path)
    cache.clear_and_flush()
    assert entries(cache) == [] and cache.latest_epoch is None
    assert path.read_text() == "0\n0\n"


# -- end_offset_for (OffsetForLeaderEpoch) ---------------------------------------------------


@pytest.mark.parametrize(("requested", "answer"), [
    (-1, (-1, -1)),  # undefined
    (5, (5, 400)),  # the latest epoch ends at the log end offset
    (6, (-1, -1)),  # above every epoch
    (0, (0, 150)),  # a known epoch: up to the next one's start
    (1, (0, 150)),  # a gap: the largest epoch below it, up to the next start
    (2, (2, 312)),
    (3, (2, 312)),
    (4, (2, 312)),
])
def test_end_offset_for(requested: int, answer: tuple[int, int]) -> None:
    cache = cache_of((0, 0), (2, 150), (5, 312))
    assert cache.end_offset_for(requested, 400) == answer


def test_end_offset_for_an_epoch_below_every_known_one_is_the_first_start() -> None:
    # the older epochs' data is gone; the fetcher may start from where the log now starts
    cache = cache_of((3, 100), (4, 150))
    assert cache.end_offset_for(1, 200) == (1, 100)


def test_end_offset_for_on_an_empty_cache_is_undefined() -> None:
    assert cache_of().end_offset_for(0, 10) == (-1, -1)
    assert cache_of().end_offset_for(-1, 10) == (-1, -1)


# -- the file --------------------------------------------------------------------------------


def test_the_file_round_trips_in_kafkas_format(tmp_path) -> None:
    path = tmp_path / LEADER_EPOCH_CHECKPOINT
    cache = cache_of((0, 0), (2, 150), (5, 312), path=path)
    cache.flush()
    assert path.read_text() == "0\n3\n0 0\n2 150\n5 312\n"
    again = read_leader_epoch_checkpoint(path)
    assert again == [EpochEntry(0, 0), EpochEntry(2, 150), EpochEntry(5, 312)]
    assert format_leader_epoch_checkpoint(again) == path.read_bytes()


def test_a_missing_file_is_none_and_an_empty_one_has_no_entries(tmp_path) -> None:
    path = tmp_path / LEADER_EPOCH_CHECKPOINT
    assert read_leader_epoch_checkpoint(path) is None
    path.write_bytes(b"")  # as Kafka creates it with each log
    assert read_leader_epoch_checkpoint(path) == []


@pytest.mark.parametrize("text", [
    "1\n0\n",  # an unknown version
    "0\n2\n0 0\n",  # fewer entries than counted
    "0\n1\n0 0\n1 5\n",  # more
    "0\n1\n0 0 7\n",  # three fields
    "0\n1\nzero 0\n",  # not a number
    "0\n",  # no count
    "x\n",
])
def test_a_malformed_file_is_a_checkpoint_error(tmp_path, text: str) -> None:
    path = tmp_path / LEADER_EPOCH_CHECKPOINT
    path.write_text(text)
    with pytest.raises(CheckpointError):
        read_leader_epoch_checkpoint(path)


def test_entries_read_out_of_order_keep_the_consistent_prefix() -> None:
    # loading goes through assign's rules: a later, lower epoch overrides what follows it
    cache = cache_of((0, 0), (4, 100), (2, 150))
    assert entries(cache) == [(0, 0), (2, 150)]


# -- in a log --------------------------------------------------------------------------------


def open_log(path: Path, logs: list[Log], **kw) -> Log:
    log = Log.open(path, LogConfig(), now_ms=T0, **kw)
    logs.append(log)
    return log


def records(n: int, *, base: int = 0, epoch: int = -1) -> bytearray:
    return value_batch(n, base_offset=base, partition_leader_epoch=epoch)


def lead(log: Log, n: int, epoch: int) -> None:
    log.append_as_leader(records(n), leader_epoch=epoch, now_ms=T0)


def test_a_leaders_appends_record_where_each_epoch_starts(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    lead(log, 3, 0)
    lead(log, 2, 0)
    lead(log, 4, 3)
    assert entries(log.leader_epoch_cache) == [(0, 0), (3, 5)]
    assert (tmp_path / "t-0" / LEADER_EPOCH_CHECKPOINT).read_text() == "0\n2\n0 0\n3 5\n"
    assert log.latest_epoch == 3
    assert log.end_offset_for_epoch(0) == (0, 5)
    assert log.end_offset_for_epoch(3) == (3, 9)  # the latest epoch: the log end
    assert log.end_offset_for_epoch(4) is None


def test_a_followers_appends_take_the_epochs_of_the_batches(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    data = records(2, epoch=1) + records(3, base=2, epoch=1) + records(1, base=5, epoch=4)
    info = log.append_as_follower(data, T0)
    assert (info.batches, info.last_offset, info.last_leader_epoch) == (3, 5, 4)
    assert entries(log.leader_epoch_cache) == [(1, 0), (4, 5)]


def test_a_follower_append_with_a_bad_crc_writes_nothing(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    good = records(2, epoch=1)
    bad = records(1, base=2, epoch=2)
    bad[-1] ^= 0xFF
    with pytest.raises(KafkaError) as e:
        log.append_as_follower(good + bad, T0)
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE
    assert log.log_end_offset == 0 and entries(log.leader_epoch_cache) == []


def test_truncation_drops_the_epochs_at_and_after_the_new_end(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    lead(log, 3, 0)
    lead(log, 3, 2)
    lead(log, 3, 5)
    log.truncate_to(6)
    assert log.log_end_offset == 6
    assert entries(log.leader_epoch_cache) == [(0, 0), (2, 3)]
    # a new leader's entry with no data yet goes even when nothing else is cut
    log.assign_epoch_start_offset(7, 6)
    log.truncate_to(6)
    assert entries(log.leader_epoch_cache) == [(0, 0), (2, 3)]


def test_truncating_everything_clears_the_cache(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    lead(log, 3, 0)
    lead(log, 3, 2)
    log.truncate_fully_and_start_at(20, T0)
    assert (log.log_start_offset, log.log_end_offset) == (20, 20)
    assert entries(log.leader_epoch_cache) == []
    assert (tmp_path / "t-0" / LEADER_EPOCH_CHECKPOINT).read_text() == "0\n0\n"


def test_moving_the_log_start_moves_the_first_epoch(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    lead(log, 3, 0)
    lead(log, 3, 2)
    lead(log, 3, 4)
    log.delete_records_before(4, T0)
    assert entries(log.leader_epoch_cache) == [(2, 4), (4, 6)]
    log.delete_records_before(7, T0)
    assert entries(log.leader_epoch_cache) == [(4, 7)]


def test_retention_moves_the_first_epoch_too(tmp_path, logs) -> None:
    log = Log.open(tmp_path / "t-0", LogConfig(retention_ms=1000), now_ms=T0)
    logs.append(log)
    lead(log, 2, 0)
    log.roll(T0)
    lead(log, 2, 1)
    log.roll(T0)
    lead(log, 2, 2)
    assert len(log.segments) == 3
    assert log.enforce_retention(T0 + 10_000) == 2
    assert log.log_start_offset == 4
    assert entries(log.leader_epoch_cache) == [(2, 4)]


def test_reopening_reads_the_file_and_cuts_it_to_the_log(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    lead(log, 3, 0)
    lead(log, 3, 2)
    log.close()
    # as after a crash: the file names an epoch whose data never reached the log
    path = tmp_path / "t-0" / LEADER_EPOCH_CHECKPOINT
    path.write_text("0\n3\n0 0\n2 3\n9 6\n")
    again = open_log(tmp_path / "t-0", logs)
    assert entries(again.leader_epoch_cache) == [(0, 0), (2, 3)]
    assert path.read_text() == "0\n2\n0 0\n2 3\n"


def test_reopening_cuts_the_cache_to_the_log_start(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    lead(log, 3, 0)
    lead(log, 3, 2)
    log.close()
    again = open_log(tmp_path / "t-0", logs, log_start_offset=4)
    assert entries(again.leader_epoch_cache) == [(2, 4)]


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_missing_or_corrupt_file_is_rebuilt_from_the_batches(tmp_path, logs, damage) -> None:
    log = open_log(tmp_path / "t-0", logs)
    lead(log, 3, 0)
    lead(log, 2, 0)
    lead(log, 3, 2)
    lead(log, 1, 6)
    log.close()
    path = tmp_path / "t-0" / LEADER_EPOCH_CHECKPOINT
    if damage == "missing":
        path.unlink()
    else:
        path.write_text("0\n2\nthis is not\n")
    again = open_log(tmp_path / "t-0", logs)
    assert entries(again.leader_epoch_cache) == [(0, 0), (2, 5), (6, 8)]
    assert path.read_text() == "0\n3\n0 0\n2 5\n6 8\n"


def test_a_new_log_writes_no_file_until_an_epoch_is_assigned(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    assert LEADER_EPOCH_CHECKPOINT not in log.files()
    log.assign_epoch_start_offset(0, 0)
    assert LEADER_EPOCH_CHECKPOINT in log.files()


# -- written behind, on the storage thread ----------------------------------------------------


class HeldIO:
    """A storage thread that runs nothing until told: ``run()`` does the queued writes in order,
    ``drop()`` loses them (a crash)."""

    def __init__(self) -> None:
        self.queue: list[tuple[object, tuple[object, ...]]] = []

    def __call__(self, fn, *args) -> None:
        self.queue.append((fn, args))

    def run(self) -> None:
        queued, self.queue = self.queue, []
        for fn, args in queued:
            fn(*args)  # type: ignore[operator]

    def drop(self) -> None:
        for _, args in self.queue:
            os.close(args[0])  # the directory descriptor each write holds
        self.queue.clear()


def test_with_io_each_change_is_written_later_whole_and_in_order(tmp_path) -> None:
    io = HeldIO()
    path = tmp_path / LEADER_EPOCH_CHECKPOINT
    cache = LeaderEpochFileCache(path, io=io)
    cache.assign(1, 0)
    cache.assign(3, 10)
    cache.truncate_from_end(10)
    assert not path.exists() and len(io.queue) == 3
    io.run()
    assert read_leader_epoch_checkpoint(path) == [EpochEntry(1, 0)]
    assert not (tmp_path / (LEADER_EPOCH_CHECKPOINT + ".tmp")).exists()


def cache_with_a_queued_write(tmp_path: Path) -> tuple[HeldIO, Path, LeaderEpochFileCache]:
    """A cache in ``t-0`` whose assignment of epoch 2 at offset 5 is queued, not written."""
    io = HeldIO()
    live = tmp_path / "t-0"
    live.mkdir()
    cache = LeaderEpochFileCache(live / LEADER_EPOCH_CHECKPOINT, io=io)
    cache.assign(2, 5)
    return io, live, cache


def test_a_write_follows_its_directory_through_a_rename(tmp_path) -> None:
    io, live, _ = cache_with_a_queued_write(tmp_path)
    # the topic is deleted (its directory renamed) and created again before the write is done
    doomed = tmp_path / "t-0.0123-delete"
    live.rename(doomed)
    live.mkdir()
    io.run()
    assert read_leader_epoch_checkpoint(doomed / LEADER_EPOCH_CHECKPOINT) == [EpochEntry(2, 5)]
    assert not (live / LEADER_EPOCH_CHECKPOINT).exists()


def test_a_write_for_a_removed_directory_is_dropped(tmp_path) -> None:
    io, live, cache = cache_with_a_queued_write(tmp_path)
    shutil.rmtree(live)
    io.run()  # logged, not raised
    assert not live.exists()
    cache.assign(3, 9)  # the directory is gone: nothing to queue
    assert io.queue == []


def test_epochs_whose_writes_a_crash_lost_come_back_from_the_recovered_batches(
        tmp_path, logs) -> None:
    io = HeldIO()
    log = open_log(tmp_path / "t-0", logs, io=io)
    lead(log, 3, 0)
    io.run()  # epoch 0 reached the file...
    lead(log, 2, 0)
    lead(log, 4, 3)
    log.append_as_follower(records(2, base=9, epoch=5), T0)
    io.drop()  # ...epochs 3 and 5 did not: the broker died with them queued
    for segment in log.segments:
        segment.close()
    log._closed = True
    assert read_leader_epoch_checkpoint(tmp_path / "t-0" / LEADER_EPOCH_CHECKPOINT) == [
        EpochEntry(0, 0)]
    again = open_log(tmp_path / "t-0", logs, clean_shutdown=False, recovery_point=0)
    assert entries(again.leader_epoch_cache) == [(0, 0), (3, 5), (5, 9)]
    assert again.end_offset_for_epoch(3) == (3, 9)


def test_a_clean_reopen_trusts_the_file(tmp_path, logs) -> None:
    log = open_log(tmp_path / "t-0", logs)
    lead(log, 3, 0)
    lead(log, 2, 4)
    log.close()
    again = open_log(tmp_path / "t-0", logs, clean_shutdown=True, recovery_point=5)
    assert entries(again.leader_epoch_cache) == [(0, 0), (4, 3)]
