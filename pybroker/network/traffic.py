"""What one listener's connections read and write: Kafka's Selector metrics of
``kafka.server:type=socket-server-metrics,listener=L,networkProcessor=0`` - incoming and
outgoing bytes, requests and responses (totals and per-second rates), and the request size's
average and maximum over Kafka's window (two samples of 30 s, ``metrics.sample.window.ms``).

Connections count per wake-up (the bytes one read delivered, its frames) and per response,
never per record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sized

from pybroker.metrics.registry import Meter

#: Kafka's metrics.sample.window.ms and metrics.num.samples
SAMPLE_WINDOW_S = 30.0
SAMPLES = 2


class WindowedSize:
    """Average and maximum of the values of the last :data:`SAMPLES` windows (Kafka's
    ``SampledStat``: ``Avg`` and ``Max`` of ``request-size``)."""

    __slots__ = ("_samples", "_start", "_now")

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._start = now()
        #: (count, total, max) per window, the current one last
        self._samples: list[list[float]] = [[0, 0, 0.0]]

    def _roll(self, now: float) -> None:
        while now - self._start >= SAMPLE_WINDOW_S:
            self._start += SAMPLE_WINDOW_S
            self._samples.append([0, 0, 0.0])
            if now - self._start >= SAMPLE_WINDOW_S * SAMPLES:  # idle for long: start over
                self._start = now
                self._samples = [[0, 0, 0.0]]
        del self._samples[:-SAMPLES]

    def record_frames(self, frames: Iterable[Sized]) -> None:
        """Record the size of each frame of one read (one clock read for all of them)."""
        now = self._now()
        if now - self._start >= SAMPLE_WINDOW_S:
            self._roll(now)
        sample = self._samples[-1]
        for frame in frames:
            value = len(frame)
            sample[0] += 1
            sample[1] += value
            if value > sample[2]:
                sample[2] = value

    def read(self) -> tuple[float, float]:
        """(average, maximum); Kafka reads NaN for both with no value in the windows."""
        self._roll(self._now())
        count = sum(s[0] for s in self._samples)
        if not count:
            return float("nan"), float("nan")
        return sum(s[1] for s in self._samples) / count, max(s[2] for s in self._samples)


class Traffic:
    """A listener's bytes, requests and responses (one per listener, shared by its
    connections, all on the event loop)."""

    __slots__ = ("incoming", "outgoing", "requests", "responses", "request_size")

    def __init__(self, now: Callable[[], float]) -> None:
        at = now()
        self.incoming = Meter(at)
        self.outgoing = Meter(at)
        self.requests = Meter(at)
        self.responses = Meter(at)
        self.request_size = WindowedSize(now)
