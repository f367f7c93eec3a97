"""Kafka's sampled rate (``org.apache.kafka.common.metrics.stats.Rate`` over a
``SampledStat``), which every byte and request quota is measured with.

Values are added to the current sample until it is a window old; then the next sample starts
(the oldest is reused once there are ``samples`` of them). A sample older than ``samples``
windows is reset before it is read. The rate is the sum of the samples over the time since the
oldest sample started - never less than ``samples - 1`` whole windows, so that a client's first
second is measured over ten seconds with Kafka's defaults, and a short burst is not throttled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(slots=True)
class _Sample:
    start_ms: int
    value: float = 0.0

    def reset(self, now_ms: int) -> None:
        self.start_ms = now_ms
        self.value = 0.0


class SampledRate:
    """The rate per second of what is recorded, over ``samples`` windows of ``window_ms``.
    ``simple``: Kafka's ``SimpleRate`` (the replication quotas'), taken over the time since
    the oldest sample but at least one window, rather than ``samples - 1``."""

    __slots__ = ("samples", "window_ms", "_samples", "_current", "_min_windows")

    def __init__(self, samples: int, window_ms: int, *, simple: bool = False) -> None:
        self.samples = samples
        self.window_ms = window_ms
        self._samples: list[_Sample] = []
        self._current = 0
        self._min_windows = 1 if simple else samples - 1

    def record(self, value: float, now_ms: int) -> None:
        """``SampledStat.record``: into the current sample, or the next one once it is a
        window old."""
        if not self._samples:
            self._samples.append(_Sample(now_ms))
        sample = self._samples[self._current]
        if now_ms - sample.start_ms >= self.window_ms:
            self._current = (self._current + 1) % self.samples
            if self._current >= len(self._samples):
                sample = _Sample(now_ms)
                self._samples.append(sample)
            else:
                sample = self._samples[self._current]
                sample.reset(now_ms)
        sample.value += value

    def _purge(self, now_ms: int) -> None:
        expire = self.samples * self.window_ms
        for sample in self._samples:
            if now_ms - sample.start_ms >= expire:
                sample.reset(now_ms)

    def window_ms_at(self, now_ms: int) -> int:
        """``Rate.windowSize``: the time the rate is taken over."""
        self._purge(now_ms)
        if not self._samples:
            self._samples.append(_Sample(now_ms))
        elapsed = now_ms - min(s.start_ms for s in self._samples)
        if self._min_windows == 1:
            return max(elapsed, self.window_ms)
        full = elapsed // self.window_ms
        if full < self._min_windows:
            elapsed += (self._min_windows - full) * self.window_ms
        return elapsed

    def total(self, now_ms: int) -> float:
        self._purge(now_ms)
        return sum(s.value for s in self._samples)

    def measure(self, now_ms: int) -> float:
        """``Rate.measure``: per second."""
        total = self.total(now_ms)
        return total / (self.window_ms_at(now_ms) / 1000.0)


class SampledAvg:
    """Kafka's ``Avg`` over samples (a sensor's default config: 2 samples of 30 s): the mean
    of the values recorded in the samples still kept; NaN when there are none."""

    __slots__ = ("samples", "window_ms", "_values")

    def __init__(self, samples: int = 2, window_ms: int = 30_000) -> None:
        self.samples = samples
        self.window_ms = window_ms
        #: (start, total, count) of each sample, oldest first
        self._values: list[list[float]] = []

    def record(self, value: float, now_ms: int) -> None:
        if not self._values or now_ms - self._values[-1][0] >= self.window_ms:
            self._values.append([now_ms, 0.0, 0])
            del self._values[:-self.samples]
        sample = self._values[-1]
        sample[1] += value
        sample[2] += 1

    def measure(self, now_ms: int) -> float:
        kept = [s for s in self._values if now_ms - s[0] < self.samples * self.window_ms]
        count = sum(s[2] for s in kept)
        return sum(s[1] for s in kept) / count if count else math.nan
