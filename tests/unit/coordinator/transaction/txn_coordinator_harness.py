"""The harness of the transaction coordinator's unit tests: the coordinator with a log that
keeps what it is asked to write (completing writes at once, or when the test says), producer
ids handed out in order (at once, or when the test says), partition leaders from a dict, and
boxes that collect the answers. No sockets, no event loop, no clock: time is passed in."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import ErrorCode as E
from protocol.records.record import build_batch
from pybroker.coordinator.runtime import CoordinatorState
from pybroker.coordinator.transaction import (
    InitProducerIdResult,
    PartitionReplay,
    TransactionConfig,
    TransactionCoordinator,
)
from pybroker.coordinator.transaction.storage import deserialize_key, deserialize_value

T0 = 1_700_000_000_000
TIMEOUT = 60_000
PARTITIONS = 3


@dataclass
class Write:
    partition: int
    records: list[tuple[bytes, bytes | None]]
    timeout_ms: int
    now_ms: int
    done: Callable[[E, int], None]
    completed: bool = False
    error: E = E.NONE

    def complete(self, error: E = E.NONE, now_ms: int | None = None) -> None:
        assert not self.completed, "a write completes once"
        self.completed = True
        self.error = error
        self.done(error, self.now_ms if now_ms is None else now_ms)

    def decoded(self) -> list[tuple[str, Any]]:
        """``(transactional id, TransactionMetadata or None)`` of each record."""
        out = []
        for key, value in self.records:
            k = deserialize_key(key)
            out.append((k.transactional_id, deserialize_value(k.transactional_id, value)))
        return out


class RecordingLog:
    """Keeps every write. ``auto`` completes writes at once with ``error``; otherwise they wait
    for :meth:`Write.complete`."""

    def __init__(self) -> None:
        self.writes: list[Write] = []
        self.auto = True
        self.error = E.NONE

    def append(self, partition: int, records: Sequence[tuple[bytes, bytes | None]], *,
               timeout_ms: int, now_ms: int, done: Callable[[E, int], None]) -> None:
        write = Write(partition, list(records), timeout_ms, now_ms, done)
        self.writes.append(write)
        if self.auto:
            write.complete(self.error)

    @property
    def last(self) -> Write:
        return self.writes[-1]

    def pending(self) -> list[Write]:
        return [w for w in self.writes if not w.completed]

    def replay(self, partition: int) -> PartitionReplay:
        """The partition's completed writes replayed as the service replays a log."""
        replay = PartitionReplay(partition)
        offset = 0
        for w in self.writes:
            if w.partition != partition or not w.completed or w.error != E.NONE:
                continue
            batch = build_batch(w.records, base_offset=offset, default_timestamp=w.now_ms)
            replay.apply_batch(bytes(batch), 0)
            offset += len(w.records)
        return replay


class ProducerIds:
    """Producer ids 1000, 1001, ... ; with ``auto`` off, requests wait for :meth:`release`."""

    def __init__(self) -> None:
        self._next = itertools.count(1000)
        self.auto = True
        self.waiting: list[Callable[[int | E, int], None]] = []
        self.now_ms = T0

    def generate(self, done: Callable[[int | E, int], None]) -> None:
        if self.auto:
            done(next(self._next), self.now_ms)
        else:
            self.waiting.append(done)

    def release(self, now_ms: int) -> None:
        waiting, self.waiting = self.waiting, []
        for done in waiting:
            done(next(self._next), now_ms)


class Box:
    """Collects what a respond callback receives."""

    def __init__(self) -> None:
        self.results: list[Any] = []

    def __call__(self, result: Any) -> None:
        self.results.append(result)

    @property
    def done(self) -> bool:
        return bool(self.results)

    @property
    def result(self) -> Any:
        assert len(self.results) == 1, self.results
        return self.results[0]


@dataclass
class Harness:
    config: TransactionConfig = field(default_factory=lambda: TransactionConfig(
        num_partitions=PARTITIONS, transaction_max_timeout_ms=900_000,
        transactional_id_expiration_ms=3_600_000))
    leaders: dict[tuple[str, int], int | None] = field(default_factory=dict)
    default_leader: int | None = 1

    def __post_init__(self) -> None:
        self.log = RecordingLog()
        self.pids = ProducerIds()
        self.woken: list[int] = []
        self.retries_asked = 0
        self.coordinator = TransactionCoordinator(
            self.config, self.log, self.pids, self._leader,
            on_markers_queued=self.woken.append, on_completion_retry=self._retry_asked)
        self.coordinator.startup()
        for p in range(self.config.num_partitions):
            self.load(p, 0)

    def _leader(self, topic: str, partition: int) -> int | None:
        return self.leaders.get((topic, partition), self.default_leader)

    def _retry_asked(self) -> None:
        self.retries_asked += 1

    # -- the partition table, moved as the coordinator runtime moves it -----------------------
    def elect(self, partition: int, epoch: int) -> None:
        self.coordinator.partitions.transition(partition, CoordinatorState.LOADING, epoch)
        self.coordinator.on_election(partition, epoch)

    def loaded(self, partition: int, epoch: int, loaded: dict | None = None,
               now_ms: int = T0) -> bool:
        """Hand the load of ``epoch``'s election over, as the runtime does once it is complete
        (only the current election's: the runtime drops an interrupted load)."""
        if not self.coordinator.partitions.elected_in(partition, epoch):
            return False
        self.coordinator.partitions.transition(partition, CoordinatorState.ACTIVE)
        return self.coordinator.complete_loading(partition, epoch, dict(loaded or {}), now_ms)

    def resign(self, partition: int, epoch: int | None) -> None:
        if self.coordinator.partitions.state(partition) is not CoordinatorState.UNLOADED:
            self.coordinator.partitions.transition(partition, CoordinatorState.UNLOADED)
        self.coordinator.on_resignation(partition, epoch)

    def load(self, partition: int, epoch: int, loaded: dict | None = None,
             now_ms: int = T0) -> None:
        self.elect(partition, epoch)
        assert self.loaded(partition, epoch, loaded, now_ms)

    # -- requests --------------------------------------------------------------------------
    def init(self, txn: str, now_ms: int = T0, timeout_ms: int = TIMEOUT,
             expected: tuple[int, int] | None = None) -> Box:
        box = Box()
        self.coordinator.init_producer_id(txn, timeout_ms, expected, now_ms, box)
        return box

    def init_ok(self, txn: str, now_ms: int = T0, **kw: Any) -> InitProducerIdResult:
        result = self.init(txn, now_ms, **kw).result
        assert result.error == E.NONE, result
        return result

    def add(self, txn: str, pid: int, epoch: int, *partitions: tuple[str, int],
            now_ms: int = T0) -> Box:
        box = Box()
        self.coordinator.add_partitions_to_transaction(txn, pid, epoch, frozenset(partitions),
                                                       now_ms, box)
        return box

    def end(self, txn: str, pid: int, epoch: int, commit: bool, now_ms: int = T0) -> Box:
        box = Box()
        self.coordinator.end_transaction(txn, pid, epoch, commit, now_ms, box)
        return box

    def metadata(self, txn: str):
        found = self.coordinator.state_manager.get_transaction_state(txn)
        assert not isinstance(found, E), found
        return found.metadata

    def answer_markers(self, destination: int, now_ms: int = T0,
                       error: E = E.NONE, **per_partition: E) -> list:
        """Drain ``destination``'s queue and answer each marker with ``error`` (a partition
        named ``topic_N`` in ``per_partition`` gets its own)."""
        entries = self.coordinator.queues.drain(destination)
        errors: dict[int, dict[tuple[str, int], E]] = {}
        for entry in entries:
            for tp in entry.partitions:
                errors.setdefault(entry.producer_id, {})[tp] = per_partition.get(
                    f"{tp[0]}_{tp[1]}", error)
        self.coordinator.on_markers_answered(entries, errors, now_ms)
        return entries
