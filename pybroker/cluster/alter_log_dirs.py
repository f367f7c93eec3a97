"""Moving partitions between this broker's log dirs (AlterReplicaLogDirs, KIP-113).

Kafka moves a replica to another log dir by filling a *future log* there from the current one,
the way a follower copies its leader (``ReplicaAlterLogDirsThread`` fetching from a
``LocalLeaderEndPoint``), then swapping it in once it has caught up. Here the same copy runs on
the event loop as :class:`LogDirMover`, one task for the whole broker:

* one partition at a time, as Kafka's thread does (the one in progress until it is done, then
  the first in (topic, partition) order): each **step** reads whole batches from the current log
  at the future log's end offset, at most ``replica.fetch.max.bytes`` of them, and appends them
  to the future log as a follower appends (CRCs checked, epochs and producer state recorded;
  a compacted log's offset gaps kept). The task yields to the loop between steps, so produce,
  fetch and replication go on while a partition moves;
* before each step the future log is checked against the current one as a follower's fetch is
  checked against its leader (:func:`next_step`): where the current log's leader epochs part
  from the future's (the current log was truncated by its own replica fetcher, or changed while
  the broker was down), the future log is truncated as a follower truncates
  (:func:`pybroker.cluster.fetcher_state.offset_truncation_state`); below the current log's
  start it starts afresh there; its log start offset follows the current one's;
* when a step leaves the future log ending where the current log ends, the swap happens in the
  same step (:meth:`MoveHost.complete_move`, which runs
  :meth:`pybroker.log.manager.LogManager.replace_current_with_future` and gives the partition
  its new log): no append can come between the last copy and the swap.

A step that fails (an I/O error in the destination dir, say) leaves the partition ``Failed``
with its future log in place: another AlterReplicaLogDirs naming the same dir, a leadership
change naming the partition, or a restart starts it again. Each partition's state is a table of
legal transitions (:data:`VALID_PREVIOUS_STATES`).

Concurrency notes: everything runs on the event loop; a step never awaits, so the logs cannot
change within it.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from protocol.records.batch import HEADER_SIZE, BatchHeader
from pybroker.cluster.fetcher_state import offset_truncation_state
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.state_table import IllegalTransition, StateTable
from pybroker.kernel.types import TopicPartition, tp_str

if TYPE_CHECKING:
    from pybroker.log.log import Log

log = logging.getLogger(__name__)


#: Kafka's ``replica.fetch.max.bytes``: what one step copies at most (the first batch whole)
DEFAULT_CHUNK_BYTES = 1024 * 1024
#: a partition whose logs still disagree after this many truncations in one step fails (each
#: round moves the future log's end down or its epochs back, so real logs need a few at most)
MAX_TRUNCATION_ROUNDS = 64


# -- the decision of a step (pure) -------------------------------------------------------------


class Action(enum.Enum):
    #: read from the current log at the future log's end and append what was read
    COPY = "copy"
    #: the future log goes back to ``offset``: the current log no longer has what follows
    TRUNCATE = "truncate"
    #: the future log starts afresh, empty, at ``offset`` (the current log's start)
    START_AT = "start at"
    #: the future log has caught up: it replaces the current one
    SWAP = "swap"


@dataclass(frozen=True, slots=True)
class MoveStep:
    action: Action
    offset: int
    reason: str = ""


class LogView(Protocol):
    """What a step looks at in either log (:class:`pybroker.log.log.Log` has it)."""

    log_start_offset: int
    log_end_offset: int

    @property
    def latest_epoch(self) -> int | None: ...

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int] | None: ...


def next_step(current: LogView, future: LogView) -> MoveStep:
    """What the future log needs next to become a copy of the current one.

    * **Divergence**, by leader epochs (the check a leader makes of a follower's fetch,
      KIP-595): the current log's end for the future log's latest epoch must be that epoch and
      not before the future log's end. When it is not, the future log truncates where the two
      part (:func:`offset_truncation_state`; when that takes more than one round, the next
      call finds the rest). An epoch the current log knows nothing above of (it truncated that
      epoch away, or was emptied) is asked again with the current log's latest epoch, as a
      follower asks its leader; a current log without any epoch cannot be compared, and only
      the offsets below decide (as Kafka's thread then does).
    * **Out of range**: a future log ending below the current log's start starts afresh at that
      start; one ending past the current log's end goes back to it.
    * The same end: **swap**. Otherwise **copy** from the future log's end.
    """
    end = future.log_end_offset
    epoch = future.latest_epoch
    if epoch is not None:
        found = current.end_offset_for_epoch(epoch)
        if found is None and current.latest_epoch is not None:
            found = (current.latest_epoch, current.log_end_offset)
        if found is not None and (found[0] < epoch or found[1] < end):
            truncation = offset_truncation_state(
                found[0], found[1], fetch_offset=end, log_end_offset=end,
                local_end_offset_for=future.end_offset_for_epoch)
            if truncation.offset < end:
                return MoveStep(Action.TRUNCATE, truncation.offset,
                                f"the current log's epoch {found[0]} ends at {found[1]}, the "
                                f"future log's last epoch is {epoch}")
    if end < current.log_start_offset:
        return MoveStep(Action.START_AT, current.log_start_offset,
                        f"the current log starts at {current.log_start_offset}, after the "
                        f"future log's end {end}")
    if end > current.log_end_offset:
        return MoveStep(Action.TRUNCATE, current.log_end_offset,
                        f"the current log ends at {current.log_end_offset}, before the future "
                        f"log's end {end}")
    if end == current.log_end_offset:
        return MoveStep(Action.SWAP, end)
    return MoveStep(Action.COPY, end)


# -- a partition's state -------------------------------------------------------------------------


class MoveState(enum.Enum):
    """A moving partition's state in the mover (Kafka's fetch states of the partitions of a
    ``ReplicaAlterLogDirsThread``, with its failed partitions)."""

    COPYING = "Copying"
    #: a step failed: left alone (with its future log) until the move is asked for again
    FAILED = "Failed"


_S = MoveState


class IllegalMoveTransition(IllegalTransition):
    """The mover tried a transition the state table forbids."""

    @classmethod
    def describe(cls, subject: Any) -> str:
        return tp_str(subject)


#: target state -> the states it may be entered from (Kafka's ``validPreviousStates`` form). A
#: move starts Copying; it ends (leaving the table) when the swap is done, the move is cancelled
#: or the partition goes.
VALID_PREVIOUS_STATES: StateTable[MoveState] = StateTable({
    _S.COPYING: {_S.FAILED},
    _S.FAILED: {_S.COPYING},
}, initial=_S.COPYING, error=IllegalMoveTransition)

#: ``check_transition(tp, source, target)`` raises :class:`IllegalMoveTransition`
check_transition = VALID_PREVIOUS_STATES.check


# -- the mover ---------------------------------------------------------------------------------


class MoveHost(Protocol):
    """What the mover needs from the replica manager."""

    def move_logs(self, topic: str, partition: int) -> tuple[Log, Log] | None:
        """The partition's current and future logs; None when it is no longer moving (the
        partition or its future log is gone)."""

    def complete_move(self, topic: str, partition: int, now_ms: int) -> None:
        """Swap the future log in (it ends where the current log ends)."""


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one step did to a partition."""

    topic: str
    partition: int
    copied_bytes: int
    truncations: int
    swapped: bool


class LogDirMover:
    """The partitions being moved between log dirs, copied one at a time by one task."""

    def __init__(self, host: MoveHost, *, chunk_bytes: int = DEFAULT_CHUNK_BYTES,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.host = host
        self.chunk_bytes = chunk_bytes
        self.clock = clock
        self._states: dict[TopicPartition, MoveState] = {}
        self._in_progress: TopicPartition | None = None
        self._wakeup: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    # -- the partitions --------------------------------------------------------------------
    def add(self, topic: str, partition: int) -> None:
        """Move the partition (its future log exists); a Failed one starts again, one being
        copied goes on. The task starts with the first partition when a loop runs (without
        one, :meth:`step` drives the copy)."""
        tp = (topic, partition)
        state = self._states.get(tp)
        if state is MoveState.COPYING:
            return
        if state is not None:
            check_transition(tp, state, MoveState.COPYING)
        self._states[tp] = MoveState.COPYING
        log.info("Moving %s-%d to another log dir%s", topic, partition,
                 " again after a failure" if state is MoveState.FAILED else "")
        self._start()

    def remove(self, partitions: Iterable[TopicPartition]) -> None:
        """Stop moving these partitions (their future logs are the caller's to drop)."""
        for tp in partitions:
            self._states.pop(tp, None)
            if self._in_progress == tp:
                self._in_progress = None

    def state_of(self, topic: str, partition: int) -> MoveState | None:
        return self._states.get((topic, partition))

    @property
    def moving(self) -> dict[TopicPartition, MoveState]:
        return dict(self._states)

    def _fail(self, tp: TopicPartition) -> None:
        check_transition(tp, self._states[tp], MoveState.FAILED)
        self._states[tp] = MoveState.FAILED
        if self._in_progress == tp:
            self._in_progress = None

    def _next_partition(self) -> TopicPartition | None:
        """The partition in progress while it is still copying, else the first copying one in
        (topic, partition) order (Kafka's ``selectPartitionToFetch``)."""
        if self._in_progress is not None and \
                self._states.get(self._in_progress) is MoveState.COPYING:
            return self._in_progress
        ready = [tp for tp, state in self._states.items() if state is MoveState.COPYING]
        self._in_progress = min(ready) if ready else None
        return self._in_progress

    # -- copying ---------------------------------------------------------------------------
    def step(self, now_ms: int) -> StepResult | None:
        """Copy one chunk of the partition in progress, swapping when it has caught up; None
        when no partition is copying. A failure is logged and fails the partition."""
        tp = self._next_partition()
        if tp is None:
            return None
        try:
            result = self._step(tp, now_ms)
        except Exception:
            log.exception("Moving %s-%d to another log dir failed; the partition stays in its "
                          "current dir until the move is asked for again", *tp)
            self._fail(tp)
            return StepResult(tp[0], tp[1], 0, 0, False)
        if result is None or result.swapped:
            self.remove([tp])
        return result or StepResult(tp[0], tp[1], 0, 0, False)

    def _step(self, tp: TopicPartition, now_ms: int) -> StepResult | None:
        logs = self.host.move_logs(*tp)
        if logs is None:
            return None
        current, future = logs
        truncations = 0
        step = next_step(current, future)
        while step.action in (Action.TRUNCATE, Action.START_AT):
            truncations += 1
            if truncations > MAX_TRUNCATION_ROUNDS:
                raise RuntimeError(f"the future log of {tp[0]}-{tp[1]} still parts from the "
                                   f"current one after {MAX_TRUNCATION_ROUNDS} truncations")
            log.info("The future log of %s-%d: %s %d (%s)", tp[0], tp[1], step.action.value,
                     step.offset, step.reason)
            if step.action is Action.TRUNCATE:
                future.truncate_to(step.offset)
            else:
                future.truncate_fully_and_start_at(step.offset, now_ms)
            step = next_step(current, future)
        copied = 0
        if step.action is Action.COPY:
            copied = self._copy(tp, current, future, now_ms)
        if current.log_start_offset > future.log_start_offset:
            future.delete_records_before(min(current.log_start_offset, future.log_end_offset),
                                         now_ms)
        swapped = future.log_end_offset == current.log_end_offset
        if swapped:
            self.host.complete_move(tp[0], tp[1], now_ms)
        return StepResult(tp[0], tp[1], copied, truncations, swapped)

    def _copy(self, tp: TopicPartition, current: Log, future: Log, now_ms: int) -> int:
        """Whole batches of the current log from the future log's end, appended as a follower
        appends; returns the bytes copied."""
        read = current.read(future.log_end_offset, self.chunk_bytes, min_one_batch=True)
        records = read.records
        data = records if isinstance(records, bytes) else records.read_bytes()
        if len(data) < HEADER_SIZE:
            return 0
        first = BatchHeader.parse(data).base_offset
        if first < future.log_end_offset:
            if future.log_end_offset == future.log_start_offset:
                # an empty future log started inside this batch (the current log's start is
                # inside it): start at the batch, the log start follows below
                future.truncate_fully_and_start_at(first, now_ms)
            else:
                log.warning("The future log of %s-%d ends at %d inside the current log's batch "
                            "at %d: copying that batch again", tp[0], tp[1],
                            future.log_end_offset, first)
                future.truncate_to(first)
        info = future.append_as_follower(data, now_ms, allow_offset_gaps=True)
        return info.valid_bytes

    async def run(self) -> None:
        """Copy until cancelled: a step, then a turn of the event loop; wait when no partition
        is copying."""
        wakeup = self._wakeup
        assert wakeup is not None
        while True:
            if self.step(self.clock.milliseconds()) is None:
                wakeup.clear()
                await wakeup.wait()
            else:
                await asyncio.sleep(0)

    def _start(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a test driving step() by hand): nothing to start
        if self._wakeup is None:
            self._wakeup = asyncio.Event()
        self._wakeup.set()
        if self._task is None or self._task.done():
            self._task = loop.create_task(self.run(), name="alter-log-dirs")

    def shutdown(self) -> None:
        """Stop the task (at its next turn); the future logs stay, a restart resumes."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._wakeup = None


__all__ = [
    "Action",
    "DEFAULT_CHUNK_BYTES",
    "LogDirMover",
    "MoveHost",
    "MoveState",
    "MoveStep",
    "StepResult",
    "VALID_PREVIOUS_STATES",
    "next_step",
]
