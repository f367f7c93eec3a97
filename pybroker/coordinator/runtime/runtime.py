"""Which coordinator partitions this broker has loaded, and their loads (Kafka's
``CoordinatorRuntime``).

Each coordinator follows the leadership of its internal topic (a leadership listener on the
replica manager, Kafka's ``onElection`` / ``onResignation``) through one
:class:`CoordinatorRuntime`: a partition this broker starts leading moves to Loading and is
replayed by the :class:`~pybroker.coordinator.runtime.loader.CoordinatorLoader` into the
coordinator's :class:`CoordinatorShard`, which takes the replay over when it is complete
(Active); one it stops leading is Unloaded and the shard forgets it; a load that breaks off
leaves it Failed, unless the shard serves what was read before the error (then it is Active).
A newer election while a load runs starts it again, and the old load's replay is dropped.
The runtime's :class:`~.state.CoordinatorPartitions` table says what each partition's requests
are answered, the same for both coordinators (:meth:`CoordinatorRuntime.error_for`); the
coordinator is handed that table to answer from.

A runtime built with ``inline_first_slice`` replays the first slice of a load inside the
leadership change itself: a partition whose log fits in it (every partition but a large one)
is Active before the change returns, as a load used to be; the rest of a large one continues
on the loop.

**The collector.** A large load grows the heap by hundreds of thousands of objects that live
as long as the partition stays here (the committed offsets of ``__consumer_offsets``), and
CPython's full collections, which scan every tracked object and run whenever the older
objects grew by a quarter, then hold the loop far longer than the load's own slices (60 to
160 ms at 100 MB, against slices of a few ms). So a load on the loop that takes more than
one slice, after its first, every :data:`FREEZE_INTERVAL_S` after that and once it is over,
collects the young generations and moves
what survives into the collector's permanent generation (``gc.freeze``): what was loaded is
not scanned again, and a full collection covers only what came since. Garbage cycles among
the frozen objects are not collected until ``gc.unfreeze``; the young collection just
before each freeze keeps those to what was already old.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from protocol.errors import ErrorCode
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock

from .loader import CoordinatorLoader, LoadSummary, Replay
from .state import CoordinatorPartitions, CoordinatorState
from .writer import PartitionWriter

if TYPE_CHECKING:
    from pybroker.cluster.hosted_partitions import LeadershipChange

log = logging.getLogger(__name__)

R = TypeVar("R", bound=Replay)

S = CoordinatorState

#: how often a load on the loop freezes what the heap holds (seconds of the runtime's clock)
FREEZE_INTERVAL_S = 0.05


def freeze_heap() -> None:
    """Collect the young generations, then move every tracked object into the collector's
    permanent generation (see the module docstring)."""
    gc.collect(1)
    gc.freeze()


class CoordinatorShard(Protocol[R]):
    """What a coordinator brings to the runtime: its replay, and what it does with one."""

    def new_replay(self, partition: int) -> R:
        """An empty replay of ``partition`` (the coordinator's record codec and state)."""
        ...

    def on_loading(self, partition: int, epoch: int) -> None:
        """``partition`` starts loading in ``epoch`` (its requests now wait)."""
        ...

    def on_loaded(self, partition: int, epoch: int, replay: R, summary: LoadSummary,
                  now_ms: int) -> None:
        """The load is complete: take ``replay`` over."""
        ...

    def on_load_failed(self, partition: int, epoch: int, replay: R, error: BaseException,
                       now_ms: int) -> bool:
        """The load broke off with ``error``; ``replay`` holds what was read before. True: the
        shard took that over and serves it (the partition is Active); False: it is Failed."""
        ...

    def on_unloaded(self, partition: int, epoch: int | None, now_ms: int) -> None:
        """This broker no longer leads ``partition`` (``epoch``: the resigned election's)."""
        ...


@dataclass(slots=True)
class PartitionContext:
    """One partition's running load and its last completed one (its state and epoch are in
    the runtime's table)."""

    partition: int
    task: asyncio.Task[None] | None = None
    #: the last completed load's summary
    summary: LoadSummary | None = None


class CoordinatorRuntime(Generic[R]):
    """The partitions of one coordinator on this broker; see the module docstring."""

    def __init__(self, writer: PartitionWriter, loader: CoordinatorLoader,
                 shard: CoordinatorShard[R], *, clock: Clock = SYSTEM_CLOCK,
                 inline_first_slice: bool = False, freeze: bool = True,
                 partitions: CoordinatorPartitions | None = None) -> None:
        """``freeze``: whether a load on the loop freezes the heap as it goes (see the module
        docstring); ``partitions``: the table the runtime keeps its partitions' states in (the
        one its coordinator answers from; a new one by default)."""
        self.writer = writer
        self.loader = loader
        self.shard = shard
        self.clock = clock
        self.inline_first_slice = inline_first_slice
        self.freeze = freeze
        #: how many times loads froze the heap
        self.freezes = 0
        self.partitions = partitions if partitions is not None else CoordinatorPartitions()
        self._partitions: dict[int, PartitionContext] = {}

    # -- what requests are answered --------------------------------------------------------
    def state(self, partition: int) -> CoordinatorState:
        return self.partitions.state(partition)

    def error_for(self, partition: int) -> ErrorCode:
        """NONE while ``partition`` is Active here, COORDINATOR_LOAD_IN_PROGRESS while it
        loads, NOT_COORDINATOR otherwise."""
        return self.partitions.error_for(partition)

    def is_loading(self, partition: int | None = None) -> bool:
        """Whether ``partition`` (None: any partition) is loading."""
        return self.partitions.is_loading(partition)

    def summary(self, partition: int) -> LoadSummary | None:
        """The last completed load of ``partition``."""
        context = self._partitions.get(partition)
        return context.summary if context is not None else None

    def load_task(self, partition: int) -> asyncio.Task[None] | None:
        """The load of ``partition`` running on the loop, if any."""
        context = self._partitions.get(partition)
        return context.task if context is not None else None

    # -- leadership ------------------------------------------------------------------------
    def on_leadership_change(self, change: LeadershipChange, now_ms: int) -> None:
        if change.is_leader:
            self.schedule_load(change.partition, change.leader_epoch, now_ms)
        else:
            self.schedule_unload(change.partition, change.leader_epoch, now_ms)

    def schedule_load(self, partition: int, epoch: int, now_ms: int) -> None:
        """Load ``partition``, elected in ``epoch``: at once as far as the first slice goes
        with ``inline_first_slice``, the rest (or all of it) in a task on the loop."""
        context = self._partitions.setdefault(partition, PartitionContext(partition))
        self._cancel(context)
        self.partitions.transition(partition, S.LOADING, epoch)
        self.shard.on_loading(partition, epoch)
        replay = self.shard.new_replay(partition)
        steps = self.loader.steps(partition, replay, LoadSummary(partition))
        if self.inline_first_slice and self._step(context, epoch, replay, steps, now_ms):
            return
        context.task = asyncio.get_running_loop().create_task(
            self._run(context, epoch, replay, steps, first=not self.inline_first_slice),
            name=f"load-{self.writer.name}-{partition}")

    def schedule_unload(self, partition: int, epoch: int | None, now_ms: int) -> None:
        """This broker no longer leads ``partition``: stop its load, forget its state."""
        context = self._partitions.get(partition)
        if context is not None:
            self._cancel(context)
            if self.partitions.state(partition) is not S.UNLOADED:
                self.partitions.transition(partition, S.UNLOADED)
        self.shard.on_unloaded(partition, epoch, now_ms)

    def load_led_partitions(self, now_ms: int) -> None:
        """Load every partition this broker leads that is not loading or loaded yet (start-up,
        and once the topic was created)."""
        for partition in self.writer.led_partitions():
            if self.state(partition) in (S.UNLOADED, S.FAILED):
                epoch = self.writer.leader_epoch(partition)
                if epoch is not None:
                    self.schedule_load(partition, epoch, now_ms)

    async def shutdown(self) -> None:
        """Stop every load (nothing is handed over afterwards) and wait for them to end."""
        tasks = [c.task for c in self._partitions.values() if c.task is not None]
        self.close()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        """Stop every load without waiting: their tasks end at their next turn."""
        for context in self._partitions.values():
            self._cancel(context)

    # -- loads -----------------------------------------------------------------------------
    def _cancel(self, context: PartitionContext) -> None:
        if context.task is not None:
            context.task.cancel()
            context.task = None

    def _current(self, context: PartitionContext, epoch: int) -> bool:
        return (self.partitions.is_loading(context.partition)
                and self.partitions.epoch(context.partition) == epoch)

    def _step(self, context: PartitionContext, epoch: int, replay: R,
              steps: Generator[None, None, LoadSummary], now_ms: int) -> bool:
        """One slice of the load; True when the load is over (completed or failed)."""
        try:
            next(steps)
        except StopIteration as done:
            summary: LoadSummary = done.value
            context.summary = summary
            self.partitions.transition(context.partition, S.ACTIVE)
            log.info("Loaded %s-%d at epoch %d: %d byte(s) in %d batch(es), %d chunk(s), "
                     "%.0f ms", self.writer.name, context.partition, epoch, summary.bytes,
                     summary.batches, summary.chunks, summary.elapsed_ms)
            self.shard.on_loaded(context.partition, epoch, replay, summary, now_ms)
            return True
        except Exception as exc:
            log.exception("Error loading %s-%d at epoch %d", self.writer.name,
                          context.partition, epoch)
            served = self.shard.on_load_failed(context.partition, epoch, replay, exc, now_ms)
            self.partitions.transition(context.partition, S.ACTIVE if served else S.FAILED)
            return True
        return False

    def _freeze(self) -> None:
        freeze_heap()
        self.freezes += 1

    async def _run(self, context: PartitionContext, epoch: int, replay: R,
                   steps: Generator[None, None, LoadSummary], *, first: bool) -> None:
        if first:
            await asyncio.sleep(0)  # the leadership change completes first
        frozen_at = self.clock.monotonic() - FREEZE_INTERVAL_S  # the heap as the load found it
        slices = 0
        try:
            while self._current(context, epoch):
                slices += 1
                if self._step(context, epoch, replay, steps, self.clock.milliseconds()):
                    # a load done in one slice was small: nothing worth freezing came of it
                    if self.freeze and slices > 1 and self.state(context.partition) is S.ACTIVE:
                        self._freeze()
                    break
                if self.freeze and self.clock.monotonic() - frozen_at >= FREEZE_INTERVAL_S:
                    self._freeze()
                    frozen_at = self.clock.monotonic()
                await asyncio.sleep(0)
        finally:
            steps.close()
            if context.task is asyncio.current_task():
                context.task = None
