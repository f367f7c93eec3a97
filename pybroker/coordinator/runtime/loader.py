"""Replaying a coordinator partition's log without holding the event loop (Kafka's
``CoordinatorLoaderImpl``).

A coordinator that starts leading a partition rebuilds its state from the partition's log,
from the log start to the log end: chunk by chunk of at most the coordinator's load buffer (``offsets.load.buffer.size``,
``transaction.state.log.load.buffer.size``; one batch larger than that is read whole, as
Kafka grows its buffer), each batch handed to the coordinator's :class:`Replay`. The log end
is read afresh with every chunk: the coordinator refuses writes while it loads, but a
transaction marker may still be appended to the partition meanwhile, and the load must
replay it (the coordinator takes the replay over in the same turn of the loop as the last
read, so nothing falls between the two). Kafka loads on
a thread of its own; here the load shares the event loop with every request, so it gives the
loop back after every chunk and, within a chunk, once it has worked for
:data:`DEFAULT_MAX_SLICE_MS`: a load of hundreds of megabytes then delays a request by a
slice, not by the whole load.

:meth:`CoordinatorLoader.steps` is the load as a generator that yields where the loop may run
something else; :meth:`CoordinatorLoader.load` drives it on the loop, :meth:`load_now` in
one go (a test, or a replay that must be complete at once).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Protocol

from protocol.errors import ErrorCode, KafkaError
from protocol.records.record import iter_batches
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock

from .writer import PartitionWriter

#: how long a load works before it gives the loop back, within a chunk (milliseconds)
DEFAULT_MAX_SLICE_MS = 5.0


class Replay(Protocol):
    """A coordinator's replay of its records: each batch of the log, in order."""

    def apply_batch(self, buf: bytes, pos: int) -> None:
        """Apply the batch at ``pos`` of ``buf`` (whole, CRC not yet checked)."""
        ...


@dataclass(slots=True)
class LoadSummary:
    """What a load read, and how often it gave the loop back."""

    partition: int
    start_offset: int = 0
    #: the offset after the last batch replayed (the log end when the load completed)
    end_offset: int = 0
    chunks: int = 0
    batches: int = 0
    bytes: int = 0
    #: the largest chunk read, in bytes
    max_chunk_bytes: int = 0
    #: how many times the load gave the loop back
    yields: int = 0
    #: the longest stretch the load worked without giving the loop back, in milliseconds
    max_slice_ms: float = 0.0
    elapsed_ms: float = 0.0


def not_led(topic: str, partition: int) -> KafkaError:
    return KafkaError(ErrorCode.NOT_COORDINATOR, f"{topic}-{partition} is not led by this broker")


class CoordinatorLoader:
    """Loads partitions of one coordinator's internal topic; see the module docstring."""

    def __init__(self, writer: PartitionWriter, load_buffer_size: int, *,
                 clock: Clock = SYSTEM_CLOCK, max_slice_ms: float = DEFAULT_MAX_SLICE_MS) -> None:
        if load_buffer_size <= 0:
            raise ValueError(f"the load buffer size must be positive, not {load_buffer_size}")
        self.writer = writer
        self.load_buffer_size = load_buffer_size
        self.clock = clock
        self.max_slice_s = max_slice_ms / 1000

    def steps(self, partition: int, replay: Replay, summary: LoadSummary,
              ) -> Generator[None, None, LoadSummary]:
        """The load of ``partition`` into ``replay``, yielding wherever the loop may run
        something else (after every chunk, and within one after a slice of work); returns
        ``summary``, filled in. Raises ``KafkaError(NOT_COORDINATOR)`` when this broker does
        not lead the partition, at the start or at any chunk."""
        clock = self.clock
        started = slice_start = clock.monotonic()
        offset = self.writer.log_start_offset(partition)
        if offset is None:
            raise not_led(self.writer.name, partition)
        summary.start_offset = summary.end_offset = offset
        end: int | None = None
        while end is None or offset < end:
            chunk = self.writer.read_chunk(partition, offset, self.load_buffer_size)
            if chunk is None:
                raise not_led(self.writer.name, partition)
            end = chunk.log_end_offset
            buf = chunk.records
            if not buf:
                break
            summary.chunks += 1
            summary.bytes += len(buf)
            summary.max_chunk_bytes = max(summary.max_chunk_bytes, len(buf))
            progressed = False
            for pos, header in iter_batches(buf):
                next_offset = header.base_offset + header.last_offset_delta + 1
                if next_offset <= offset:
                    continue  # a batch wholly before the offset asked for
                replay.apply_batch(buf, pos)
                summary.batches += 1
                offset = summary.end_offset = next_offset
                progressed = True
                now = clock.monotonic()
                if now - slice_start >= self.max_slice_s:
                    summary.max_slice_ms = max(summary.max_slice_ms, (now - slice_start) * 1000)
                    summary.yields += 1
                    yield
                    slice_start = clock.monotonic()
            if not progressed or offset >= end:
                break
            now = clock.monotonic()
            summary.max_slice_ms = max(summary.max_slice_ms, (now - slice_start) * 1000)
            summary.yields += 1
            yield
            slice_start = clock.monotonic()
        now = clock.monotonic()
        summary.max_slice_ms = max(summary.max_slice_ms, (now - slice_start) * 1000)
        summary.elapsed_ms = (now - started) * 1000
        return summary

    def load_now(self, partition: int, replay: Replay) -> LoadSummary:
        """The whole load at once, without giving the loop back."""
        steps = self.steps(partition, replay, LoadSummary(partition))
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value

    async def load(self, partition: int, replay: Replay, *,
                   still_wanted: Callable[[], bool] = lambda: True) -> LoadSummary | None:
        """The load on the loop, giving it back between slices; None when ``still_wanted()``
        turned false at one of them (the partition was unloaded or elected again)."""
        steps = self.steps(partition, replay, LoadSummary(partition))
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value
            await asyncio.sleep(0)
            if not still_wanted():
                steps.close()
                return None
