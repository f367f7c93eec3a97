"""Charts of bytes in, bytes out and messages in, per broker and per topic, over the last
minutes, read from the brokers' Prometheus endpoints (a cluster's ``metrics`` setting).

A :class:`Sampler` thread sweeps every endpoint of every cluster each ``interval`` seconds and
keeps the last :data:`WINDOW` seconds of sweeps; one sweep's samples share its time, so every
broker's series has the same x values. The meters are Kafka's ``BrokerTopicMetrics``
counters as the Prometheus JMX exporter renders them with Strimzi's rules - which is what
pybroker serves and what the reference Kafka's agent serves - so a chart is the difference of
two counts over the seconds between them (``rate()`` in PromQL), never a broker's own
one-minute rate. A counter that went down (a broker restarted) gives no point for that step.

The sampler owns its sweeps; pages read copies under its lock. It takes the time from the
clock it is given.
"""

from __future__ import annotations

import itertools
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from prometheus_client.parser import text_string_to_metric_families

#: the charts, and the counters they are drawn from
METERS = {
    "bytes_in": "kafka_server_brokertopicmetrics_bytesin_total",
    "bytes_out": "kafka_server_brokertopicmetrics_bytesout_total",
    "messages_in": "kafka_server_brokertopicmetrics_messagesin_total",
}
_COUNTERS = {name: meter for meter, name in METERS.items()}
#: seconds of history kept and drawn
WINDOW = 15 * 60
DEFAULT_INTERVAL = 5.0
#: seconds one scrape may take
SCRAPE_TIMEOUT = 3.0

#: one endpoint's counters: (meter, topic or None for all topics) -> count
Counts = dict[tuple[str, str | None], float]


def parse(text: str) -> Counts:
    """The chart counters of one scrape (Prometheus' text format)."""
    out: Counts = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            meter = _COUNTERS.get(sample.name)
            if meter is None or set(sample.labels) - {"topic"}:
                continue
            out[(meter, sample.labels.get("topic"))] = float(sample.value)
    return out


def label(url: str) -> str:
    """How a chart names an endpoint: its host and port."""
    return urlsplit(url).netloc or url


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=SCRAPE_TIMEOUT) as response:  # noqa: S310
        return bytes(response.read()).decode("utf-8", "replace")


class Sampler:
    """Sweeps of every cluster's endpoints, ``interval`` seconds apart, on a daemon thread
    of its own (:meth:`start`, :meth:`stop`)."""

    def __init__(self, endpoints: Mapping[str, tuple[str, ...]],
                 interval: float = DEFAULT_INTERVAL,
                 clock: Callable[[], float] = time.time,
                 fetch: Callable[[str], str] = scrape) -> None:
        self.endpoints = {name: tuple(urls) for name, urls in endpoints.items() if urls}
        self.interval = interval
        self.clock = clock
        self.fetch = fetch
        keep = int(WINDOW / interval) + 1
        self._sweeps: dict[str, deque[tuple[float, dict[str, Counts | None]]]] = {
            name: deque(maxlen=keep) for name in self.endpoints}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Sampler:
        if self.endpoints and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="console-metrics",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=SCRAPE_TIMEOUT * 2)

    def _run(self) -> None:
        while not self._stopped.is_set():
            began = time.monotonic()
            self.sweep()
            self._stopped.wait(max(0.0, self.interval - (time.monotonic() - began)))

    def sweep(self) -> None:
        """One scrape of every endpoint; one that fails counts as a gap."""
        for name, urls in self.endpoints.items():
            now = self.clock()
            counts: dict[str, Counts | None] = {}
            for url in urls:
                try:
                    counts[url] = parse(self.fetch(url))
                except Exception:  # noqa: BLE001 - a broker down or not serving: a gap
                    counts[url] = None
            with self._lock:
                self._sweeps[name].append((now, counts))

    def series(self, cluster: str, topic: str | None = None) -> dict[str, Any]:
        """Each chart's per-second rates of ``topic`` (or of all topics), one line per
        endpoint: ``{"times": [...], "steps": [...], "charts": {meter: {endpoint: [rate or
        None]}}}``, for each step between two sweeps its end and its length in seconds."""
        urls = self.endpoints.get(cluster, ())
        with self._lock:
            sweeps = list(self._sweeps.get(cluster, ()))
        times: list[float] = []
        steps: list[float] = []
        charts: dict[str, dict[str, list[float | None]]] = {
            meter: {label(u): [] for u in urls} for meter in METERS}
        for (t0, before), (t1, after) in itertools.pairwise(sweeps):
            times.append(t1)
            steps.append(t1 - t0)
            for url in urls:
                a, b = before.get(url), after.get(url)
                for meter in METERS:
                    charts[meter][label(url)].append(
                        None if a is None or b is None else _rate(a, b, meter, topic, t1 - t0))
        return {"cluster": cluster, "topic": topic, "interval": self.interval,
                "window": WINDOW, "endpoints": [label(u) for u in urls], "times": times, "steps": steps,
                "charts": charts}

    def topic_rates(self, cluster: str, meter: str = "messages_in") -> dict[str, float]:
        """Each topic's latest rate per second, summed over the endpoints that answered both
        of the last two sweeps (the topics list's "messages in per second")."""
        with self._lock:
            sweeps = list(self._sweeps.get(cluster, ()))[-2:]
        if len(sweeps) < 2:
            return {}
        (t0, before), (t1, after) = sweeps
        out: dict[str, float] = {}
        for url, b in after.items():
            a = before.get(url)
            if a is None or b is None:
                continue
            for (m, topic) in b:
                if m == meter and topic is not None:
                    rate = _rate(a, b, meter, topic, t1 - t0)
                    if rate is not None:
                        out[topic] = out.get(topic, 0.0) + rate
        return out


def _rate(before: Counts, after: Counts, meter: str, topic: str | None,
          seconds: float) -> float | None:
    """Per second between two scrapes; a topic's meter that appeared meanwhile counts from
    zero (Kafka creates it at the topic's first event); a count that went down, none."""
    y = after.get((meter, topic))
    x = before.get((meter, topic), 0.0 if topic is not None else None)
    if x is None or y is None or y < x or seconds <= 0:
        return None
    return (y - x) / seconds
