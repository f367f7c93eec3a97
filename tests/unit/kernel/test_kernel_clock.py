"""The kernel's clocks: the system's, and one a test moves."""

from __future__ import annotations

import time

from pybroker.kernel.clock import SYSTEM_CLOCK, Clock, ManualClock, SystemClock


def test_the_system_clock_reads_the_time() -> None:
    clock: Clock = SystemClock()
    before = int(time.time() * 1000)
    assert before <= clock.milliseconds() <= int(time.time() * 1000)
    start = clock.monotonic()
    assert SYSTEM_CLOCK.monotonic() >= start


def test_a_manual_clock_moves_when_told() -> None:
    clock = ManualClock(1_000, monotonic=5.0)
    assert (clock.milliseconds(), clock.monotonic()) == (1_000, 5.0)
    clock.advance(250)
    assert (clock.milliseconds(), clock.monotonic()) == (1_250, 5.25)
    clock.set(2_000)
    assert (clock.milliseconds(), clock.monotonic()) == (2_000, 6.0)
    clock.set(0)  # the wall clock may go back; the monotonic one does not
    assert (clock.milliseconds(), clock.monotonic()) == (0, 6.0)
