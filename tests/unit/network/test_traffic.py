"""A listener's request-size window (Kafka's SampledStat of two 30 s samples): the average
and maximum of the frames recorded per read, rolled by the clock it is given."""

from __future__ import annotations

import math

from pybroker.network.traffic import SAMPLE_WINDOW_S, WindowedSize


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_average_and_maximum_over_the_last_two_windows() -> None:
    clock = Clock()
    size = WindowedSize(clock)
    assert all(math.isnan(v) for v in size.read())  # nothing recorded: NaN, as Kafka reads
    size.record_frames([b"x" * 10, b"x" * 30])
    assert size.read() == (20.0, 30.0)
    clock.now += SAMPLE_WINDOW_S  # a second window: both still count
    size.record_frames([b"x" * 50])
    assert size.read() == (30.0, 50.0)
    clock.now += SAMPLE_WINDOW_S  # the first window falls out
    size.record_frames([b"x" * 2])
    assert size.read() == (26.0, 50.0)


def test_after_a_long_idle_it_starts_over() -> None:
    clock = Clock()
    size = WindowedSize(clock)
    size.record_frames([b"x" * 100])
    clock.now += 10 * SAMPLE_WINDOW_S
    assert all(math.isnan(v) for v in size.read())
    size.record_frames([b"x" * 4, b"x" * 8])
    assert size.read() == (6.0, 8.0)
