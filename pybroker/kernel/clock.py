"""Time, as the broker's subsystems read it: one :class:`Clock` handed down from the broker.

Kafka passes every component a ``Time`` (``SystemTime`` in a broker, ``MockTime`` in tests);
pybroker does the same. A broker builds one :class:`SystemClock` and gives it to the
subsystems it constructs (the replica manager and its log dir mover, the replica fetchers,
the coordinators, the request dispatcher); a test hands a subsystem a :class:`ManualClock` and
moves it. Code that already has a time (most methods take ``now_ms``) keeps taking it: the
clock is read where time is taken afresh, at an entry point or after an await.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def milliseconds(self) -> int:
        """Wall-clock time, in milliseconds since the epoch (Kafka's ``Time.milliseconds``):
        what timestamps, deadlines and expiries are written in."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back, for measuring how long something took."""
        ...


class SystemClock:
    """The real time."""

    __slots__ = ()

    def milliseconds(self) -> int:
        return int(time.time() * 1000)

    #: the builtin itself, not a method wrapping it: read on every request's path
    monotonic = staticmethod(time.monotonic)


class ManualClock:
    """Time that moves only when a test moves it (Kafka's ``MockTime``): both readings advance
    together."""

    __slots__ = ("ms", "_monotonic")

    def __init__(self, ms: int = 0, monotonic: float = 0.0) -> None:
        self.ms = ms
        self._monotonic = monotonic

    def milliseconds(self) -> int:
        return self.ms

    def monotonic(self) -> float:
        return self._monotonic

    def advance(self, ms: int) -> None:
        self.ms += ms
        self._monotonic += ms / 1000

    def set(self, ms: int) -> None:
        """Jump the wall clock to ``ms`` (the monotonic reading moves by as much, never back)."""
        self._monotonic += max(ms - self.ms, 0) / 1000
        self.ms = ms


#: the real time, for the subsystems built without a broker's clock (tools, tests)
SYSTEM_CLOCK = SystemClock()
