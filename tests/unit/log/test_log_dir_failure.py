"""Log dir failures (KIP-112) below the broker processes: a write that fails part-way leaves no
byte its segment does not account for; a log that meets an I/O error reports its dir to the
failure channel and fails with KAFKA_STORAGE_ERROR from then on; the log manager takes a failed
dir out of service (its logs closed and forgotten, no checkpoint or clean-shutdown marker there,
nothing created there, and no log of an existing replica created anywhere while it is offline);
start-up leaves an unusable dir offline and loads the others; the storage thread's failures
count as the dir's; the replica manager's partitions in the dir go offline and answer
KAFKA_STORAGE_ERROR, LeaderAndIsr included; and a follower whose append fails stops fetching.

The faults here are made where the storage path meets the system: ``os.write`` and
``os.fsync`` raising as a full or broken disk makes them raise (the cluster tests fill a real
file system and break a real fsync, ``tests/cluster/test_log_dir_failure.py``).
"""

from __future__ import annotations

import asyncio
import errno
import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import crc_is_valid
from protocol.records.record import build_batch, iter_batches
from pybroker.cluster.control import ControlRequestHandler, LeaderAndIsrPartition
from pybroker.cluster.metadata_cache import MetadataCache
from pybroker.cluster.replica_fetch import FetchParams, FetchRequestPartition
from pybroker.cluster.replica_manager import ReplicaManager
from pybroker.log import LogConfig, LogManager
from pybroker.log.checkpoints import (
    CLEAN_SHUTDOWN_MARKER,
    RECOVERY_POINT_CHECKPOINT,
    read_offset_checkpoint,
)
from pybroker.log.dir_failure import LogDirFailureChannel, log_dir_key, reporting
from pybroker.log.log import Log
from pybroker.log.manager import BackgroundIO, LogDirError, write_offset_checkpoints
from pybroker.log.segment import LogSegment
from pybroker.metadata.model import PartitionRecord
from tests.unit.cluster.replication_harness import TP, Cluster, follow, produce, rounds, run
from tests.unit.protocol.records.helpers import value_batch

T0 = 1_700_000_000_000
CONFIG = LogConfig()
NO_ID = uuid.UUID(int=0)


def batch(n: int = 3, tag: bytes = b"v", base: int = 0) -> bytearray:
    return value_batch(n, tag=tag, ts_step=0, base_offset=base)


@contextmanager
def disk_full_after(written: int) -> Iterator[list[int]]:
    """``os.write`` as on a disk with ``written`` bytes left: what fits is written, then
    ENOSPC; the list gets each call's size."""
    real = os.write
    left = [written]
    calls: list[int] = []

    def write(fd: int, data: object) -> int:
        view = memoryview(data)  # type: ignore[arg-type]
        calls.append(len(view))
        if left[0] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = real(fd, view[: left[0]])
        left[0] -= n
        return n

    os.write = write  # type: ignore[assignment]
    try:
        yield calls
    finally:
        os.write = real  # type: ignore[assignment]


def failing_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    def fsync(_fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)


# -- the segment ------------------------------------------------------------------------------


def test_a_write_that_fails_part_way_is_cut_back_off_the_segment(tmp_path: Path) -> None:
    segment = LogSegment(tmp_path, 0, CONFIG, T0)
    first = batch(3)
    segment.append(first, 0, 2, T0, T0)
    second = batch(5, base=3)
    with disk_full_after(len(second) // 2) as calls, pytest.raises(OSError) as raised:
        segment.append(second, 3, 7, T0, T0)
    assert raised.value.errno == errno.ENOSPC
    assert calls[0] == len(second) and len(calls) == 2  # half written, then ENOSPC
    # nothing of the torn batch is left: file, size and next offset agree
    assert os.path.getsize(segment.log_path) == segment.size == len(first)
    assert segment.next_offset == 3
    # the space is back: the next append lands where the torn one began, and reads back whole
    segment.append(second, 3, 7, T0, T0)
    data = segment.log_path.read_bytes()
    assert [h.base_offset for _, h in iter_batches(data)] == [0, 3]
    assert all(crc_is_valid(data, pos, h) for pos, h in iter_batches(data))
    assert segment.recover() == (0, None)
    segment.close()


# -- the log ----------------------------------------------------------------------------------


def open_log(path: Path, failures: LogDirFailureChannel | None) -> Log:
    return Log.open(path, CONFIG, now_ms=T0, failures=failures)


def test_an_append_that_fails_reports_the_dir_and_fails_every_later_operation(
        tmp_path: Path) -> None:
    failures = LogDirFailureChannel()
    log = open_log(tmp_path / "t-0", failures)
    log.append_as_leader(batch(), leader_epoch=0, now_ms=T0)
    with disk_full_after(10), pytest.raises(KafkaError) as raised:
        log.append_as_leader(batch(), leader_epoch=0, now_ms=T0)
    assert raised.value.code == ErrorCode.KAFKA_STORAGE_ERROR
    assert "Error while appending records to t-0 in dir" in (raised.value.message or "")
    assert list(failures.offline_dirs) == [log_dir_key(tmp_path)]
    assert "No space left on device" in failures.offline_dirs[log_dir_key(tmp_path)]
    assert log.offline and log.log_end_offset == 3
    assert os.path.getsize(log.active_segment.log_path) == log.active_segment.size
    # the disk may have room again: the log still takes nothing, and reads nothing
    for operation in (lambda: log.append_as_leader(batch(), leader_epoch=0, now_ms=T0),
                      lambda: log.read(0, 1000), lambda: log.truncate_to(1),
                      lambda: log.flush()):
        with pytest.raises(KafkaError) as again:
            operation()
        assert again.value.code == ErrorCode.KAFKA_STORAGE_ERROR
        assert "is offline" in (again.value.message or "")
    log.mark_offline()
    assert os.path.getsize(log.active_segment.log_path) == 1 * len(batch())


def test_without_a_channel_the_error_is_only_raised(tmp_path: Path) -> None:
    log = open_log(tmp_path / "t-0", None)
    with disk_full_after(0), pytest.raises(KafkaError) as raised:
        log.append_as_leader(batch(), leader_epoch=0, now_ms=T0)
    assert raised.value.code == ErrorCode.KAFKA_STORAGE_ERROR
    assert not log.offline
    log.append_as_leader(batch(), leader_epoch=0, now_ms=T0)  # a tool may go on
    assert log.log_end_offset == 3
    log.close()


def test_a_follower_append_that_fails_keeps_the_batches_written_before(tmp_path: Path) -> None:
    failures = LogDirFailureChannel()
    log = open_log(tmp_path / "t-0", failures)
    fetched = (build_batch([(None, b"a", (), T0)] * 2, base_offset=0, partition_leader_epoch=1)
               + build_batch([(None, b"b", (), T0)] * 3, base_offset=2, partition_leader_epoch=1))
    first = len(fetched) - len(build_batch([(None, b"b", (), T0)] * 3, base_offset=2))
    with disk_full_after(first + 20), pytest.raises(KafkaError):
        log.append_as_follower(fetched, T0)
    assert log.log_end_offset == 2
    assert os.path.getsize(log.active_segment.log_path) == first
    log.mark_offline()
    again = open_log(tmp_path / "t-0", None)  # as recovery after the broker halted
    assert again.log_end_offset == 2
    again.close()


def test_an_fsync_that_fails_on_the_storage_thread_fails_the_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    failures = LogDirFailureChannel()
    io = BackgroundIO()
    try:
        submit = reporting(io.submit, failures, tmp_path, "Error while flushing")
        (tmp_path / "f").write_bytes(b"x")
        failing_fsync(monkeypatch)
        from pybroker.log.checkpoints import fsync_paths
        done = submit(fsync_paths, [tmp_path / "f"])
        with pytest.raises(OSError):
            done.result(5)  # type: ignore[attr-defined]
    finally:
        io.close()
    assert failures.is_offline(tmp_path)


# -- the failure channel ----------------------------------------------------------------------


def test_the_channel_hands_each_dir_to_the_handler_once_on_the_loop(tmp_path: Path) -> None:
    failures = LogDirFailureChannel()
    early = tmp_path / "early"
    assert failures.maybe_add_offline_log_dir(early, "before the broker runs")
    assert not failures.maybe_add_offline_log_dir(early, "again")
    handled: list[tuple[Path, str]] = []

    async def main() -> None:
        failures.set_handler(lambda d: handled.append((d, threading.current_thread().name)))
        late = tmp_path / "late"
        reporter = threading.Thread(
            target=lambda: failures.maybe_add_offline_log_dir(late, "from the storage thread",
                                                              OSError(errno.EIO, "EIO")),
            name="storage-io")
        reporter.start()
        reporter.join()
        failures.maybe_add_offline_log_dir(str(late) + "/", "the same dir, spelled otherwise")
        for _ in range(10):
            await asyncio.sleep(0)

    asyncio.run(main())
    loop_thread = threading.current_thread().name
    assert handled == [(log_dir_key(early), loop_thread),
                       (log_dir_key(tmp_path / "late"), loop_thread)]


# -- the log manager --------------------------------------------------------------------------


def place(manager: LogManager, topic: str, log_dir: Path) -> Log:
    manager.maybe_update_preferred_log_dir(topic, 0, log_dir)
    log = manager.get_or_create_log(topic, 0, CONFIG, T0)
    log.append_as_leader(batch(), leader_epoch=0, now_ms=T0)
    return log


def test_a_failed_dir_is_taken_out_of_service(dirs: list[Path]) -> None:
    a, b = dirs
    manager = LogManager(dirs, CONFIG)
    manager.startup(T0)
    in_a, in_b = place(manager, "x", a), place(manager, "y", b)
    assert manager.handle_log_dir_failure(a) == ([("x", 0)], [])
    assert manager.handle_log_dir_failure(a) == ([], [])
    assert manager.live_log_dirs == [b] and manager.offline_log_dirs == [a]
    assert not manager.is_log_dir_online(a) and manager.is_log_dir_online(b)
    assert manager.get_log("x", 0) is None and manager.get_log("y", 0) is in_b
    assert in_a.offline
    assert [path.parent for path, _ in manager.checkpoint_contents()] == [b, b]
    # an existing replica's log is not made afresh while its dir may be the offline one...
    with pytest.raises(KafkaError) as refused:
        manager.get_or_create_log("x", 0, CONFIG, T0, is_new=False)
    assert refused.value.code == ErrorCode.KAFKA_STORAGE_ERROR
    assert "log directories" in (refused.value.message or "") and str(a) in refused.value.message
    # ...while a new one goes to a live dir, even one asked for the offline dir
    manager.maybe_update_preferred_log_dir("z", 0, a)
    manager.get_or_create_log("z", 0, CONFIG, T0)
    assert manager.log_dir_of("z", 0) == b
    (a / RECOVERY_POINT_CHECKPOINT).unlink()
    manager.shutdown()
    assert (b / CLEAN_SHUTDOWN_MARKER).exists() and not (a / CLEAN_SHUTDOWN_MARKER).exists()
    assert not (a / RECOVERY_POINT_CHECKPOINT).exists()  # nothing written there any more
    assert read_offset_checkpoint(b / RECOVERY_POINT_CHECKPOINT) == {("y", 0): 3, ("z", 0): 0}


def test_start_up_leaves_an_unusable_dir_offline_and_loads_the_others(
        dirs: list[Path]) -> None:
    a, b = dirs
    first = LogManager(dirs, CONFIG)
    first.startup(T0)
    place(first, "x", a)
    place(first, "y", b)
    first.shutdown()
    broken = a / "x-0" / "00000000000000000000.log"
    broken.unlink()
    broken.mkdir()  # a segment that cannot be opened: an I/O error in dir a
    failures = LogDirFailureChannel()
    manager = LogManager(dirs, CONFIG, failures=failures)
    manager.startup(T0)
    assert manager.live_log_dirs == [b]
    assert manager.get_log("x", 0) is None and manager.get_log("y", 0) is not None
    assert list(failures.offline_dirs) == [log_dir_key(a)]
    manager.shutdown()


def test_start_up_with_no_usable_dir_names_every_dir(tmp_path: Path) -> None:
    files = [tmp_path / "a", tmp_path / "b"]
    for f in files:
        f.write_text("not a directory")
    with pytest.raises(LogDirError) as raised:
        LogManager(files, CONFIG).startup(T0)
    assert "all log dirs" in str(raised.value)
    assert str(files[0]) in str(raised.value) and str(files[1]) in str(raised.value)
    with pytest.raises(LogDirError) as one:
        LogManager(files[:1], CONFIG).startup(T0)
    assert str(one.value).startswith(f"log dir {files[0]} cannot be used:")


def test_a_checkpoint_that_cannot_be_written_fails_its_dir_only(
        dirs: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = dirs
    for d in dirs:
        d.mkdir()
    failures = LogDirFailureChannel()
    real = os.open

    def open_(path: object, flags: int, mode: int = 0o777, **kw: object) -> int:
        if str(path).startswith(str(a)) and flags & os.O_CREAT:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, flags, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", open_)
    write_offset_checkpoints([(a / RECOVERY_POINT_CHECKPOINT, {("x", 0): 1}),
                              (b / RECOVERY_POINT_CHECKPOINT, {("y", 0): 2})], failures)
    assert list(failures.offline_dirs) == [log_dir_key(a)]
    assert read_offset_checkpoint(b / RECOVERY_POINT_CHECKPOINT) == {("y", 0): 2}


# -- the replica manager ----------------------------------------------------------------------


def leader_of_two_dirs(dirs: list[Path]) -> ReplicaManager:
    manager = LogManager(dirs, CONFIG)
    manager.startup(T0)
    rm = ReplicaManager(1, manager, lambda _t: CONFIG)
    for topic, log_dir in (("x", dirs[0]), ("y", dirs[1])):
        manager.maybe_update_preferred_log_dir(topic, 0, log_dir)
        rm.become_leader_or_follower(topic, [PartitionRecord(0, (1,), (1,), 1, 0)], T0)
    return rm


def produce_to(rm: ReplicaManager, topic: str, acks: int = 1) -> ErrorCode:
    outcome = rm.append_records({(topic, 0): batch()}, required_acks=acks, timeout_ms=1000,
                                now_ms=T0)
    assert isinstance(outcome, dict)
    return outcome[(topic, 0)].error


def test_partitions_in_a_failed_dir_answer_kafka_storage_error(dirs: list[Path]) -> None:
    rm = leader_of_two_dirs(dirs)
    stopped: list[tuple[str, int, bool]] = []
    rm.add_leadership_listener("x", lambda c, _now: stopped.append(
        (c.topic, c.partition, c.is_leader)))
    assert produce_to(rm, "x") == ErrorCode.NONE
    assert rm.handle_log_dir_failure(dirs[0], T0) == [("x", 0)]
    assert rm.handle_log_dir_failure(dirs[0], T0) is None
    assert stopped == [("x", 0, False)]
    assert rm.partition_error("x", 0) == ErrorCode.KAFKA_STORAGE_ERROR
    assert rm.partition_error("y", 0) == ErrorCode.NONE
    assert rm.partition_error("nope", 0) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert produce_to(rm, "x") == ErrorCode.KAFKA_STORAGE_ERROR
    assert produce_to(rm, "y") == ErrorCode.NONE  # the other dir serves on
    results, _, _ = rm.read_from_local_logs(
        FetchParams(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20),
        [FetchRequestPartition("x", 0, 0, 1 << 20), FetchRequestPartition("y", 0, 0, 1 << 20)])
    assert [r.error for r in results] == [ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NONE]
    # a LeaderAndIsr for it is refused with KAFKA_STORAGE_ERROR: the controller takes it for
    # an offline replica
    assert rm.become_leader_or_follower(
        "x", [PartitionRecord(0, (1, 2), (1, 2), 1, 5)], T0) == {0: ErrorCode.KAFKA_STORAGE_ERROR}
    control = ControlRequestHandler(1, rm, MetadataCache("c", controller_id=1), lambda: 7)
    error, answers = control.leader_and_isr(1, 1, 7, [
        LeaderAndIsrPartition("x", NO_ID,
                              PartitionRecord(0, (1, 2), (1, 2), 2, 6)),
        LeaderAndIsrPartition("w", NO_ID,
                              PartitionRecord(0, (1, 2), (1, 2), 2, 1), is_new=False),
        LeaderAndIsrPartition("v", NO_ID,
                              PartitionRecord(0, (1, 2), (1, 2), 2, 1), is_new=True),
    ], T0)
    assert error == ErrorCode.NONE
    assert answers == {("x", 0): ErrorCode.KAFKA_STORAGE_ERROR,
                       ("w", 0): ErrorCode.KAFKA_STORAGE_ERROR,  # may be in the failed dir
                       ("v", 0): ErrorCode.NONE}
    assert rm.log_manager.log_dir_of("v", 0) == dirs[1]
    rm.shutdown()
    rm.log_manager.shutdown()


def test_a_waiting_acks_all_produce_answers_kafka_storage_error(dirs: list[Path]) -> None:
    rm = leader_of_two_dirs(dirs)
    rm.become_leader_or_follower("x", [PartitionRecord(0, (1, 2), (1, 2), 1, 1)], T0)

    async def main() -> None:
        outcome = rm.append_records({("x", 0): batch()}, required_acks=-1, timeout_ms=30_000,
                                    now_ms=T0)
        assert isinstance(outcome, asyncio.Future)  # waits for broker 2
        rm.handle_log_dir_failure(dirs[0], T0)
        answered = await asyncio.wait_for(outcome, 5)
        assert answered[("x", 0)].error == ErrorCode.KAFKA_STORAGE_ERROR

    asyncio.run(main())
    rm.shutdown()
    rm.log_manager.shutdown()


def test_a_follower_whose_append_fails_stops_fetching_and_goes_offline(tmp_path: Path) -> None:
    cluster = Cluster(tmp_path)
    leader, follower = cluster[1], cluster[2]
    failures = follower.logs.failures
    handled: list[Path] = []

    async def main() -> None:
        failures.set_handler(handled.append)
        leader.become(1, 1)
        follower.become(1, 1)
        produce(leader, 2)
        fetcher, _ = cluster.fetcher(2, 1)
        follow(fetcher, follower)
        await rounds(fetcher, 2)
        assert follower.log.log_end_offset == 2
        produce(leader, 5)
        with disk_full_after(30):
            await rounds(fetcher, 1)
        assert TP in fetcher.failed and TP not in fetcher.partitions
        await asyncio.sleep(0)
        assert handled == [log_dir_key(follower.dir)]
        assert follower.rm.handle_log_dir_failure(handled[0], T0) == [TP]
        assert follower.rm.get_partition(*TP) is None

    run(main)
    cluster.close()
    segment = follower.dir / "t-0" / "00000000000000000000.log"
    data = segment.read_bytes()
    assert [h.last_offset for _, h in iter_batches(data)] == [1]  # no torn batch after it
    assert sum(h.size for _, h in iter_batches(data)) == len(data)
