"""Timers for the group coordinator, behind a protocol so the logic never reads a clock.

The coordinator schedules session expiries, rebalance deadlines and sync deadlines under
hashable keys. Scheduling a key that is already scheduled replaces it, which is how a heartbeat
pushes its member's session deadline back. A callback receives the time it runs at, in
milliseconds, and passes it on to the logic as ``now_ms``.

* :class:`ManualScheduler` is driven by tests: :meth:`ManualScheduler.advance_to` fires what
  is due in deadline order, each at its own deadline, including timers that callbacks schedule
  on the way.
* :class:`LoopScheduler` puts timers on an asyncio event loop.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable, Hashable
from typing import Protocol

TimerCallback = Callable[[int], None]


class Scheduler(Protocol):
    def schedule(self, key: Hashable, deadline_ms: int, callback: TimerCallback) -> None:
        """Run ``callback(now_ms)`` at ``deadline_ms``, replacing any timer under ``key``."""

    def cancel(self, key: Hashable) -> bool:
        """Drop the timer under ``key``; whether there was one."""

    def __contains__(self, key: Hashable) -> bool:
        """Whether a timer is scheduled under ``key``."""


class ManualScheduler:
    """A scheduler whose clock moves only when told to."""

    def __init__(self, now_ms: int = 0) -> None:
        self.now_ms = now_ms
        self._heap: list[tuple[int, int, Hashable]] = []
        self._live: dict[Hashable, tuple[int, int, TimerCallback]] = {}
        self._seq = itertools.count()

    def schedule(self, key: Hashable, deadline_ms: int, callback: TimerCallback) -> None:
        seq = next(self._seq)
        self._live[key] = (deadline_ms, seq, callback)
        heapq.heappush(self._heap, (deadline_ms, seq, key))

    def cancel(self, key: Hashable) -> bool:
        return self._live.pop(key, None) is not None

    def deadline(self, key: Hashable) -> int | None:
        entry = self._live.get(key)
        return None if entry is None else entry[0]

    def __contains__(self, key: Hashable) -> bool:
        return key in self._live

    def __len__(self) -> int:
        return len(self._live)

    def keys(self) -> list[Hashable]:
        return list(self._live)

    def advance_to(self, now_ms: int) -> int:
        """Fire every timer due by ``now_ms`` (ties in scheduling order); returns how many."""
        if now_ms < self.now_ms:
            raise ValueError(f"time cannot go back from {self.now_ms} to {now_ms}")
        fired = 0
        while self._heap and self._heap[0][0] <= now_ms:
            deadline, seq, key = heapq.heappop(self._heap)
            entry = self._live.get(key)
            if entry is None or entry[1] != seq:
                continue  # cancelled or replaced
            del self._live[key]
            self.now_ms = max(self.now_ms, deadline)
            entry[2](self.now_ms)
            fired += 1
        self.now_ms = now_ms
        return fired

    def advance(self, delta_ms: int) -> int:
        return self.advance_to(self.now_ms + delta_ms)


class LoopScheduler:
    """Timers on an asyncio loop; deadlines are converted against ``now_fn`` (ms)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, now_fn: Callable[[], int]) -> None:
        self._loop = loop
        self._now = now_fn
        self._handles: dict[Hashable, asyncio.TimerHandle] = {}

    def schedule(self, key: Hashable, deadline_ms: int, callback: TimerCallback) -> None:
        self.cancel(key)
        delay_s = max(deadline_ms - self._now(), 0) / 1000
        handle: asyncio.TimerHandle

        def fire() -> None:
            if self._handles.get(key) is handle:
                del self._handles[key]
            callback(self._now())

        handle = self._loop.call_later(delay_s, fire)
        self._handles[key] = handle

    def cancel(self, key: Hashable) -> bool:
        handle = self._handles.pop(key, None)
        if handle is None:
            return False
        handle.cancel()
        return True

    def __contains__(self, key: Hashable) -> bool:
        return key in self._handles

    def __len__(self) -> int:
        return len(self._handles)

    def shutdown(self) -> None:
        for handle in self._handles.values():
            handle.cancel()
        self._handles.clear()
