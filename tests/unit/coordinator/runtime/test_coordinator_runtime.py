"""The coordinator runtime both coordinators share: its state table, the internal-topic
writer's error mappings and appends, the chunked loader, the per-partition runtime, and a
failover that loads ~100 MB of ``__consumer_offsets`` while the event loop keeps running.

The loader, writer and runtime tests run a real embedded node (a one-broker cluster over its
local znode tree, :class:`~tests.unit.broker.embedded_node.EmbeddedNode`) on a temporary
directory, as the group storage tests do: a coordinator's topic is created through the
controller (COORDINATOR_NOT_AVAILABLE until it is led here, as in Kafka's ZooKeeper mode) and
every write goes through the real replica manager on the broker's loop.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.record import build_batch, decode_batch
from pybroker.cluster.hosted_partitions import LeadershipChange
from pybroker.coordinator.group.offsets import OffsetToCommit
from pybroker.coordinator.group.storage import (
    CommittedOffset,
    commit_error_for,
    group_store_error_for,
    serialize_offset_commit_key,
    serialize_offset_commit_value,
)
from pybroker.coordinator.partitioning import OFFSETS_TOPIC, partition_for
from pybroker.coordinator.runtime import (
    GROUP_STORE_ERRORS,
    OFFSET_COMMIT_ERRORS,
    TRANSACTION_LOG_ERRORS,
    Appended,
    CoordinatorLoader,
    CoordinatorRuntime,
    CoordinatorState,
    LoadSummary,
    PartitionWriter,
    TopicLayout,
    TransactionalProducer,
)
from pybroker.coordinator.runtime.state import (
    VALID_PREVIOUS_STATES,
    CoordinatorPartitions,
    IllegalCoordinatorTransition,
)
from pybroker.coordinator.transaction.manager import append_error_for
from pybroker.kernel.clock import ManualClock
from pybroker.log.producer_state import AppendOrigin
from tests.unit.broker.embedded_node import EmbeddedNode

E = ErrorCode
S = CoordinatorState
T0 = 1_700_000_000_000
TOPIC = "__coordinator_test"


# ------------------------------------------------------------------ the state table


def test_every_state_has_its_answer() -> None:
    assert S.ACTIVE.error is E.NONE
    assert S.LOADING.error is E.COORDINATOR_LOAD_IN_PROGRESS
    assert S.UNLOADED.error is E.NOT_COORDINATOR
    assert S.FAILED.error is E.NOT_COORDINATOR


def test_the_state_table_is_kafkas_coordinator_life_cycle() -> None:
    assert VALID_PREVIOUS_STATES.initial is S.UNLOADED
    assert set(VALID_PREVIOUS_STATES.transitions()) == {
        (S.UNLOADED, S.LOADING), (S.LOADING, S.LOADING), (S.ACTIVE, S.LOADING),
        (S.FAILED, S.LOADING),
        (S.LOADING, S.ACTIVE), (S.LOADING, S.FAILED),
        (S.LOADING, S.UNLOADED), (S.ACTIVE, S.UNLOADED), (S.FAILED, S.UNLOADED),
    }


@pytest.mark.parametrize(("source", "target"), [
    (S.UNLOADED, S.ACTIVE), (S.ACTIVE, S.ACTIVE), (S.FAILED, S.ACTIVE),
    (S.UNLOADED, S.FAILED), (S.UNLOADED, S.UNLOADED),
])
def test_an_illegal_transition_is_a_bug(source: CoordinatorState,
                                        target: CoordinatorState) -> None:
    with pytest.raises(IllegalCoordinatorTransition, match=r"coordinator partition 3 cannot"):
        VALID_PREVIOUS_STATES.check(3, source, target)


# ------------------------------------------------------------------ the error mappings


@pytest.mark.parametrize(("error", "commit", "group_store", "transaction_log"), [
    (E.NONE, E.NONE, E.NONE, E.NONE),
    (E.UNKNOWN_TOPIC_OR_PARTITION, E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE,
     E.COORDINATOR_NOT_AVAILABLE),
    (E.NOT_ENOUGH_REPLICAS, E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE,
     E.COORDINATOR_NOT_AVAILABLE),
    (E.NOT_ENOUGH_REPLICAS_AFTER_APPEND, E.COORDINATOR_NOT_AVAILABLE,
     E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE),
    (E.NOT_LEADER_OR_FOLLOWER, E.NOT_COORDINATOR, E.NOT_COORDINATOR, E.NOT_COORDINATOR),
    (E.KAFKA_STORAGE_ERROR, E.NOT_COORDINATOR, E.NOT_COORDINATOR, E.NOT_COORDINATOR),
    (E.REQUEST_TIMED_OUT, E.REQUEST_TIMED_OUT, E.REBALANCE_IN_PROGRESS,
     E.COORDINATOR_NOT_AVAILABLE),
    (E.MESSAGE_TOO_LARGE, E.INVALID_COMMIT_OFFSET_SIZE, E.UNKNOWN_SERVER_ERROR,
     E.UNKNOWN_SERVER_ERROR),
    (E.RECORD_LIST_TOO_LARGE, E.INVALID_COMMIT_OFFSET_SIZE, E.UNKNOWN_SERVER_ERROR,
     E.UNKNOWN_SERVER_ERROR),
    (E.INVALID_FETCH_SIZE, E.INVALID_COMMIT_OFFSET_SIZE, E.UNKNOWN_SERVER_ERROR,
     E.INVALID_FETCH_SIZE),
    (E.NETWORK_EXCEPTION, E.COORDINATOR_LOAD_IN_PROGRESS, E.NETWORK_EXCEPTION,
     E.NETWORK_EXCEPTION),
    (E.INVALID_PRODUCER_EPOCH, E.INVALID_PRODUCER_EPOCH, E.INVALID_PRODUCER_EPOCH,
     E.INVALID_PRODUCER_EPOCH),
])
def test_each_write_maps_append_errors_as_kafka_does(error: ErrorCode, commit: ErrorCode,
                                                     group_store: ErrorCode,
                                                     transaction_log: ErrorCode) -> None:
    """maybeConvertOffsetCommitError, storeGroup and appendTransactionToLog: one shared part,
    each write's own rows; the coordinators' names for them are these mappings."""
    assert OFFSET_COMMIT_ERRORS(error) is commit is commit_error_for(error)
    assert GROUP_STORE_ERRORS(error) is group_store is group_store_error_for(error)
    assert TRANSACTION_LOG_ERRORS(error) is transaction_log is append_error_for(error)


# ------------------------------------------------------------------ a real embedded node


class Node:
    """A real embedded node, and writers of the test's own over its replica manager, metadata
    cache and admin manager (a topic of their own, ``__coordinator_test``)."""

    def __init__(self, data: Path, **props: str) -> None:
        self.node = EmbeddedNode.start(data, **props)
        self.broker = self.node.broker
        self.closed = False

    def writer(self, *, partitions: int = 1, create_on_append: bool = False) -> PartitionWriter:
        b = self.broker
        return PartitionWriter(b.replica_manager, b.metadata_cache, b.admin, TopicLayout(
            TOPIC, partitions, 1, {"cleanup.policy": "compact"},
            create_on_append=create_on_append))

    def on_loop(self, writer: PartitionWriter) -> Any:
        """``writer`` with each call made on the broker's loop, its outcome waited for."""
        return self.node.on_loop(writer)

    def create(self, writer: PartitionWriter) -> ErrorCode:
        """Ask for the writer's topic until it exists and every partition is led here; the
        first answer (COORDINATOR_NOT_AVAILABLE while the controller creates it)."""
        first = self.node.ensure_internal_topic(writer.ensure_created)
        count = writer.num_partitions
        self.node.wait_until(lambda: writer.led_partitions() == list(range(count)),
                             what=f"every partition of {writer.name} led here")
        return first

    def run(self, what: Any, timeout: float = 60) -> Any:
        """A coroutine run on the broker's loop."""
        return self.node.run(what, timeout)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.node.stop()


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    n = Node(tmp_path / "data")
    yield n
    n.close()


def records(i: int, n: int = 1, size: int = 0) -> list[tuple[bytes, bytes | None]]:
    return [(f"key-{i:04d}-{j}".encode(), b"v" * size + b"%04d" % i) for j in range(n)]


class RecordingReplay:
    """A replay that keeps each batch's base offset and record count."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.batches: list[tuple[int, int]] = []
        self.fail_at = fail_at

    def apply_batch(self, buf: bytes, pos: int) -> None:
        header, recs = decode_batch(buf, pos)
        if self.fail_at is not None and header.base_offset >= self.fail_at:
            raise RuntimeError("a replay that breaks")
        self.batches.append((header.base_offset, len(recs)))


# ------------------------------------------------------------------ the writer


def test_the_writer_creates_its_topic_and_answers_base_offsets(node: Node) -> None:
    real = node.writer(partitions=2)
    writer = node.on_loop(real)
    assert not writer.exists and writer.num_partitions == 2
    assert node.create(real) is E.COORDINATOR_NOT_AVAILABLE  # until the controller led it
    assert writer.ensure_created(T0) is E.NONE
    assert writer.exists and writer.led_partitions() == [0, 1]
    assert writer.leader_epoch(0) is not None and writer.leader_epoch(5) is None
    assert writer.partition_for("g") == partition_for("g", 2)
    first = writer.append(0, records(0, 3), T0, required_acks=-1, timeout_ms=1000)
    second = writer.append(0, records(1), T0, required_acks=-1, timeout_ms=1000)
    assert first == Appended(E.NONE, 0) and second == Appended(E.NONE, 3)
    assert writer.append(0, [], T0, required_acks=-1, timeout_ms=1000) == Appended(E.NONE)
    assert writer.append_to_leader(1, records(2), T0) is E.NONE
    assert writer.log_start_offset(0) == 0
    chunk = writer.read_chunk(0, 0, 1 << 20)
    assert chunk is not None and chunk.log_end_offset == 4


def test_a_transactional_batch_is_the_producers(tmp_path: Path) -> None:
    """Without KIP-890 verification a transactional batch needs no guard; with it, the
    verification's guard (the group service's job) is what lets the batch in."""
    n = Node(tmp_path / "data", **{"transaction.partition.verification.enable": "false"})
    try:
        real = n.writer()
        n.create(real)
        writer = n.on_loop(real)
        assert writer.append(0, records(0), T0, required_acks=-1, timeout_ms=1000,
                             producer=TransactionalProducer(7, 2)) == Appended(E.NONE, 0)
        chunk = writer.read_chunk(0, 0, 1 << 20)
        assert chunk is not None
        header, _ = decode_batch(chunk.records, 0)
        assert (header.producer_id, header.producer_epoch, header.base_sequence) == (7, 2, 0)
        assert header.is_transactional
    finally:
        n.close()


def test_a_transactional_batch_without_its_verification_is_refused(node: Node) -> None:
    real = node.writer()
    node.create(real)
    writer = node.on_loop(real)
    assert writer.append(0, records(0), T0, required_acks=-1, timeout_ms=1000,
                         producer=TransactionalProducer(7, 2)).error is E.INVALID_TXN_STATE


def test_without_its_topic_a_write_fails_or_creates_it(node: Node) -> None:
    plain = node.on_loop(node.writer())
    assert plain.append(0, records(0), T0, required_acks=-1, timeout_ms=1000).error is (
        E.UNKNOWN_TOPIC_OR_PARTITION)
    assert plain.read_chunk(0, 0, 100) is None and plain.log_start_offset(0) is None
    real = node.writer(create_on_append=True)
    creating = node.on_loop(real)
    # the append asks for the topic; the controller creates it meanwhile (nothing is written)
    assert creating.append(0, records(0), T0, required_acks=-1, timeout_ms=1000) == Appended(
        E.COORDINATOR_NOT_AVAILABLE)
    node.node.wait_until(lambda: real.led_partitions() == [0], what="the topic led here")
    assert creating.append(
        0, records(0), T0, required_acks=-1, timeout_ms=1000) == Appended(E.NONE, 0)


# ------------------------------------------------------------------ the loader


def _filled(node: Node, batches: int, *, size: int = 40) -> PartitionWriter:
    writer = node.writer()
    node.create(writer)
    on_loop = node.on_loop(writer)
    for i in range(batches):
        assert on_loop.append(0, records(i, 2, size), T0, required_acks=1,
                              timeout_ms=1000).error is E.NONE
    return writer


def test_the_loader_reads_chunks_of_at_most_its_buffer(node: Node) -> None:
    writer = _filled(node, 40)
    batch = writer.read_chunk(0, 0, 1)  # one whole batch: its size
    assert batch is not None
    one = len(batch.records)
    loader = CoordinatorLoader(writer, 3 * one + one // 2, clock=ManualClock())
    replay = RecordingReplay()
    summary = node.node.call(loader.load_now, 0, replay)
    assert replay.batches == [(2 * i, 2) for i in range(40)]
    assert summary.end_offset == 80 and summary.batches == 40
    assert summary.max_chunk_bytes == 3 * one  # whole batches only, never over the buffer
    assert summary.chunks == 14 and summary.bytes == 40 * one
    # with a clock that does not move, the loader gives the loop back between chunks only
    assert summary.yields == summary.chunks - 1


def test_what_is_appended_while_loading_is_loaded_too(node: Node) -> None:
    """A transaction marker may be written to a partition while its coordinator loads it:
    the load reads to the log end as it is at each chunk, not as it was at the start."""
    writer = _filled(node, 10)
    replay = RecordingReplay()
    steps = CoordinatorLoader(writer, 200, clock=ManualClock()).steps(0, replay,
                                                                     LoadSummary(0))
    next(steps)
    assert node.on_loop(writer).append(0, records(99), T0, required_acks=1,
                                       timeout_ms=1000).error is E.NONE
    with pytest.raises(StopIteration) as done:
        while True:
            next(steps)
    assert replay.batches[-1] == (20, 1) and done.value.value.end_offset == 21


def test_a_batch_larger_than_the_buffer_is_read_whole(node: Node) -> None:
    writer = _filled(node, 3, size=500)
    replay = RecordingReplay()
    summary = node.node.call(CoordinatorLoader(writer, 100, clock=ManualClock()).load_now,
                             0, replay)
    assert replay.batches == [(0, 2), (2, 2), (4, 2)]
    assert summary.chunks == 3 and summary.max_chunk_bytes > 100


def test_the_loader_yields_within_a_chunk_once_its_slice_is_used(node: Node) -> None:
    """A clock that moves 1 ms per reading: with 3 ms slices the load gives the loop back
    every few batches even inside one big chunk."""

    class Ticking(ManualClock):
        def monotonic(self) -> float:
            self.advance(1)
            return super().monotonic()

    writer = _filled(node, 30)
    loader = CoordinatorLoader(writer, 1 << 20, clock=Ticking(), max_slice_ms=3)
    summary = node.node.call(loader.load_now, 0, RecordingReplay())
    assert summary.chunks == 1 and summary.batches == 30
    assert summary.yields >= 10


def test_loading_a_partition_not_led_here_is_not_coordinator(node: Node) -> None:
    writer = node.writer()
    with pytest.raises(KafkaError) as raised:
        node.node.call(CoordinatorLoader(writer, 100).load_now, 0, RecordingReplay())
    assert raised.value.code is E.NOT_COORDINATOR


def test_an_empty_partition_loads_in_one_step(node: Node) -> None:
    writer = node.writer()
    node.create(writer)
    steps = CoordinatorLoader(writer, 100).steps(0, RecordingReplay(), LoadSummary(0))
    with pytest.raises(StopIteration) as done:
        next(steps)
    assert done.value.value.end_offset == 0 and done.value.value.chunks == 0


def test_the_load_gives_the_loop_back_and_stops_when_no_longer_wanted(node: Node) -> None:
    writer = _filled(node, 20)
    loader = CoordinatorLoader(writer, 60, clock=ManualClock())

    async def main() -> tuple[LoadSummary | None, int, LoadSummary | None]:
        ticks = 0
        running = True

        async def other_work() -> None:
            nonlocal ticks
            while running:
                ticks += 1
                await asyncio.sleep(0)

        worker = asyncio.get_running_loop().create_task(other_work())
        full = await loader.load(0, RecordingReplay())
        seen = ticks
        replay = RecordingReplay()
        stopped = await loader.load(0, replay, still_wanted=lambda: len(replay.batches) < 3)
        running = False
        await worker
        return full, seen, stopped

    full, ticks, stopped = node.run(main())
    assert full is not None and full.batches == 20
    assert ticks >= full.yields >= 19  # the loop ran other work at every yield
    assert stopped is None


# ------------------------------------------------------------------ the runtime


class RecordingShard:
    """A coordinator that records what the runtime tells it."""

    def __init__(self, fail_at: int | None = None, serve_partial: bool = False) -> None:
        self.events: list[tuple] = []
        self.fail_at = fail_at
        self.serve_partial = serve_partial

    def new_replay(self, partition: int) -> RecordingReplay:
        return RecordingReplay(self.fail_at)

    def on_loading(self, partition: int, epoch: int) -> None:
        self.events.append(("loading", partition, epoch))

    def on_loaded(self, partition: int, epoch: int, replay: RecordingReplay,
                  summary: LoadSummary, now_ms: int) -> None:
        self.events.append(("loaded", partition, epoch, len(replay.batches)))

    def on_load_failed(self, partition: int, epoch: int, replay: RecordingReplay,
                       error: BaseException, now_ms: int) -> bool:
        self.events.append(("failed", partition, epoch, len(replay.batches)))
        return self.serve_partial

    def on_unloaded(self, partition: int, epoch: int | None, now_ms: int) -> None:
        self.events.append(("unloaded", partition, epoch))


def _runtime(writer: PartitionWriter, shard: RecordingShard, *, buffer: int = 1 << 20,
             inline: bool = True) -> CoordinatorRuntime[RecordingReplay]:
    clock = ManualClock(T0)
    return CoordinatorRuntime(writer, CoordinatorLoader(writer, buffer, clock=clock), shard,
                              clock=clock, inline_first_slice=inline)


def test_a_small_partition_is_active_within_its_leadership_change(node: Node) -> None:
    writer = _filled(node, 5)
    shard = RecordingShard()

    async def main() -> None:
        runtime = _runtime(writer, shard)
        assert runtime.error_for(0) is E.NOT_COORDINATOR
        runtime.on_leadership_change(LeadershipChange(TOPIC, 0, 3, True), T0)
        assert runtime.state(0) is S.ACTIVE and runtime.error_for(0) is E.NONE
        assert runtime.load_task(0) is None and not runtime.is_loading()
        summary = runtime.summary(0)
        assert summary is not None and summary.batches == 5
        runtime.on_leadership_change(LeadershipChange(TOPIC, 0, 4, False), T0)
        assert runtime.state(0) is S.UNLOADED and runtime.error_for(0) is E.NOT_COORDINATOR
        assert runtime.freezes == 0  # a small load leaves the collector alone

    node.run(main())
    assert shard.events == [("loading", 0, 3), ("loaded", 0, 3, 5), ("unloaded", 0, 4)]


def test_a_large_partition_loads_on_the_loop_and_answers_load_in_progress(node: Node) -> None:
    writer = _filled(node, 30)
    shard = RecordingShard()

    async def main() -> None:
        runtime = _runtime(writer, shard, buffer=200)
        runtime.schedule_load(0, 1, T0)
        assert runtime.state(0) is S.LOADING and runtime.is_loading(0) and runtime.is_loading()
        assert runtime.error_for(0) is E.COORDINATOR_LOAD_IN_PROGRESS
        task = runtime.load_task(0)
        assert task is not None
        await task
        assert runtime.state(0) is S.ACTIVE
        assert runtime.freezes == 2  # after its first slice and at its end: its clock stood

    node.run(main())
    assert shard.events == [("loading", 0, 1), ("loaded", 0, 1, 30)]


def test_a_new_election_drops_the_load_it_interrupts(node: Node) -> None:
    writer = _filled(node, 30)
    shard = RecordingShard()

    async def main() -> None:
        runtime = _runtime(writer, shard, buffer=200)
        runtime.schedule_load(0, 1, T0)
        first = runtime.load_task(0)
        runtime.schedule_load(0, 2, T0)  # elected again before the first load completed
        second = runtime.load_task(0)
        assert first is not None and second is not None
        await asyncio.gather(first, second, return_exceptions=True)
        assert first.cancelled() and runtime.state(0) is S.ACTIVE

    node.run(main())
    assert shard.events == [("loading", 0, 1), ("loading", 0, 2), ("loaded", 0, 2, 30)]


def test_losing_the_leadership_while_loading_hands_nothing_over(node: Node) -> None:
    writer = _filled(node, 30)
    shard = RecordingShard()

    async def main() -> None:
        runtime = _runtime(writer, shard, buffer=200, inline=False)
        runtime.schedule_load(0, 1, T0)
        assert runtime.state(0) is S.LOADING
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        runtime.schedule_unload(0, 1, T0)
        await asyncio.sleep(0)
        assert runtime.state(0) is S.UNLOADED and runtime.load_task(0) is None
        await runtime.shutdown()

    node.run(main())
    assert shard.events == [("loading", 0, 1), ("unloaded", 0, 1)]


def test_a_load_that_breaks_off_leaves_the_partition_failed(node: Node) -> None:
    writer = _filled(node, 10)
    shard = RecordingShard(fail_at=6)

    async def main() -> None:
        runtime = _runtime(writer, shard)
        runtime.schedule_load(0, 1, T0)
        assert runtime.state(0) is S.FAILED and runtime.error_for(0) is E.NOT_COORDINATOR
        runtime.load_led_partitions(T0)  # a failed partition is loaded again
        assert runtime.state(0) is S.FAILED

    node.run(main())
    assert shard.events == [("loading", 0, 1), ("failed", 0, 1, 3),
                            ("loading", 0, 0), ("failed", 0, 0, 3)]


def test_a_shard_may_serve_what_a_broken_load_read(node: Node) -> None:
    """As the transaction coordinator does (Kafka's keeps what its load read)."""
    writer = _filled(node, 10)
    shard = RecordingShard(fail_at=6, serve_partial=True)
    partitions = CoordinatorPartitions()

    async def main() -> None:
        runtime = CoordinatorRuntime(writer, CoordinatorLoader(writer, 1 << 20), shard,
                                     inline_first_slice=True, partitions=partitions)
        runtime.schedule_load(0, 1, T0)
        # the table handed in is the one the runtime keeps
        assert partitions.state(0) is S.ACTIVE and partitions.epoch(0) == 1
        assert partitions.elected_in(0, 1) and not partitions.elected_in(0, 0)
        runtime.schedule_unload(0, 1, T0)
        assert partitions.error_for(0) is E.NOT_COORDINATOR

    node.run(main())
    assert shard.events == [("loading", 0, 1), ("failed", 0, 1, 3), ("unloaded", 0, 1)]


# ------------------------------------------------------------------ a failover with 100 MB


#: ~1 KB of offset metadata per commit, as a consumer that stores its position's context
METADATA = "m" * 1000
FAILOVER_BYTES = 100 * 1024 * 1024
GROUPS = 500


def test_a_failover_with_100_mb_of_offsets_keeps_the_loop_running(tmp_path: Path) -> None:
    """``__consumer_offsets``-0 holds ~100 MB of offset commits, written with the real codec
    into the real partition log; a leadership change (as the replica manager announces one)
    makes the group coordinator load it while a probe measures how long the event loop is
    held at a time. The assertions are about counts (chunks no larger than
    ``offsets.load.buffer.size``, the loop given back at least once a chunk, the groups'
    requests answered COORDINATOR_LOAD_IN_PROGRESS until the load is over, every offset
    loaded); the times are printed for the record (``pytest -s``).

    The broker's coordinator loads the partition (empty) once the controller has led it; the
    offsets are written after that, past the coordinator, and the failover loads them all.
    The cleaner is off, as on the storage-only broker this test was first written for: a
    compaction of the segment rolled at 100 MB during the load would make the counts the
    cleaner's rather than the loader's."""
    n = Node(tmp_path / "data", **{"offsets.topic.num.partitions": "1",
                                   "log.cleaner.enable": "false"})
    try:
        b = n.broker
        groups = b.groups
        assert groups is not None
        assert n.create(groups.topic.writer) is E.COORDINATOR_NOT_AVAILABLE
        assert n.node.call(groups.topic.ensure_created, T0) is E.NONE
        n.node.wait_until(lambda: groups.runtime.state(0) is S.ACTIVE,
                          what="the empty partition loaded")

        async def fill() -> tuple[int, int, int]:
            written = commits = 0
            batch_no = 0
            while written < FAILOVER_BYTES:
                group = f"group-{batch_no % GROUPS}"
                batch = build_batch([
                    (serialize_offset_commit_key(group, "orders", batch_no * 9 + j),
                     serialize_offset_commit_value(CommittedOffset(batch_no, -1, METADATA, T0)))
                    for j in range(9)], default_timestamp=T0)
                result, _ = b.replica_manager.append_to_leader(
                    OFFSETS_TOPIC, 0, batch, required_acks=1, now_ms=T0,
                    origin=AppendOrigin.COORDINATOR)
                assert result.error is E.NONE
                written += len(batch)
                commits += 9
                batch_no += 1
                if batch_no % 100 == 0:
                    await asyncio.sleep(0)  # the broker's own tasks run meanwhile
            return written, commits, batch_no

        written, commits, batch_no = n.run(fill(), timeout=600)
        buffer = groups.offsets_config.load_buffer_size

        async def failover() -> tuple[float, float, list[ErrorCode]]:
            loop = asyncio.get_running_loop()
            gaps: list[float] = []
            answers: list[ErrorCode] = []
            loading = True

            async def probe() -> None:
                while loading:
                    before = loop.time()
                    await asyncio.sleep(0.001)
                    gaps.append(loop.time() - before)
                    answers.append(groups.fetch_offsets("group-1", None)[0])

            prober = loop.create_task(probe())
            await asyncio.sleep(0.01)
            epoch = (groups.topic.writer.leader_epoch(0) or 0) + 1
            started = time.monotonic()
            groups.on_leadership_change(LeadershipChange(OFFSETS_TOPIC, 0, epoch, True), T0)
            inline_s = time.monotonic() - started
            assert groups.runtime.state(0) is S.LOADING
            # a commit while the partition loads is refused before anything is written
            assert groups.commit_offsets("group-1", "", None, -1,
                                         [OffsetToCommit(OFFSETS_TOPIC, 0, 5)], T0) == {
                (OFFSETS_TOPIC, 0): E.COORDINATOR_LOAD_IN_PROGRESS}
            task = groups.runtime.load_task(0)
            assert task is not None
            await task
            loading = False
            await prober
            return max(gaps), inline_s, answers

        collections: list[float] = []
        started_at = [0.0]

        def on_gc(phase: str, info: dict) -> None:
            if info["generation"] != 2:
                return
            if phase == "start":
                started_at[0] = time.monotonic()
            else:
                collections.append(time.monotonic() - started_at[0])

        gc.callbacks.append(on_gc)
        try:
            max_gap, inline_s, answers = n.run(failover(), timeout=600)
        finally:
            gc.callbacks.remove(on_gc)

        summary = groups.runtime.summary(0)
        assert summary is not None and groups.runtime.state(0) is S.ACTIVE
        assert summary.bytes == written >= FAILOVER_BYTES and summary.batches == batch_no
        assert summary.max_chunk_bytes <= buffer
        assert summary.chunks >= written // buffer
        assert summary.yields >= summary.chunks - 1
        assert groups.runtime.freezes >= 2  # during the load and once it was over
        # the probe's requests were answered "loading" while it ran, never "not coordinator"
        assert E.COORDINATOR_LOAD_IN_PROGRESS in answers
        assert set(answers) <= {E.COORDINATOR_LOAD_IN_PROGRESS, E.NONE}
        assert answers[-1] is E.NONE
        assert len(groups.offsets.groups()) == GROUPS
        assert sum(len(groups.offsets.offsets_of(g)) for g in groups.offsets.groups()) == commits
        assert groups.offsets.offsets_of("group-1")[("orders", 9)] == CommittedOffset(
            1, -1, METADATA, T0)
        print(f"\nfailover load of {written / 2**20:.1f} MiB ({commits} offsets, "
              f"{summary.chunks} chunks of <= {buffer} bytes, {summary.yields} yields) in "
              f"{summary.elapsed_ms:.0f} ms, the heap frozen {groups.runtime.freezes} times; "
              f"first slice inline {inline_s * 1000:.1f} ms; "
              f"longest loader slice {summary.max_slice_ms:.1f} ms; longest loop gap "
              f"{max_gap * 1000:.1f} ms; full collections during the load: "
              f"{', '.join(f'{c * 1000:.0f}' for c in collections) or 'none'} ms")
    finally:
        n.close()
