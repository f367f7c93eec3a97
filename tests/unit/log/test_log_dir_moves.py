"""Future logs in the LogManager (moving a partition between log dirs): their names, creation,
checkpoints and loading, the swap that ends a move (with what it carries over from the current
log), crashes between its renames, and the log cleaner around a move. Real logs in temporary
directories; the mover that fills future logs is tested in test_alter_log_dirs.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import KafkaError
from protocol.records.control import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from protocol.records.record import build_batch
from pybroker.log import FileSlice, LogConfig, LogManager
from pybroker.log.checkpoints import (
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    read_offset_checkpoint,
)
from pybroker.log.cleaner import LogCleaner
from pybroker.log.cleaner_manager import CLEANER_CHECKPOINT
from pybroker.log.file_slice import SEGMENT_FILES
from pybroker.log.leader_epoch import (
    LEADER_EPOCH_CHECKPOINT,
    EpochEntry,
    read_leader_epoch_checkpoint,
)
from pybroker.log.log import Log
from pybroker.log.manager import (
    FUTURE_DIR_SUFFIX,
    future_dir_name,
    future_dir_name_fits,
    parse_future_dir,
)
from pybroker.log.producer_state import AppendOrigin
from pybroker.log.txn_index import AbortedTxn
from tests.unit.log.helpers import log_batches as batches
from tests.unit.protocol.records.helpers import value_batch

T0 = 1_700_000_000_000
CONFIG = LogConfig()
TP = ("t", 0)


@pytest.fixture
def manager(dirs: list[Path]) -> Iterator[LogManager]:
    m = LogManager(dirs, CONFIG)
    m.startup(T0)
    yield m
    m.shutdown()


def records(n: int, tag: bytes = b"v", **kw: object) -> bytearray:
    return value_batch(n, tag=tag, ts_step=0, **kw)


def fill(log: Log, batches: int, *, epoch: int = 0, size: int = 3) -> None:
    for _ in range(batches):
        log.append_as_leader(records(size), leader_epoch=epoch, now_ms=T0)


def copy_all(source: Log, dest: Log) -> None:
    """What the mover does, in one go: the source's batches from the dest's end."""
    while dest.log_end_offset < source.log_end_offset:
        data = source.read(dest.log_end_offset, 1 << 20).records
        assert isinstance(data, FileSlice)
        dest.append_as_follower(data.read_bytes(), T0, allow_offset_gaps=True)


def place_in(manager: LogManager, log_dir: Path, topic: str = "t", partition: int = 0) -> Log:
    manager.maybe_update_preferred_log_dir(topic, partition, log_dir)
    return manager.get_or_create_log(topic, partition, CONFIG, T0)


# -- names ---------------------------------------------------------------------------------------


def test_future_dir_names_are_kafkas() -> None:
    name = future_dir_name("orders-eu", 12)
    stem, _, rest = name.partition(".")
    assert stem == "orders-eu-12" and rest.endswith(FUTURE_DIR_SUFFIX)
    assert len(rest) == 32 + len(FUTURE_DIR_SUFFIX) and rest[:32].isalnum()
    assert parse_future_dir(name) == ("orders-eu", 12)
    assert parse_future_dir("orders-eu-12") is None
    assert parse_future_dir("orders-eu-12.0123-future") is None
    assert parse_future_dir(name.replace("-future", "-delete")) is None
    # 255 characters at most: "<topic>-0." + 32 + "-future" leaves 213 for the topic
    assert future_dir_name_fits("x" * 213, 0)
    assert not future_dir_name_fits("x" * 214, 0)
    assert not future_dir_name_fits("x" * 213, 10)


# -- creating, checkpointing and loading future logs ---------------------------------------------


def test_a_future_log_is_created_beside_nothing_and_checkpointed_in_its_dir(
        manager: LogManager, dirs: list[Path]) -> None:
    a, b = dirs
    current = place_in(manager, a)
    fill(current, 2)
    with pytest.raises(ValueError):
        manager.create_future_log("t", 0, a, CONFIG, T0)  # its own dir
    with pytest.raises(ValueError):
        manager.create_future_log("u", 0, b, CONFIG, T0)  # no log to move
    future = manager.create_future_log("t", 0, b, CONFIG, T0)
    with pytest.raises(ValueError):
        manager.create_future_log("t", 0, b, CONFIG, T0)  # once
    assert future.dir.parent == b and parse_future_dir(future.dir.name) == TP
    assert (future.topic, future.partition) == TP
    assert manager.get_future_log(*TP) is future and manager.future_log_dir_of(*TP) == b
    assert manager.get_log(*TP) is current and manager.log_dir_of(*TP) == a
    assert TP not in manager.all_logs() or manager.all_logs()[TP] is current
    copy_all(current, future)
    manager.checkpoint()
    assert read_offset_checkpoint(a / RECOVERY_POINT_CHECKPOINT) == {TP: current.recovery_point}
    assert read_offset_checkpoint(b / RECOVERY_POINT_CHECKPOINT) == {TP: future.recovery_point}
    assert TP in read_offset_checkpoint(b / LOG_START_OFFSET_CHECKPOINT)


def test_a_restart_finds_the_future_log_where_it_was(dirs: list[Path]) -> None:
    a, b = dirs
    m = LogManager(dirs, CONFIG)
    m.startup(T0)
    fill(place_in(m, a), 3)
    future = m.create_future_log("t", 0, b, CONFIG, T0)
    copy_all(m.get_log(*TP), future)  # type: ignore[arg-type]
    fill(m.get_log(*TP), 1)  # type: ignore[arg-type]
    m.shutdown()

    again = LogManager(dirs, CONFIG)
    again.startup(T0)
    try:
        assert again.log_dir_of(*TP) == a and again.future_log_dir_of(*TP) == b
        assert again.is_cleaning_paused(*TP)
        reloaded = again.get_future_log(*TP)
        assert reloaded is not None and reloaded.log_end_offset == 9
        assert again.get_log(*TP).log_end_offset == 12  # type: ignore[union-attr]
    finally:
        again.shutdown()


def test_deleting_a_partition_deletes_its_future_log_first(manager: LogManager,
                                                          dirs: list[Path]) -> None:
    a, b = dirs
    fill(place_in(manager, a), 1)
    future = manager.create_future_log("t", 0, b, CONFIG, T0)
    manager.abort_and_pause_cleaning(*TP)
    manager.delete_log(*TP)
    assert manager.get_future_log(*TP) is None and manager.get_log(*TP) is None
    assert not future.dir.exists() and not [p for p in b.iterdir() if p.is_dir()]
    assert not [p for p in a.iterdir() if p.is_dir()]
    assert not manager.is_cleaning_paused(*TP)


def test_a_preferred_dir_places_the_partitions_creation_once(manager: LogManager,
                                                            dirs: list[Path]) -> None:
    a, b = dirs
    manager.get_or_create_log("x", 0, CONFIG, T0)  # in a (least loaded, first)
    manager.maybe_update_preferred_log_dir("t", 0, a)
    assert manager.preferred_log_dir("t", 0) == a
    assert manager.log_dir_of("t", 0) is None
    manager.get_or_create_log("t", 0, CONFIG, T0)
    assert manager.log_dir_of("t", 0) == a, "the preferred dir wins over the least loaded"
    assert manager.preferred_log_dir("t", 0) is None
    # the dir holding the partition already is never remembered
    manager.maybe_update_preferred_log_dir("t", 0, a)
    assert manager.preferred_log_dir("t", 0) is None
    assert manager.find_log_dir(str(b.absolute())) == b
    assert manager.find_log_dir(str(b)) == b  # tmp_path is absolute
    assert manager.find_log_dir(str(b / "..")) is None
    assert manager.find_log_dir("/nowhere") is None


# -- the swap ----------------------------------------------------------------------------------


def test_the_swap_renames_both_dirs_and_keeps_old_slices_readable(
        manager: LogManager, dirs: list[Path]) -> None:
    a, b = dirs
    current = place_in(manager, a)
    fill(current, 5)
    future = manager.create_future_log("t", 0, b, CONFIG, T0)
    copy_all(current, future)
    manager.abort_and_pause_cleaning(*TP)
    held = current.read(3, 1 << 20).records  # a fetch response not sent yet
    assert isinstance(held, FileSlice)
    expected = held.read_bytes()

    new = manager.replace_current_with_future("t", 0, T0)

    assert manager.get_log(*TP) is new and manager.log_dir_of(*TP) == b
    assert manager.get_future_log(*TP) is None and manager.future_log_dir_of(*TP) is None
    assert new.dir == b / "t-0" and new.log_end_offset == 15
    assert batches(new) == batches(current)
    assert not (a / "t-0").exists()
    doomed = [p for p in a.iterdir() if p.is_dir()]
    assert len(doomed) == 1 and doomed[0].name.startswith("t-0.") \
        and doomed[0].name.endswith("-delete")
    assert not [p for p in b.iterdir() if p.name.endswith(FUTURE_DIR_SUFFIX)]
    assert not manager.is_cleaning_paused(*TP)
    # the held slice still reads, even once its descriptor was closed
    for segment in current.segments:
        SEGMENT_FILES.forget(segment)
    assert held.read_bytes() == expected
    # both dirs' checkpoints say where the partition is now
    assert TP not in read_offset_checkpoint(a / RECOVERY_POINT_CHECKPOINT)
    assert TP in read_offset_checkpoint(b / RECOVERY_POINT_CHECKPOINT)
    # the old log goes file.delete.delay.ms later
    assert manager.delete_due_logs(T0) == 0 and doomed[0].exists()
    assert manager.delete_due_logs(T0 + CONFIG.file_delete_delay_ms) == 1
    assert not doomed[0].exists()
    # the new log takes appends
    fill(new, 1)
    assert new.log_end_offset == 18


def test_a_swap_that_fails_leaves_the_partition_where_it_was(
        manager: LogManager, dirs: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = dirs
    current = place_in(manager, a)
    fill(current, 3)
    future = manager.create_future_log("t", 0, b, CONFIG, T0)
    copy_all(current, future)
    manager.abort_and_pause_cleaning(*TP)

    def broken(*_args: object, **_kwargs: object) -> Log:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(Log, "open", broken)
    with pytest.raises(OSError):
        manager.replace_current_with_future("t", 0, T0)
    monkeypatch.undo()
    assert manager.get_log(*TP) is current and manager.log_dir_of(*TP) == a
    assert current.dir == a / "t-0" and current.dir.is_dir()
    assert manager.get_future_log(*TP) is None
    assert not [p for p in b.iterdir() if p.is_dir()], "the copy is gone"
    assert not manager.is_cleaning_paused(*TP)
    fill(current, 1)
    assert batches(current)[-1] and current.log_end_offset == 12


def test_the_swap_refuses_a_future_log_that_has_not_caught_up(manager: LogManager,
                                                              dirs: list[Path]) -> None:
    a, b = dirs
    current = place_in(manager, a)
    fill(current, 2)
    manager.create_future_log("t", 0, b, CONFIG, T0)
    with pytest.raises(ValueError):
        manager.replace_current_with_future("t", 0, T0)
    assert manager.log_dir_of(*TP) == a


def test_the_swap_carries_over_what_the_copy_cannot_rebuild(dirs: list[Path]) -> None:
    """A transaction open across the future log's start, an aborted one, producers known
    only from before that start, and an epoch started with nothing written yet."""
    a, b = dirs
    manager = LogManager(dirs, CONFIG)
    manager.startup(T0)
    current = place_in(manager, a)
    idempotent = build_batch([(None, b"i", (), T0)], producer_id=7, producer_epoch=0,
                             base_sequence=0)
    current.append_as_leader(idempotent, leader_epoch=0, now_ms=T0)  # offset 0
    txn = lambda seq: build_batch([(None, b"x", (), T0)], producer_id=9,  # noqa: E731
                                  producer_epoch=0, base_sequence=seq, is_transactional=True)
    current.append_as_leader(txn(0), leader_epoch=0, now_ms=T0)  # offset 1: opens it
    fill(current, 1, epoch=1)  # offsets 2-4
    current.delete_records_before(3, T0)  # the log now starts inside the transaction
    current.append_as_leader(txn(1), leader_epoch=1, now_ms=T0)  # 5
    abort = build_end_txn_marker_batch(9, 0, EndTransactionMarker(ControlRecordType.ABORT, 0),
                                       timestamp=T0)
    current.append_as_leader(abort, leader_epoch=1, now_ms=T0, origin=AppendOrigin.COORDINATOR)
    current.assign_epoch_start_offset(2, current.log_end_offset)  # a new leader, no data yet
    assert current.leader_epoch_cache.entries[-1] == EpochEntry(2, 7)

    future = manager.create_future_log("t", 0, b, CONFIG, T0)
    # what the mover does: the log start 3 is inside the batch at 2, so start there
    first = current.read(3, 1 << 20).records
    assert isinstance(first, FileSlice)
    future.truncate_fully_and_start_at(2, T0)
    future.append_as_follower(first.read_bytes(), T0)
    copy_all(current, future)
    future.delete_records_before(3, T0)
    # the copy alone got these wrong
    assert 7 not in future.producer_state.producers
    assert [t.first_offset for s in future.segments for t in s.txn_index.entries] == [5]
    assert future.leader_epoch_cache.entries[-1].epoch == 1

    new = manager.replace_current_with_future("t", 0, T0)
    assert set(new.producer_state.producers) == {7, 9}
    assert [t for s in new.segments for t in s.txn_index.entries] == [
        AbortedTxn(9, 1, 6, 7)]
    assert new.leader_epoch_cache.entries == current.leader_epoch_cache.entries
    assert new.collect_aborted_transactions(3, 7) == [AbortedTxn(9, 1, 6, 7)]
    # and all of it holds after a restart
    manager.shutdown()
    again = LogManager(dirs, CONFIG)
    again.startup(T0)
    try:
        reloaded = again.get_log(*TP)
        assert reloaded is not None and again.log_dir_of(*TP) == b
        assert set(reloaded.producer_state.producers) == {7, 9}
        assert reloaded.collect_aborted_transactions(3, 7) == [AbortedTxn(9, 1, 6, 7)]
        assert reloaded.log_start_offset == 3 and reloaded.log_end_offset == 7
    finally:
        again.shutdown()


def test_the_swap_keeps_epochs_whose_checkpoint_writes_are_still_queued(
        dirs: list[Path]) -> None:
    """With the checkpoint written on the storage thread, the swap reopens the future log
    before that thread has written its last epoch: the epochs carried over from the current
    log put it back, and the queued writes then leave the file right."""
    a, b = dirs
    queued: list[tuple[object, tuple[object, ...]]] = []
    manager = LogManager(dirs, CONFIG, io=lambda fn, *args: queued.append((fn, args)))
    manager.startup(T0)
    try:
        current = place_in(manager, a)
        fill(current, 2, epoch=0)
        future = manager.create_future_log("t", 0, b, CONFIG, T0)
        copy_all(current, future)
        for fn, args in queued:
            fn(*args)  # type: ignore[operator]
        queued.clear()  # epoch 0 is in the future log's file; epoch 4 will not be yet
        fill(current, 2, epoch=4)
        copy_all(current, future)
        new = manager.replace_current_with_future("t", 0, T0)
        assert new.leader_epoch_cache.entries == (EpochEntry(0, 0), EpochEntry(4, 6))
        for fn, args in queued:
            fn(*args)  # type: ignore[operator]
        assert read_leader_epoch_checkpoint(new.dir / LEADER_EPOCH_CHECKPOINT) == [
            EpochEntry(0, 0), EpochEntry(4, 6)]
    finally:
        manager.shutdown()


def test_a_crash_between_the_renames_completes_the_move_at_start_up(dirs: list[Path]) -> None:
    a, b = dirs
    m = LogManager(dirs, CONFIG)
    m.startup(T0)
    current = place_in(m, a)
    fill(current, 4)
    future = m.create_future_log("t", 0, b, CONFIG, T0)
    copy_all(current, future)
    m.shutdown()
    # the first rename of the swap happened, the second did not
    (a / "t-0").rename(a / "t-0.0123456789abcdef0123456789abcdef-delete")

    again = LogManager(dirs, CONFIG)
    again.startup(T0)
    try:
        promoted = again.get_log(*TP)
        assert promoted is not None and again.log_dir_of(*TP) == b
        assert promoted.dir == b / "t-0" and promoted.log_end_offset == 12
        assert again.get_future_log(*TP) is None
        assert not [p for p in a.iterdir() if p.is_dir()], "the -delete dir is removed"
    finally:
        again.shutdown()


def test_the_cleaner_leaves_a_moving_partition_alone_and_keeps_its_checkpoint(
        dirs: list[Path]) -> None:
    a, b = dirs
    compacted = LogConfig(cleanup_policy="compact", segment_bytes=1024,
                          min_cleanable_dirty_ratio=0.01)
    m = LogManager(dirs, compacted)
    m.startup(T0)
    cleaner = LogCleaner(m)
    try:
        m.maybe_update_preferred_log_dir("t", 0, a)
        log = m.get_or_create_log("t", 0, compacted, T0)
        for i in range(60):
            log.append_as_leader(build_batch([(b"k%d" % (i % 3), b"v%d" % i, (), T0)]),
                                 leader_epoch=0, now_ms=T0)
        m.abort_and_pause_cleaning(*TP)
        assert cleaner.grab_filthiest_log(T0) is None
        m.resume_cleaning(*TP)
        stats = cleaner.clean_once(T0)
        assert stats is not None and stats.end_offset > 0
        first_dirty = cleaner.checkpoint_of(*TP)
        assert first_dirty == stats.end_offset
        # the move copies the cleaned log, gaps included
        future = m.create_future_log("t", 0, b, compacted, T0)
        m.abort_and_pause_cleaning(*TP)
        copy_all(log, future)
        assert batches(future) == batches(log)
        new = m.replace_current_with_future("t", 0, T0)
        assert cleaner.checkpoint_of(*TP) == first_dirty
        assert read_offset_checkpoint(b / CLEANER_CHECKPOINT) == {TP: first_dirty}
        assert TP not in read_offset_checkpoint(a / CLEANER_CHECKPOINT)
        assert m.get_log(*TP) is new
    finally:
        m.shutdown()


def test_a_follower_append_keeps_offset_gaps_only_when_asked(manager: LogManager,
                                                            dirs: list[Path]) -> None:
    log = place_in(manager, dirs[0])
    later = records(2, base_offset=5)
    with pytest.raises(KafkaError):
        log.append_as_follower(later, T0)
    info = log.append_as_follower(later, T0, allow_offset_gaps=True)
    assert (info.first_offset, log.log_end_offset) == (5, 7)
    with pytest.raises(KafkaError):  # never backwards
        log.append_as_follower(records(1, base_offset=6), T0, allow_offset_gaps=True)
