"""How idle the broker's event loop is: Kafka's ``NetworkProcessorAvgIdlePercent`` and
``RequestHandlerAvgIdlePercent``, whose honest equivalent here is one number, since one event
loop both reads the sockets and runs the handlers.

The loop's thread has a CPU clock of its own (``pthread_getcpuclockid``); the share of the wall
time it did *not* run is the idle share: since the last read of the gauge for
``NetworkProcessorAvgIdlePercent`` (Kafka averages its processors' recent idle meters), since
start-up for ``RequestHandlerAvgIdlePercent`` (Kafka's is a meter read by its mean rate).
Nothing is done per wake-up of the loop: the clocks are read when the gauges are. Kafka's
processors count the time they wait in ``select``; the loop thread's CPU clock also stops
while it waits for the disk or for the interpreter lock, which is idle time for the loop too.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable


class IdleShare:
    """The idle share of the thread that made it (the event loop's: make it on the loop),
    recent and since start; readable from any thread."""

    def __init__(self) -> None:
        clock_id = getattr(time, "pthread_getcpuclockid", None)  # Unix; elsewhere the gauges
        # are read on the loop (the snapshot runs there), so the caller's thread time is its
        self._cpu: Callable[[], float] = (
            functools.partial(time.clock_gettime, clock_id(threading.get_ident()))
            if clock_id is not None else time.thread_time)
        self.started = time.perf_counter()
        self._cpu_started = self._cpu()
        self._last = (self.started, 0.0)

    @property
    def idle_s(self) -> float:
        """Seconds since start that the thread did not run."""
        return max(0.0, time.perf_counter() - self.started - (self._cpu() - self._cpu_started))

    def recent(self) -> float:
        """Idle share since the previous call (the first: since start-up)."""
        now, idle = time.perf_counter(), self.idle_s
        then, idle_then = self._last
        self._last = (now, idle)
        wall = now - then
        return min(1.0, max(0.0, (idle - idle_then) / wall)) if wall > 0 else 1.0

    def since_start(self) -> float:
        wall = time.perf_counter() - self.started
        return min(1.0, max(0.0, self.idle_s / wall)) if wall > 0 else 1.0
