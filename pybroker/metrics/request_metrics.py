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
response is written. Work per request: a few clock reads and histogram stores, and the errors
of the response counted.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

from protocol.errors import ErrorCode

from .registry import Histogram, Meter, MetricsRegistry, mbean

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
    """One API's metrics (Kafka's ``RequestMetrics`` of one name)."""

    __slots__ = ("name", "registry", "queue", "local", "remote", "throttle", "response_queue",
                 "send", "total", "request_bytes", "_requests", "_errors")

    def __init__(self, registry: MetricsRegistry, name: str) -> None:
        self.name = name
        self.registry = registry

        def histogram(metric: str) -> Histogram:
            return registry.histogram(mbean("kafka.network", "RequestMetrics", metric,
                                            request=name))

        (self.queue, self.local, self.remote, self.throttle, self.response_queue, self.send,
         self.total, self.request_bytes) = (histogram(m) for m in _TIMES)
        if name in _CONVERTING:
            for metric in _CONVERSION_TIMES:
                histogram(metric)  # nothing is converted here: they stay at 0, as they exist
        self._requests: dict[int, Meter] = {}
        self._errors: dict[int, Meter] = {}

    def mark_request(self, version: int) -> None:
        meter = self._requests.get(version)
        if meter is None:
            meter = self._requests[version] = self.registry.meter(mbean(
                "kafka.network", "RequestMetrics", "RequestsPerSec", request=self.name,
                version=version))
        meter.count += 1

    def mark_errors(self, counts: Mapping[int, int]) -> None:
        for code, n in counts.items():
            meter = self._errors.get(code)
            if meter is None:
                meter = self._errors[code] = self.registry.meter(mbean(
                    "kafka.network", "RequestMetrics", "ErrorsPerSec", request=self.name,
                    error=_error_name(code)))
            meter.count += n


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
    it; the router names the request (:meth:`begin`), stamps the end of the handler's own work
    (``local_done``) and the moment the response is ready (:meth:`answered`)."""

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

    def answered(self, errors: Mapping[int, int], throttle_ms: int) -> None:
        """The response is ready: its error codes and throttle time."""
        self.ready = _ns()
        self.throttle_ms = throttle_ms
        if self.api is not None:
            self.api.mark_errors(errors)

    def complete(self, send_started: int) -> None:
        """The response is written (it was taken to be sent at ``send_started``), or there
        is none to write (an acks=0 produce)."""
        if self.api is None:
            return
        end = _ns()
        local_done = self.local_done or self.ready or end
        ready = self.ready or local_done
        queue = (self.dequeued - self.received) / 1e6
        local = (local_done - self.dequeued) / 1e6
        remote = (ready - local_done) / 1e6
        response_queue = (send_started - ready) / 1e6 if send_started > ready else 0.0
        send = (end - send_started) / 1e6 if send_started else 0.0
        total = (end - self.received) / 1e6
        for m in self.timed:
            m.mark_request(self.version)
            m.queue.update(queue)
            m.local.update(local)
            m.remote.update(remote)
            m.throttle.update(self.throttle_ms)
            m.response_queue.update(response_queue)
            m.send.update(send)
            m.total.update(total)
            m.request_bytes.update(self.size)


#: the clock :class:`RequestTimes` is stamped with (the builtin itself: no call of ours per
#: stamp)
now_ns = time.perf_counter_ns
