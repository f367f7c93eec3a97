"""Moving partitions between log dirs: the mover's decisions (pure), its state table, the mover
copying real logs while they change (appends, truncations, log start moves, compaction gaps),
and the replica manager's AlterReplicaLogDirs, DescribeLogDirs and restarts around it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.records.batch import BatchHeader
from protocol.records.record import build_batch, decode_batch
from pybroker.cluster.alter_log_dirs import (
    VALID_PREVIOUS_STATES,
    Action,
    IllegalMoveTransition,
    LogDirMover,
    MoveState,
    check_transition,
    next_step,
)
from pybroker.cluster.replica_manager import ReplicaManager
from pybroker.kernel.clock import ManualClock
from pybroker.log import LogConfig, LogManager
from pybroker.log.leader_epoch import EpochEntry, LeaderEpochFileCache
from pybroker.log.log import Log
from pybroker.metadata.model import PartitionRecord
from tests.unit.log.helpers import log_batches

T0 = 1_700_000_000_000
TP = ("t", 0)
CONFIG = LogConfig()


# -- next_step: the decision of a step ---------------------------------------------------------


@dataclass
class View:
    """A log as a step sees it: offsets and its leader epoch cache."""

    log_start_offset: int
    log_end_offset: int
    epochs: list[tuple[int, int]] = field(default_factory=list)

    @property
    def latest_epoch(self) -> int | None:
        return self.epochs[-1][0] if self.epochs else None

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int] | None:
        cache = LeaderEpochFileCache(None, [EpochEntry(e, o) for e, o in self.epochs])
        epoch, offset = cache.end_offset_for(leader_epoch, self.log_end_offset)
        return None if offset == -1 else (epoch, offset)


def test_a_future_log_behind_copies_and_one_level_swaps() -> None:
    current = View(0, 100, [(0, 0), (3, 40)])
    assert next_step(current, View(0, 0)).action is Action.COPY
    step = next_step(current, View(0, 60, [(0, 0), (3, 40)]))
    assert (step.action, step.offset) == (Action.COPY, 60)
    assert next_step(current, View(0, 100, [(0, 0), (3, 40)])).action is Action.SWAP
    assert next_step(View(0, 0), View(0, 0)).action is Action.SWAP  # an empty partition


def test_a_future_log_below_the_current_logs_start_starts_there() -> None:
    step = next_step(View(50, 100, [(3, 50)]), View(0, 20, [(0, 0)]))
    assert (step.action, step.offset) == (Action.START_AT, 50)
    step = next_step(View(50, 100, [(3, 50)]), View(0, 0))
    assert (step.action, step.offset) == (Action.START_AT, 50)


def test_the_current_logs_truncation_is_followed_by_epochs() -> None:
    # the current log (a follower) was cut back to 70 and took epoch 4 from there
    current = View(0, 90, [(0, 0), (3, 40), (4, 70)])
    step = next_step(current, View(0, 85, [(0, 0), (3, 40)]))
    assert (step.action, step.offset) == (Action.TRUNCATE, 70)
    # the same epoch, ending earlier in the current log: to its end there
    step = next_step(View(0, 60, [(0, 0), (3, 40)]), View(0, 65, [(0, 0), (3, 40)]))
    assert (step.action, step.offset) == (Action.TRUNCATE, 60)
    # an epoch the current log never had: back to where the future log's earlier epoch ends,
    # and once more from there (KIP-279)
    current = View(0, 90, [(0, 0), (2, 30), (5, 50)])
    future = View(0, 80, [(0, 0), (1, 20), (4, 45)])
    step = next_step(current, future)
    assert (step.action, step.offset) == (Action.TRUNCATE, 45)
    future = View(0, 45, [(0, 0), (1, 20)])
    step = next_step(current, future)
    assert (step.action, step.offset) == (Action.TRUNCATE, 20)
    assert next_step(current, View(0, 20, [(0, 0)])).action is Action.COPY


def test_an_epoch_above_all_the_current_logs_is_asked_again_with_its_latest() -> None:
    # the current log dropped epoch 5 (truncated to 100) and has only epoch 0 left
    step = next_step(View(0, 100, [(0, 0)]), View(0, 150, [(0, 0), (5, 100)]))
    assert (step.action, step.offset) == (Action.TRUNCATE, 100)


def test_without_epochs_only_offsets_decide() -> None:
    step = next_step(View(0, 10), View(0, 30, [(0, 0)]))
    assert (step.action, step.offset) == (Action.TRUNCATE, 10)
    step = next_step(View(0, 10), View(0, 30))
    assert (step.action, step.offset) == (Action.TRUNCATE, 10)
    assert next_step(View(0, 40), View(0, 30)).action is Action.COPY


def test_the_state_table() -> None:
    assert VALID_PREVIOUS_STATES[MoveState.COPYING] == {MoveState.FAILED}
    assert VALID_PREVIOUS_STATES[MoveState.FAILED] == {MoveState.COPYING}
    check_transition(TP, MoveState.COPYING, MoveState.FAILED)
    check_transition(TP, MoveState.FAILED, MoveState.COPYING)
    with pytest.raises(IllegalMoveTransition):
        check_transition(TP, MoveState.FAILED, MoveState.FAILED)


# -- the mover over real logs --------------------------------------------------------------------


class Host:
    """The mover's host over a LogManager alone (the replica manager's part without
    partitions)."""

    def __init__(self, manager: LogManager) -> None:
        self.manager = manager
        self.swapped: list[tuple[str, int]] = []

    def move_logs(self, topic: str, partition: int) -> tuple[Log, Log] | None:
        current = self.manager.get_log(topic, partition)
        future = self.manager.get_future_log(topic, partition)
        return None if current is None or future is None else (current, future)

    def complete_move(self, topic: str, partition: int, now_ms: int) -> None:
        self.manager.replace_current_with_future(topic, partition, now_ms)
        self.swapped.append((topic, partition))


@pytest.fixture
def manager(dirs: list[Path]) -> Iterator[LogManager]:
    m = LogManager(dirs, CONFIG)
    m.startup(T0)
    yield m
    m.shutdown()


def values(n: int, start: int, tag: bytes = b"r") -> bytearray:
    return build_batch([(None, tag + b"%d" % (start + i), (), T0) for i in range(n)])


def all_values(log: Log) -> list[bytes]:
    return [r.value for batch in log_batches(log) for r in decode_batch(batch)[1]
            if r.offset >= log.log_start_offset]


def start_move(manager: LogManager, dirs: list[Path], n_batches: int,
               **config: object) -> tuple[Log, Log]:
    a, b = dirs
    manager.maybe_update_preferred_log_dir("t", 0, a)
    log_config = LogConfig(**config) if config else CONFIG  # type: ignore[arg-type]
    current = manager.get_or_create_log("t", 0, log_config, T0)
    for i in range(n_batches):
        current.append_as_leader(values(10, 10 * i), leader_epoch=0, now_ms=T0)
    future = manager.create_future_log("t", 0, b, log_config, T0)
    manager.abort_and_pause_cleaning("t", 0)
    return current, future


def test_the_mover_copies_in_chunks_while_appends_go_on_and_swaps_once_caught_up(
        manager: LogManager, dirs: list[Path]) -> None:
    current, future = start_move(manager, dirs, 40)
    host = Host(manager)
    mover = LogDirMover(host, chunk_bytes=400)
    mover.add("t", 0)
    written = 400
    steps = 0
    while host.swapped == []:
        result = mover.step(T0)
        assert result is not None and result.topic == "t"
        steps += 1
        if steps % 3 == 0 and steps < 60:  # a producer keeps appending meanwhile
            current.append_as_leader(values(5, written), leader_epoch=0, now_ms=T0)
            written += 5
        assert result.copied_bytes <= 400
    assert steps > 10, "bounded chunks: many steps"
    assert mover.step(T0) is None and mover.moving == {}
    new = manager.get_log(*TP)
    assert new is not None and new.dir.parent == dirs[1] and new.log_end_offset == written
    assert all_values(new) == [b"r%d" % i for i in range(written)]


def test_the_mover_follows_the_current_logs_truncation(manager: LogManager,
                                                        dirs: list[Path]) -> None:
    current, future = start_move(manager, dirs, 10)
    host = Host(manager)
    mover = LogDirMover(host, chunk_bytes=1 << 20)
    mover.add("t", 0)
    # copy half, as far as the current log goes now
    current_end = current.log_end_offset
    mover.chunk_bytes = 400
    while future.log_end_offset < 60:
        mover.step(T0)
    assert not host.swapped
    # the current log, a follower now, is cut back to 40 and gets epoch 1's records
    current.truncate_to(40)
    current.assign_epoch_start_offset(1, 40)
    for i in range(3):
        current.append_as_follower(_as_leader_batch(values(10, 1000 + 10 * i, b"n"), 1,
                                                    40 + 10 * i), T0)
    assert current.log_end_offset == 70 < current_end
    mover.chunk_bytes = 1 << 20
    while not host.swapped:
        mover.step(T0)
    new = manager.get_log(*TP)
    assert new is not None
    assert all_values(new) == [b"r%d" % i for i in range(40)] + [b"n%d" % (1000 + i)
                                                                 for i in range(30)]
    assert new.leader_epoch_cache.entries == (EpochEntry(0, 0), EpochEntry(1, 40))


def _as_leader_batch(batch: bytearray, epoch: int, base_offset: int) -> bytearray:
    """A batch as a leader of ``epoch`` wrote it at ``base_offset`` (offsets and epoch set)."""
    from protocol.records.batch import write_crc

    header = BatchHeader.parse(batch)
    batch[0:8] = base_offset.to_bytes(8, "big")
    batch[12:16] = epoch.to_bytes(4, "big", signed=True)
    write_crc(batch)
    assert BatchHeader.parse(batch).last_offset == base_offset + header.last_offset_delta
    return batch


def test_the_mover_follows_the_current_logs_start(manager: LogManager, dirs: list[Path]) -> None:
    current, future = start_move(manager, dirs, 10)
    host = Host(manager)
    mover = LogDirMover(host, chunk_bytes=300)
    mover.add("t", 0)
    mover.step(T0)
    assert 0 < future.log_end_offset < 50
    current.delete_records_before(25, T0)  # DeleteRecords, inside the batch at 20
    mover.step(T0)
    assert future.log_start_offset == min(25, future.log_end_offset)
    current.delete_records_before(75, T0)  # past what the future log has: it starts over
    mover.step(T0)
    assert future.log_start_offset == 75 or host.swapped
    while not host.swapped:
        mover.step(T0)
    new = manager.get_log(*TP)
    assert new is not None and new.log_start_offset == 75 and new.log_end_offset == 100
    assert all_values(new) == [b"r%d" % i for i in range(75, 100)]


def test_a_failed_step_fails_the_partition_until_it_is_added_again(
        manager: LogManager, dirs: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    current, future = start_move(manager, dirs, 3)
    host = Host(manager)
    mover = LogDirMover(host)
    mover.add("t", 0)

    def broken(*_a: object, **_k: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(future, "append_as_follower", broken)
    result = mover.step(T0)
    assert result is not None and not result.swapped
    assert mover.state_of("t", 0) is MoveState.FAILED
    assert mover.step(T0) is None, "a failed partition is left alone"
    monkeypatch.undo()
    mover.add("t", 0)
    assert mover.state_of("t", 0) is MoveState.COPYING
    while not host.swapped:
        mover.step(T0)
    assert manager.log_dir_of(*TP) == dirs[1]


def test_one_partition_at_a_time_in_order(manager: LogManager, dirs: list[Path]) -> None:
    a, b = dirs
    for p in (2, 0, 1):
        manager.maybe_update_preferred_log_dir("t", p, a)
        log = manager.get_or_create_log("t", p, CONFIG, T0)
        for i in range(5):
            log.append_as_leader(values(10, 10 * i), leader_epoch=0, now_ms=T0)
        manager.create_future_log("t", p, b, CONFIG, T0)
    host = Host(manager)
    mover = LogDirMover(host, chunk_bytes=200)
    for p in (2, 0, 1):
        mover.add("t", p)
    order = []
    while (result := mover.step(T0)) is not None:
        if not order or order[-1] != result.partition:
            order.append(result.partition)
    assert order == [0, 1, 2] and host.swapped == [("t", 0), ("t", 1), ("t", 2)]


def test_the_mover_task_runs_beside_a_producer_on_the_loop(manager: LogManager,
                                                           dirs: list[Path]) -> None:
    current, _ = start_move(manager, dirs, 200)
    host = Host(manager)

    async def main() -> int:
        mover = LogDirMover(host, chunk_bytes=4096)
        produced = 2000
        mover.add("t", 0)
        for _ in range(50):  # the producer gets turns while the mover copies
            log = manager.get_log(*TP)  # the partition's log: the new one after the swap
            assert log is not None
            log.append_as_leader(values(10, produced), leader_epoch=0, now_ms=T0)
            produced += 10
            await asyncio.sleep(0)
        for _ in range(2000):
            if host.swapped:
                break
            await asyncio.sleep(0)
        mover.shutdown()
        return produced

    produced = asyncio.run(main())
    assert host.swapped == [TP]
    new = manager.get_log(*TP)
    assert new is not None and all_values(new) == [b"r%d" % i for i in range(produced)]


# -- the replica manager: AlterReplicaLogDirs, DescribeLogDirs, restarts --------------------------


@pytest.fixture
def replicas(dirs: list[Path]) -> Iterator[ReplicaManager]:
    logs = LogManager(dirs, CONFIG)
    logs.startup(T0)
    rm = ReplicaManager(0, logs, lambda _topic: CONFIG, clock=ManualClock(T0))
    yield rm
    rm.shutdown()
    logs.shutdown()


def lead(rm: ReplicaManager, partitions: int = 1, topic: str = "t") -> None:
    rm.become_leader_or_follower(topic, [PartitionRecord(p, (0,), (0,), 0, 0)
                                         for p in range(partitions)], T0)


def produce(rm: ReplicaManager, n: int, start: int = 0, topic: str = "t") -> None:
    """``n`` records, one batch each."""
    for i in range(start, start + n):
        result = rm.append_records({(topic, 0): values(1, i)}, required_acks=1,
                                   timeout_ms=1000, now_ms=T0)
        assert isinstance(result, dict) and result[(topic, 0)].error == ErrorCode.NONE


def path(d: Path) -> str:
    return str(d.absolute())


def run_mover(rm: ReplicaManager) -> None:
    for _ in range(10_000):
        if rm.log_dir_mover.step(T0) is None:
            return
    raise AssertionError("the mover did not finish")


def test_alter_replica_log_dirs_answers_as_kafka(replicas: ReplicaManager,
                                                 dirs: list[Path], tmp_path: Path) -> None:
    a, b = dirs
    replicas.log_manager.maybe_update_preferred_log_dir("t", 0, a)
    lead(replicas)
    produce(replicas, 5)
    known = {("u", 0)}
    results = replicas.alter_replica_log_dirs({
        ("t", 0): path(a),                      # where it is: nothing to do
        ("u", 0): path(b),                      # known, not hosted: created there later
        ("v", 0): path(b),                      # unknown anywhere
        ("t", 1): str(tmp_path / "elsewhere"),  # not a log dir
        ("x" * 214, 0): path(b),                # the future dir name would be too long
    }, T0, known=lambda t, p: (t, p) in known)
    assert results == {
        ("t", 0): ErrorCode.NONE,
        ("u", 0): ErrorCode.REPLICA_NOT_AVAILABLE,
        ("v", 0): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ("t", 1): ErrorCode.LOG_DIR_NOT_FOUND,
        ("x" * 214, 0): ErrorCode.INVALID_TOPIC_EXCEPTION,
    }
    logs = replicas.log_manager
    assert logs.get_future_log("t", 0) is None
    assert logs.preferred_log_dir("u", 0) == b and logs.preferred_log_dir("v", 0) == b
    lead(replicas, topic="u")
    assert logs.log_dir_of("u", 0) == b, "the partition is created where it was asked to be"


def test_an_offline_destination_is_a_storage_error(replicas: ReplicaManager,
                                                   dirs: list[Path]) -> None:
    a, b = dirs
    replicas.log_manager.maybe_update_preferred_log_dir("t", 0, a)
    lead(replicas)
    os.rename(b, b.with_name("b-gone"))
    b.write_text("not a directory any more")
    try:
        assert replicas.alter_replica_log_dirs({TP: path(b)}, T0) == {
            TP: ErrorCode.KAFKA_STORAGE_ERROR}
    finally:
        b.unlink()
        os.rename(b.with_name("b-gone"), b)


def test_a_move_shows_in_describe_log_dirs_then_completes(replicas: ReplicaManager,
                                                          dirs: list[Path]) -> None:
    a, b = dirs
    replicas.log_manager.maybe_update_preferred_log_dir("t", 0, a)
    lead(replicas)
    produce(replicas, 30)
    replicas.log_dir_mover.chunk_bytes = 100
    assert replicas.alter_replica_log_dirs({TP: path(b)}, T0) == {TP: ErrorCode.NONE}
    assert replicas.log_manager.is_cleaning_paused(*TP)
    # asked again: it goes on
    assert replicas.alter_replica_log_dirs({TP: path(b)}, T0) == {TP: ErrorCode.NONE}
    replicas.log_dir_mover.step(T0)
    described = {d.path: d.partitions for d in replicas.describe_log_dirs(None)}
    (current,) = described[a]
    (future,) = described[b]
    assert (current.is_future, future.is_future) == (False, True)
    assert current.offset_lag == 0 and 0 < future.offset_lag < 30
    assert future.offset_lag == 30 - replicas.log_manager.get_future_log(*TP).log_end_offset  # type: ignore[union-attr]
    run_mover(replicas)
    partition = replicas.get_partition(*TP)
    assert partition is not None and partition.log is replicas.log_manager.get_log(*TP)
    assert partition.log is not None and partition.log.dir.parent == b
    assert partition.high_watermark == 30
    described = {d.path: d.partitions for d in replicas.describe_log_dirs(None)}
    assert described[a] == () and [p.is_future for p in described[b]] == [False]
    # the partition goes on as before in its new dir
    produce(replicas, 3, 30)
    assert partition.log.log_end_offset == 33 and partition.high_watermark == 33
    assert all_values(partition.log) == [b"r%d" % i for i in range(33)]


def test_moving_back_cancels_and_another_dir_redirects(replicas: ReplicaManager,
                                                       tmp_path: Path) -> None:
    logs = replicas.log_manager
    a, b = logs.log_dirs
    logs.maybe_update_preferred_log_dir("t", 0, a)
    lead(replicas)
    produce(replicas, 10)
    replicas.alter_replica_log_dirs({TP: path(b)}, T0)
    first = logs.get_future_log(*TP)
    assert first is not None
    assert replicas.alter_replica_log_dirs({TP: path(a)}, T0) == {TP: ErrorCode.NONE}
    assert logs.get_future_log(*TP) is None and not first.dir.exists()
    assert replicas.log_dir_mover.moving == {} and not logs.is_cleaning_paused(*TP)


def test_stopping_a_moving_partition_pauses_the_move_and_deleting_it_drops_it(
        replicas: ReplicaManager, dirs: list[Path]) -> None:
    a, b = dirs
    replicas.log_manager.maybe_update_preferred_log_dir("t", 0, a)
    lead(replicas)
    produce(replicas, 10)
    replicas.log_dir_mover.chunk_bytes = 1
    replicas.alter_replica_log_dirs({TP: path(b)}, T0)
    replicas.log_dir_mover.step(T0)
    future = replicas.log_manager.get_future_log(*TP)
    assert future is not None and 0 < future.log_end_offset < 10
    # stopped without deletion (a controlled shutdown): the move waits, its copy kept
    replicas.stop_replicas("t", [0], delete=False)
    assert replicas.log_dir_mover.moving == {} and replicas.log_dir_mover.step(T0) is None
    assert replicas.log_manager.get_future_log(*TP) is future and future.dir.exists()
    # the next leadership decision resumes it
    lead(replicas)
    assert replicas.log_dir_mover.state_of(*TP) is MoveState.COPYING
    replicas.log_dir_mover.step(T0)
    assert future.log_end_offset > 1
    # deleted: the copy goes with the partition
    replicas.stop_replicas("t", [0], delete=True)
    assert replicas.log_dir_mover.moving == {}
    assert replicas.log_manager.get_future_log(*TP) is None and not future.dir.exists()
    assert replicas.log_manager.get_log(*TP) is None


def test_a_restart_resumes_the_move_when_the_partition_is_hosted(dirs: list[Path]) -> None:
    a, b = dirs
    logs = LogManager(dirs, CONFIG)
    logs.startup(T0)
    rm = ReplicaManager(0, logs, lambda _topic: CONFIG)
    logs.maybe_update_preferred_log_dir("t", 0, a)
    lead(rm)
    produce(rm, 50)
    rm.log_dir_mover.chunk_bytes = 200
    rm.alter_replica_log_dirs({TP: path(b)}, T0)
    rm.log_dir_mover.step(T0)
    rm.shutdown()
    logs.shutdown()

    logs = LogManager(dirs, CONFIG)
    logs.startup(T0)
    rm = ReplicaManager(0, logs, lambda _topic: CONFIG)
    try:
        assert logs.get_future_log(*TP) is not None and rm.log_dir_mover.moving == {}
        lead(rm)
        assert rm.log_dir_mover.state_of(*TP) is MoveState.COPYING
        assert logs.is_cleaning_paused(*TP)
        run_mover(rm)
        assert logs.log_dir_of(*TP) == b and logs.get_future_log(*TP) is None
        assert all_values(logs.get_log(*TP)) == [b"r%d" % i for i in range(50)]  # type: ignore[arg-type]
    finally:
        rm.shutdown()
        logs.shutdown()
