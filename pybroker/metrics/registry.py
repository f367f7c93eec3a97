"""The broker's metrics, as Kafka's Yammer metrics are (``KafkaMetricsGroup``): each one is an
MBean name - ``kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=orders`` - and one
of Kafka's kinds:

- a :class:`Meter` counts events (``mark(n)``); Kafka's JMX shows its ``Count`` and decaying
  one-, five- and fifteen-minute rates, which :class:`MetricsRegistry` derives from the count
  when it is read (every five seconds of the clock, as Yammer ticks), never per event;
- a :class:`Histogram` keeps the last :data:`RESERVOIR_SIZE` values (Yammer's biased reservoir
  also keeps about that many, weighted to the last minutes) and its count; quantiles are taken
  when it is read;
- a :class:`Timer` is both: the rate of the events it times and their durations;
- a :class:`Gauge` is a function read when the metrics are (``Value``);
- a :class:`GaugeFamily` is many gauges of one MBean type and name read by one function, one
  per tag set (a gauge per partition: ``kafka.log:type=Log,name=Size,topic=...,partition=...``),
  so that nothing is registered or removed as partitions come and go;
- an :class:`Exported` family is not an MBean at all but Prometheus series named as the tool
  operators run beside Kafka names them (kafka-exporter's consumer-group lag), served as they
  are, beside what the JMX exporter's rules name;
- an :class:`AttributeGroup` is an MBean of Kafka's own metrics library rather than Yammer's
  (``kafka.server:type=socket-server-metrics,listener=...``): no ``name`` key, one attribute
  per metric (``connection-count``...), read as a mapping when the metrics are.

Metrics are created on first use and then held by the subsystem that updates them, so an update
is one attribute increment (or one store into the reservoir). Everything here runs on the
broker's event loop: the endpoint reads a :meth:`MetricsRegistry.snapshot` taken there.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pybroker.kernel.clock import SYSTEM_CLOCK, Clock

M = TypeVar("M", "Meter", "Histogram", "Timer")

#: values a histogram keeps (Yammer's ``ExponentiallyDecayingReservoir`` default size)
RESERVOIR_SIZE = 1028
#: the quantiles Kafka's JMX attributes name (50thPercentile ... 999thPercentile)
QUANTILES = (0.50, 0.75, 0.95, 0.98, 0.99, 0.999)
#: how often a meter's decaying rates move (Yammer's ``Meter.TICK_INTERVAL``)
TICK_INTERVAL_S = 5.0
_RATE_WINDOWS_MIN = (1, 5, 15)
_ALPHAS = tuple(1.0 - math.exp(-TICK_INTERVAL_S / 60.0 / minutes) for minutes in _RATE_WINDOWS_MIN)


@dataclass(frozen=True, slots=True)
class MBean:
    """A metric's JMX name: ``<domain>:type=<type>,name=<name>[,<tag>=<value>...]``, tags in
    the order Kafka adds them (the order the Prometheus JMX exporter's rules see)."""

    domain: str
    type: str
    name: str
    tags: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        keys = [("type", self.type), *([("name", self.name)] if self.name else []), *self.tags]
        return f"{self.domain}:" + ",".join(f"{k}={v}" for k, v in keys)

    def exporter_bean(self) -> str:
        """The MBean as the JMX exporter writes it in the lines its rules match:
        ``domain<type=T, name=N, key=value>``."""
        keys = [("type", self.type), *([("name", self.name)] if self.name else []), *self.tags]
        return f"{self.domain}<" + ", ".join(f"{k}={v}" for k, v in keys) + ">"

    def tag(self, key: str) -> str | None:
        for k, v in self.tags:
            if k == key:
                return v
        return None


def mbean(domain: str, type_: str, name: str, **tags: object) -> MBean:
    """An :class:`MBean`; tags in the order given, their values as strings."""
    return MBean(domain, type_, name, tuple((k, str(v)) for k, v in tags.items()))


class Meter:
    """Counts events; see the module docstring."""

    __slots__ = ("count", "_rates", "_last_count", "_last_tick", "_started")

    def __init__(self, now: float) -> None:
        self.count = 0
        self._rates: list[float | None] = [None, None, None]
        self._last_count = 0
        self._last_tick = now
        self._started = now

    def mark(self, n: int = 1) -> None:
        self.count += n

    def _tick(self, now: float) -> None:
        ticks = int((now - self._last_tick) // TICK_INTERVAL_S)
        if ticks <= 0:
            return
        instant = (self.count - self._last_count) / TICK_INTERVAL_S
        self._last_count = self.count
        self._last_tick += ticks * TICK_INTERVAL_S
        for i, alpha in enumerate(_ALPHAS):
            rate = self._rates[i]
            rate = instant if rate is None else rate + alpha * (instant - rate)
            # the ticks with nothing counted after the first decay the rate further
            rate *= (1.0 - alpha) ** (ticks - 1)
            self._rates[i] = rate

    def rates(self, now: float) -> tuple[float, float, float, float]:
        """``(mean, one-minute, five-minute, fifteen-minute)`` events per second."""
        self._tick(now)
        elapsed = now - self._started
        mean = self.count / elapsed if elapsed > 0 else 0.0
        r1, r5, r15 = (r or 0.0 for r in self._rates)
        return mean, r1, r5, r15


class HistogramReading:
    """What a histogram reads as: its count and the values it keeps, and the quantiles and
    statistics taken from them when the metrics are read. :class:`Histogram` stores its values;
    a view may compute them (:class:`~pybroker.metrics.request_metrics.RequestHistogram`)."""

    __slots__ = ()

    @property
    def count(self) -> int:
        raise NotImplementedError

    @property
    def values(self) -> Sequence[float]:
        raise NotImplementedError

    def quantiles(self) -> list[tuple[float, float]]:
        """``(quantile, value)`` for each of :data:`QUANTILES`, as Yammer's ``Snapshot``
        interpolates them (0 for an empty histogram)."""
        values = sorted(self.values)
        if not values:
            return [(q, 0.0) for q in QUANTILES]
        out = []
        n = len(values)
        for q in QUANTILES:
            pos = q * (n + 1)
            if pos < 1:
                v = values[0]
            elif pos >= n:
                v = values[-1]
            else:
                lower = values[int(pos) - 1]
                upper = values[int(pos)]
                v = lower + (pos - math.floor(pos)) * (upper - lower)
            out.append((q, v))
        return out

    def stats(self) -> tuple[float, float, float]:
        """``(min, max, mean)`` of the values kept (0s when empty)."""
        values = self.values
        if not values:
            return 0.0, 0.0, 0.0
        return min(values), max(values), sum(values) / len(values)


class Histogram(HistogramReading):
    """Keeps the last :data:`RESERVOIR_SIZE` values (``values``, a bounded deque) and how many
    there were (``count``). A hot path may do what :meth:`update` does in place -
    ``h.count += 1; h.values.append(v)`` - and save a Python call per value."""

    __slots__ = ("count", "values")
    count: int
    values: deque[float]

    def __init__(self) -> None:
        self.count = 0
        self.values = deque(maxlen=RESERVOIR_SIZE)

    def update(self, value: float) -> None:
        self.count += 1
        self.values.append(value)


class Timer:
    """The rate of the events it times (a :class:`Meter`) and their durations in ms (a
    :class:`Histogram`)."""

    __slots__ = ("meter", "histogram")

    def __init__(self, now: float) -> None:
        self.meter = Meter(now)
        self.histogram = Histogram()

    def update(self, duration_ms: float) -> None:
        self.meter.count += 1
        self.histogram.update(duration_ms)

    @property
    def count(self) -> int:
        return self.meter.count


@dataclass(slots=True)
class Gauge:
    """A value read when the metrics are."""

    read: Callable[[], float | int | bool | None]


@dataclass(slots=True)
class GaugeFamily:
    """Gauges read together: each call yields ``(tags, value)`` per MBean of the family."""

    read: Callable[[], Iterable[tuple[tuple[tuple[str, str], ...], float | int]]]


@dataclass(slots=True)
class AttributeGroup:
    """The attributes of one MBean of Kafka's own metrics library, read as a mapping."""

    read: Callable[[], Mapping[str, float | int]]


@dataclass(slots=True)
class Exported:
    """Series served as named: ``kind`` is ``gauge`` or ``counter`` (``name`` then without
    ``_total``); each call yields ``(labels, value)``."""

    kind: str
    help: str
    read: Callable[[], Iterable[tuple[tuple[tuple[str, str], ...], float | int]]]


Metric = Meter | HistogramReading | Timer | Gauge | GaugeFamily | AttributeGroup | Exported


@dataclass(frozen=True, slots=True)
class Sample:
    """What one metric read as, at one snapshot: ``kind`` is ``meter``, ``histogram``,
    ``timer``, ``gauge`` or ``attributes``; ``value`` the gauge's value or the count;
    ``rates`` a meter's (mean, 1, 5, 15 min); ``quantiles`` a histogram's; ``stats`` its (min,
    max, mean); ``attributes`` an attribute group's values."""

    mbean: MBean
    kind: str
    value: float
    rates: tuple[float, float, float, float] | None = None
    quantiles: tuple[tuple[float, float], ...] = ()
    stats: tuple[float, float, float] | None = None
    attributes: tuple[tuple[str, float], ...] = ()
    #: an exported family's (labels, value) series (its name is ``mbean.name``)
    series: tuple[tuple[tuple[tuple[str, str], ...], float], ...] = ()
    help: str = ""


@dataclass
class MetricsRegistry:
    """Every metric of the broker by MBean name; see the module docstring."""

    clock: Clock = SYSTEM_CLOCK
    _metrics: dict[MBean, Metric] = field(default_factory=dict)

    def _get_or_make(self, name: MBean, kind: type[M], make: Callable[[], M]) -> M:
        m = self._metrics.get(name)
        if m is None:
            m = self._metrics[name] = make()
        assert isinstance(m, kind), f"{name} is a {type(m).__name__}"
        return m

    def meter(self, name: MBean) -> Meter:
        return self._get_or_make(name, Meter, lambda: Meter(self.clock.monotonic()))

    def histogram(self, name: MBean) -> Histogram:
        return self._get_or_make(name, Histogram, Histogram)

    def timer(self, name: MBean) -> Timer:
        return self._get_or_make(name, Timer, lambda: Timer(self.clock.monotonic()))

    def register(self, name: MBean, metric: Metric) -> None:
        """Register a metric made elsewhere (a meter a subsystem keeps for itself)."""
        self._metrics[name] = metric

    def gauge(self, name: MBean, read: Callable[[], float | int | bool | None]) -> None:
        """Register (or replace) a gauge."""
        self._metrics[name] = Gauge(read)

    def gauge_family(self, name: MBean, read: Callable[
            [], Iterable[tuple[tuple[tuple[str, str], ...], float | int]]]) -> None:
        """Register (or replace) a family of gauges named ``name`` plus each tag set ``read``
        yields (``name.tags`` empty)."""
        self._metrics[name] = GaugeFamily(read)

    def attributes(self, name: MBean, read: Callable[[], Mapping[str, float | int]]) -> None:
        """Register (or replace) an attribute group (``name.name`` empty)."""
        self._metrics[name] = AttributeGroup(read)

    def exported(self, name: str, kind: str, help: str, read: Callable[
            [], Iterable[tuple[tuple[tuple[str, str], ...], float | int]]]) -> None:
        """Register (or replace) series served under ``name`` as they are (see
        :class:`Exported`)."""
        self._metrics[MBean("", "exported", name)] = Exported(kind, help, read)

    def remove(self, name: MBean) -> None:
        self._metrics.pop(name, None)

    def remove_where(self, matches: Callable[[MBean], bool]) -> int:
        """Remove every metric whose name ``matches``; how many there were."""
        gone = [n for n in self._metrics if matches(n)]
        for n in gone:
            del self._metrics[n]
        return len(gone)

    def get(self, name: MBean) -> Metric | None:
        return self._metrics.get(name)

    def names(self) -> Iterator[MBean]:
        return iter(list(self._metrics))

    def snapshot(self) -> list[Sample]:
        """Every metric as it reads now (gauges that fail or read None are left out)."""
        now = self.clock.monotonic()
        out: list[Sample] = []
        for name, m in list(self._metrics.items()):
            if isinstance(m, Meter):
                out.append(Sample(name, "meter", m.count, rates=m.rates(now)))
            elif isinstance(m, Timer):
                out.append(Sample(name, "timer", m.meter.count, rates=m.meter.rates(now),
                                  quantiles=tuple(m.histogram.quantiles()),
                                  stats=m.histogram.stats()))
            elif isinstance(m, HistogramReading):
                out.append(Sample(name, "histogram", m.count, quantiles=tuple(m.quantiles()),
                                  stats=m.stats()))
            elif isinstance(m, GaugeFamily):
                try:
                    members = list(m.read())
                except Exception:  # noqa: BLE001 - a family whose subject went away
                    continue
                for tags, member in members:
                    out.append(Sample(MBean(name.domain, name.type, name.name, tags), "gauge",
                                      float(member)))
            elif isinstance(m, Exported):
                try:
                    series = tuple((labels, float(v)) for labels, v in m.read())
                except Exception:  # noqa: BLE001 - a family whose subject went away
                    continue
                out.append(Sample(name, "exported-" + m.kind, 0.0, series=series,
                                  help=m.help))
            elif isinstance(m, AttributeGroup):
                try:
                    values = m.read()
                except Exception:  # noqa: BLE001 - a group whose subject went away
                    continue
                out.append(Sample(name, "attributes", 0.0, attributes=tuple(
                    (k, float(v)) for k, v in values.items())))
            else:
                try:
                    value = m.read()
                except Exception:  # noqa: BLE001 - a gauge whose subject went away
                    continue
                if value is None:
                    continue
                out.append(Sample(name, "gauge", float(value)))
        return out


def samples_named(samples: Iterable[Sample], type_: str, name: str) -> list[Sample]:
    """The samples of one MBean type and name (any tags)."""
    return [s for s in samples if s.mbean.type == type_ and s.mbean.name == name]
