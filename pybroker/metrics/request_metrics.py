"""Kafka's ``RequestMetrics`` (``kafka.network:type=RequestMetrics,...``): per API, the requests
per version, the errors per code, and where each request's time went.

The time of a request, as Kafka splits it (``RequestChannel.Request.updateRequestMetrics``):

- ``RequestQueueTimeMs``: from the frame's arrival until its handler started (here: the
  frames read before it in the same wake-up);
- ``LocalTimeMs``: the handler's own work;
- ``RemoteTimeMs``: the wait for others after that - a produce waiting for the ISR, a fetch
  waiting for data, a join waiting for the group (the purgatory);
- ``ThrottleTimeMs``: the throttle time the response carries;
- ``ResponseQueueTimeMs``: from the response being ready until the connection takes it to send
  (answers leave in request order, so behind any earlier one still waiting);
- ``ResponseSendTimeMs``: writing it (a fetch's file regions sent with ``sendfile``);
- ``TotalTimeMs``: from arrival until sent; and ``RequestBytes``, the request's size.

A Fetch counts under ``Fetch`` and under ``FetchConsumer`` or ``FetchFollower``; a
verification-only AddPartitionsToTxn under ``AddPartitionsToTxnVerification`` (Kafka's names).

The connection makes a :class:`RequestTimes` per request frame and hands it to the router,
which names the request and stamps the times it sees; the connection completes it once the
response is written. Work per request: a few clock reads, one raw sample stored per name it
counts under, and the errors of the response counted; the histograms' values are computed from
the samples when they are read.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable

from protocol.error_counts import COUNTERS, counter
from protocol.errors import ErrorCode

from .registry import RESERVOIR_SIZE, HistogramReading, Meter, MetricsRegistry, mbean

FETCH_CONSUMER = "FetchConsumer"
FETCH_FOLLOWER = "FetchFollower"
VERIFY_PARTITIONS_IN_TXN = "AddPartitionsToTxnVerification"

_TIMES = ("RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ThrottleTimeMs",
          "ResponseQueueTimeMs", "ResponseSendTimeMs", "TotalTimeMs", "RequestBytes")
#: Kafka's two more histograms of the APIs that may convert records
_CONVERSION_TIMES = ("MessageConversionsTimeMs", "TemporaryMemoryBytes")
_CONVERTING = frozenset({"Produce", "Fetch", FETCH_CONSUMER, FETCH_FOLLOWER})


def _error_name(code: int) -> str:
    try:
        return ErrorCode(code).name
    except ValueError:
        return "UNKNOWN_SERVER_ERROR"


class RequestMetrics:
    """One API's metrics (Kafka's ``RequestMetrics`` of one name).

    A request completed here is one raw sample - its nanosecond stamps, throttle time and size
    (see :class:`RequestTimes`) - appended to ``samples``, the last :data:`RESERVOIR_SIZE`
    requests. The eight histograms of its times are views of that one deque
    (:class:`RequestHistogram`): they hold the same values eight reservoirs of the same
    requests would, computed when the metrics are read rather than per request."""

    __slots__ = ("name", "registry", "alone", "count", "samples", "histograms", "_columns_at",
                 "_columns", "_requests", "_errors")

    def __init__(self, registry: MetricsRegistry, name: str) -> None:
        self.name = name
        self.registry = registry
        #: the names a request of this API alone counts under (:attr:`RequestTimes.timed`)
        self.alone = (self,)
        #: requests completed (every histogram's count)
        self.count = 0
        #: the last requests' raw samples: ``(received, dequeued, local_done, ready,
        #: send_started, end, throttle_ms, size)``, stamps in ``time.perf_counter_ns``
        self.samples: deque[tuple[int, ...]] = deque(maxlen=RESERVOIR_SIZE)
        self._columns_at = -1
        self._columns: tuple[list[float], ...] = ()
        self.histograms = tuple(RequestHistogram(self, i) for i in range(len(_TIMES)))
        for metric, h in zip(_TIMES, self.histograms, strict=True):
            registry.register(mbean("kafka.network", "RequestMetrics", metric, request=name), h)
        if name in _CONVERTING:
            for metric in _CONVERSION_TIMES:
                # nothing is converted here: they stay at 0, as they exist
                registry.histogram(mbean("kafka.network", "RequestMetrics", metric,
                                         request=name))
        self._requests: dict[int, Meter] = {}
        self._errors: dict[int, Meter] = {}

    def columns(self) -> tuple[list[float], ...]:
        """The histograms' values (in :data:`_TIMES` order) from the samples kept: computed
        once per change, when the first of them is read."""
        if self._columns_at != self.count:
            self._columns = _columns(tuple(self.samples))
            self._columns_at = self.count
        return self._columns

    def version_meter(self, version: int) -> Meter:
        """The RequestsPerSec meter of one version (made on its first request)."""
        meter = self._requests.get(version)
        if meter is None:
            meter = self._requests[version] = self.registry.meter(mbean(
                "kafka.network", "RequestMetrics", "RequestsPerSec", request=self.name,
                version=version))
        return meter

    def count_errors(self, response: object) -> None:
        """Mark ErrorsPerSec once per occurrence of each error code in ``response`` (Kafka's
        ``errorCounts``): one walk of the response, compiled per message class."""
        counts: dict[int, int] = {}
        cls = type(response)
        (COUNTERS.get(cls) or counter(cls))(response, counts)
        errors = self._errors
        for code, n in counts.items():
            meter = errors.get(code)
            if meter is None:
                meter = errors[code] = self.registry.meter(mbean(
                    "kafka.network", "RequestMetrics", "ErrorsPerSec", request=self.name,
                    error=_error_name(code)))
            meter.count += n


def _columns(samples: tuple[tuple[int, ...], ...]) -> tuple[list[float], ...]:
    """Raw samples turned into the eight histograms' values, as Kafka's
    ``updateRequestMetrics`` splits a request's time (ms; the throttle as the response carried
    it; the size in bytes)."""
    if not samples:
        return tuple([] for _ in _TIMES)
    # a sample: (received, dequeued, local_done, ready, send_started, end, throttle_ms, size)
    ms = 1e6
    return (
        [(s[1] - s[0]) / ms for s in samples],
        [(s[2] - s[1]) / ms for s in samples],
        [(s[3] - s[2]) / ms for s in samples],
        [float(s[6]) for s in samples],
        [(s[4] - s[3]) / ms if s[4] > s[3] else 0.0 for s in samples],
        [(s[5] - s[4]) / ms if s[4] else 0.0 for s in samples],
        [(s[5] - s[0]) / ms for s in samples],
        [float(s[7]) for s in samples],
    )


class RequestHistogram(HistogramReading):
    """One of a :class:`RequestMetrics`' eight histograms: a column of its samples."""

    __slots__ = ("_source", "_index")

    def __init__(self, source: RequestMetrics, index: int) -> None:
        self._source = source
        self._index = index

    @property
    def count(self) -> int:
        return self._source.count

    @property
    def values(self) -> list[float]:
        return self._source.columns()[self._index]


class RequestChannelMetrics:
    """The :class:`RequestMetrics` of every API the broker serves, made at start-up (as
    Kafka's are: their histograms exist before the first request)."""

    def __init__(self, registry: MetricsRegistry, api_names: Iterable[str]) -> None:
        names = [*api_names, FETCH_CONSUMER, FETCH_FOLLOWER, VERIFY_PARTITIONS_IN_TXN]
        self.by_name = {name: RequestMetrics(registry, name) for name in names}
        #: connections closed because their SASL session expired without re-authentication
        #: (KIP-368; ``kafka.network:type=SocketServer,name=ExpiredConnectionsKilledCount``)
        self.expired_connections_killed = 0
        registry.gauge(mbean("kafka.network", "SocketServer", "ExpiredConnectionsKilledCount"),
                       lambda: self.expired_connections_killed)

    def __getitem__(self, name: str) -> RequestMetrics:
        return self.by_name[name]


_ns = time.perf_counter_ns


class RequestTimes:
    """The times of one request (Kafka's ``RequestChannel.Request`` timestamps), in
    nanoseconds of ``time.perf_counter_ns``: the connection stamps its arrival and completes
    it; the router names the request (``api``, ``timed``, ``version``, ``dequeued``: set where
    the handler starts), stamps the end of the handler's own work (``local_done``) and the
    moment the response is ready (:meth:`answered`). Completing it stores one raw sample per
    name it counts under; nothing is computed per request."""

    __slots__ = ("received", "size", "api", "timed", "version", "dequeued", "local_done",
                 "ready", "throttle_ms")

    def __init__(self, received: int, size: int) -> None:
        self.received = received
        self.size = size
        #: the API's metrics, which count the response's errors (None: not a request to
        #: count, e.g. a raw SASL token)
        self.api: RequestMetrics | None = None
        #: the names whose requests and times it counts under (a Fetch: Fetch and
        #: FetchConsumer or FetchFollower)
        self.timed: tuple[RequestMetrics, ...] = ()
        self.version = 0
        self.dequeued = received
        self.local_done = 0
        self.ready = 0
        self.throttle_ms = 0

    def begin(self, api: RequestMetrics, version: int,
              timed: tuple[RequestMetrics, ...] | None = None) -> None:
        """The handler starts on the request."""
        self.dequeued = _ns()
        self.api = api
        self.version = version
        self.timed = (api,) if timed is None else timed

    def answered(self, response: object | None) -> None:
        """The ``response`` is ready (None: the request needs none): its error codes are
        counted and its throttle time kept."""
        self.ready = _ns()
        if response is not None:
            self.throttle_ms = getattr(response, "throttle_time_ms", 0) or 0
            if self.api is not None:
                self.api.count_errors(response)

    def complete(self, send_started: int) -> None:
        """The response is written (it was taken to be sent at ``send_started``), or there
        is none to write (an acks=0 produce)."""
        if self.api is None:
            return
        end = _ns()
        local_done = self.local_done or self.ready or end
        sample = (self.received, self.dequeued, local_done, self.ready or local_done,
                  send_started, end, self.throttle_ms, self.size)
        version = self.version
        for m in self.timed:
            m.count += 1
            m.samples.append(sample)
            meter = m._requests.get(version)  # noqa: SLF001 - the hot path of its owner
            if meter is None:
                meter = m.version_meter(version)
            meter.count += 1


#: the clock :class:`RequestTimes` is stamped with (the builtin itself: no call of ours per
#: stamp)
now_ns = time.perf_counter_ns
