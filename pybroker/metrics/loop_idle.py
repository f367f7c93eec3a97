"""How idle the broker's event loop is: Kafka's ``NetworkProcessorAvgIdlePercent`` and
``RequestHandlerAvgIdlePercent``, whose honest equivalent here is one number, since one event
loop both reads the sockets and runs the handlers.

The loop the broker runs on is made with an :class:`IdleSelector`, a selector that adds up the
time it waits in ``select()`` with nothing to do: two clock reads per wake-up of the loop. The
share of the wall time it waited is the idle share: since the last read of the gauge for
``NetworkProcessorAvgIdlePercent`` (Kafka averages its processors' recent idle meters), since
start-up for ``RequestHandlerAvgIdlePercent`` (Kafka's is a meter read by its mean rate).
"""

from __future__ import annotations

import asyncio
import selectors
import threading
import time
from typing import Any

_local = threading.local()


class IdleSelector(selectors.DefaultSelector):
    """The platform's default selector, timing its waits; see the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        self.started = time.perf_counter()
        #: seconds spent waiting in select()
        self.idle_s = 0.0
        _local.selector = self

    def select(self, timeout: float | None = None) -> list[Any]:
        if timeout is not None and timeout <= 0:
            return super().select(timeout)  # a poll: work is waiting, not idle time
        before = time.perf_counter()
        try:
            return super().select(timeout)
        finally:
            self.idle_s += time.perf_counter() - before


def new_event_loop() -> asyncio.AbstractEventLoop:
    """An event loop on an :class:`IdleSelector` (``asyncio.Runner(loop_factory=...)``)."""
    return asyncio.SelectorEventLoop(IdleSelector())


def current_selector() -> IdleSelector | None:
    """The idle selector of the loop made on this thread, if it was made so."""
    return getattr(_local, "selector", None)


class IdleShare:
    """The idle share of one selector's loop, recent and since start."""

    def __init__(self, selector: IdleSelector) -> None:
        self.selector = selector
        self._last = (selector.started, 0.0)

    def recent(self) -> float:
        """Idle share since the previous call (the first: since start-up)."""
        now, idle = time.perf_counter(), self.selector.idle_s
        then, idle_then = self._last
        self._last = (now, idle)
        wall = now - then
        return min(1.0, max(0.0, (idle - idle_then) / wall)) if wall > 0 else 1.0

    def since_start(self) -> float:
        wall = time.perf_counter() - self.selector.started
        return min(1.0, max(0.0, self.selector.idle_s / wall)) if wall > 0 else 1.0
