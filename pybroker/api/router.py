"""The request router: from a request frame to an encoded response - header, version check,
the handler registered for the api key, the request's context, encoding (Kafka's
``KafkaApis.handle``).

The network layer knows it only as a :class:`~pybroker.network.dispatch.RequestDispatcher`,
the one method it calls per request frame; the broker hands it a :class:`RequestRouter` when it
starts the socket server. What the router needs of a connection is :class:`Connection`, which
the network layer's ``KafkaConnection`` is.

A :class:`RequestInterceptor` set on the router sees every decoded request before its
handler and may answer it in its place, hold its answer back for a while or for good, or close
the connection (the in-process test broker's fault injection, :mod:`pybroker.testing.faults`).
Without one, dispatching costs one attribute test more.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from protocol import messages
from protocol.errors import ErrorCode, ProtocolError
from protocol.headers import read_request_header, response_header_version, write_response_header
from protocol.messages import API_NAMES, ApiKey
from protocol.primitives import Reader, Writer
from pybroker.api.context import RequestContext
from pybroker.api.registry import ApiHandler
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.outcome import is_pending, then
from pybroker.metrics.request_metrics import (
    FETCH_CONSUMER,
    FETCH_FOLLOWER,
    VERIFY_PARTITIONS_IN_TXN,
    RequestChannelMetrics,
    RequestTimes,
    now_ns,
)
from pybroker.security.principal import KafkaPrincipal
from pybroker.security.sasl import Admission, SaslAuthenticator
from pybroker.security.sasl_errors import SaslFailure

if TYPE_CHECKING:
    from pybroker.api.services import BrokerServices

log = logging.getLogger(__name__)

#: requests no request quota throttles (Kafka's ``sendResponseExemptThrottle``): the controller's
#: and other brokers' (a follower's fetch too, :func:`_follower_fetch`)
_EXEMPT_FROM_REQUEST_QUOTA = frozenset(int(k) for k in (
    ApiKey.LEADER_AND_ISR, ApiKey.STOP_REPLICA, ApiKey.UPDATE_METADATA,
    ApiKey.CONTROLLED_SHUTDOWN, ApiKey.WRITE_TXN_MARKERS, ApiKey.ALTER_PARTITION))
#: a request's handler time in nanoseconds as the percentage of a second the request quota
#: counts (Kafka's ``NanosToPercentagePerSecond``)
_NANOS_TO_PERCENTAGE = 100 / 1e9
#: the APIs whose requests may count under a name of their own (:meth:`RequestRouter._begin`)
_NAMED_BY_REQUEST = frozenset({int(ApiKey.FETCH), int(ApiKey.ADD_PARTITIONS_TO_TXN)})
_SIZE = struct.Struct(">i")


class Connection(Protocol):
    """What the router reads and tells of the connection a request came on (the network
    layer's ``KafkaConnection``; connections stood in for by tests may have no ``sasl``)."""

    @property
    def peer(self) -> str: ...

    @property
    def listener(self) -> str: ...

    @property
    def principal(self) -> KafkaPrincipal: ...

    def abort(self, reason: str) -> None: ...

    def close_after_responses(self) -> None: ...

    def authenticated(self, principal: KafkaPrincipal) -> None: ...

    def client_software_known(self, name: str, version: str) -> None: ...

    def throttle(self, throttle_ms: int) -> None:
        """Read nothing more for ``throttle_ms``: a response throttled a quota (KIP-219)."""
        ...


@dataclass(frozen=True, slots=True)
class Interception:
    """What a :class:`RequestInterceptor` decided for one request.

    ``disconnect``: close the connection instead of handling the request. ``respond``: answer
    with this response body (the request's own type, valid at its version) instead of handling
    the request. Otherwise the handler runs, and with ``drop`` its answer is never sent (the
    connection's later answers wait behind it, as behind a lost response, until the client
    gives up and closes the connection), or with ``delay_s`` it is sent that many seconds
    later, still in request order.
    """

    respond: Any = None
    delay_s: float = 0.0
    drop: bool = False
    disconnect: bool = False


class RequestInterceptor(Protocol):
    """Called on the event loop with each decoded request; ``None`` lets it through."""

    def __call__(self, ctx: RequestContext, request: Any) -> Interception | None: ...


def encode_response(api_key: int, version: int, correlation_id: int, body: Any) -> Writer:
    """The whole response frame, size prefix included (file splices count toward the size)."""
    w = Writer()
    w += b"\0\0\0\0"
    write_response_header(w, correlation_id, response_header_version(api_key, version))
    messages.response_module(api_key).write(w, body, version)
    size = len(w) - 4
    for _, obj in getattr(w, "splices", ()) or ():
        size += len(obj)
    _SIZE.pack_into(w, 0, size)
    return w


class RequestRouter:
    """Turns frames into handler calls: the network layer's
    :class:`~pybroker.network.dispatch.RequestDispatcher`. It knows the handlers and the
    services they are given; it never calls back into the broker."""

    def __init__(self, services: BrokerServices | None, handlers: Mapping[int, ApiHandler], *,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.services = services
        self.handlers = handlers
        #: the time a request is handled at (``RequestContext.now_ms``)
        self.clock = clock
        self.interceptor: RequestInterceptor | None = None
        #: every API's RequestMetrics (None: requests are not timed)
        self.request_metrics: RequestChannelMetrics | None = None

    def dispatch(self, frame: bytes | bytearray | memoryview, conn: Connection,
                 times: RequestTimes | None = None) -> Any:
        """Handle one request frame. Returns the encoded response, a future of it, or None.
        ``times``: the request's :class:`~pybroker.metrics.request_metrics.RequestTimes`, which
        the router names and stamps (the connection completes it)."""
        # (connections stood in for by tests may have no SASL attribute)
        sasl: SaslAuthenticator | None = getattr(conn, "sasl", None)
        if sasl is not None and sasl.raw_tokens:
            return self._raw_sasl_token(frame, conn)
        r = Reader(frame)
        header = read_request_header(r)
        api_key = header.request_api_key
        version = header.request_api_version
        now_ms = self.clock.milliseconds()
        if sasl is not None:
            admission = sasl.admit(api_key, now_ms)
            if admission is not Admission.HANDLE:
                if admission is Admission.CLOSE:
                    if sasl.authenticated and self.request_metrics is not None:
                        self.request_metrics.expired_connections_killed += 1
                    conn.abort(f"{'session expired: ' if sasl.authenticated else ''}"
                               f"api key {api_key} is not allowed in SASL state "
                               f"{sasl.state.value}")
                return None
        handler = self.handlers.get(api_key)
        if handler is None:
            raise ProtocolError(f"unknown api key {api_key}")
        if not handler.supports(version):
            if api_key == ApiKey.API_VERSIONS:
                # KIP-511: answer in the v0 layout with our ApiVersions range so the client retries.
                return encode_response(api_key, 0, header.correlation_id,
                                       self.unsupported_api_versions_response())
            raise ProtocolError(f"{handler.name} v{version} is not supported")
        request = messages.request_module(api_key).read(r, version)
        assert self.services is not None, "requests arrive only once the services exist"
        ctx = RequestContext(
            services=self.services,
            api_key=api_key,
            api_version=version,
            correlation_id=header.correlation_id,
            client_id=header.client_id,
            peer=conn.peer,
            listener=conn.listener,
            principal=conn.principal,
            sasl=sasl,
            now_ms=now_ms,
            request_size=len(frame),
        )
        metrics = self.request_metrics
        if times is None or metrics is None:
            times = None
        elif api_key in _NAMED_BY_REQUEST:
            self._begin(times, metrics, api_key, version, request)
        else:  # RequestTimes.begin, in place: this runs for every request
            api = metrics.by_name[API_NAMES[api_key]]
            times.dequeued = now_ns()
            times.api = api
            times.version = version
            times.timed = api.alone
        if self.interceptor is not None:
            decision = self.interceptor(ctx, request)
            if decision is not None:
                return self._intercepted(decision, handler, ctx, request, conn, times)
        request_quota = self.services.quotas.request
        if request_quota.enabled and api_key not in _EXEMPT_FROM_REQUEST_QUOTA \
                and not _follower_fetch(api_key, version, request):
            started = now_ns()
            result = handler.handle(ctx, request)
            self._charge_request_quota(ctx, now_ns() - started)
        else:
            result = handler.handle(ctx, request)
        if ctx.close_connection:
            conn.close_after_responses()
        if ctx.client_software is not None:
            conn.client_software_known(*ctx.client_software)
        if sasl is not None:
            if api_key == ApiKey.API_VERSIONS:
                sasl.api_versions_answered()
            if sasl.principal is not None and conn.principal is not sasl.principal:
                conn.authenticated(sasl.principal)
        return self._encoded(ctx, result, times, conn)

    def _charge_request_quota(self, ctx: RequestContext, handler_ns: int) -> None:
        """Charge the handler's time to the client's request quota (``request_percentage``,
        Kafka's ``ClientRequestQuotaManager``): over it, the response carries the throttle
        time, at most one window, or the bandwidth quota's if that is longer."""
        assert self.services is not None
        request_quota = self.services.quotas.request
        user, client_id = ctx.principal.name, ctx.client_id or ""
        now_ms = request_quota.clock.milliseconds()
        throttle_ms = request_quota.record(user, client_id, handler_ns * _NANOS_TO_PERCENTAGE,
                                           now_ms)
        if throttle_ms:
            request_quota.throttled(user, client_id, throttle_ms, now_ms)
            ctx.throttle_ms = max(ctx.throttle_ms, throttle_ms)

    @staticmethod
    def _begin(times: RequestTimes, metrics: RequestChannelMetrics, api_key: int, version: int,
               request: Any) -> None:
        """Name the request as Kafka's metrics do (see :mod:`pybroker.metrics.request_metrics`)."""
        api = metrics.by_name[API_NAMES[api_key]]
        if api_key == ApiKey.FETCH:
            state = getattr(request, "replica_state", None)
            replica_id = state.replica_id if state is not None and version >= 15 \
                else request.replica_id
            also = metrics[FETCH_FOLLOWER if replica_id >= 0 else FETCH_CONSUMER]
            times.begin(api, version, (also, api))
        elif api_key == ApiKey.ADD_PARTITIONS_TO_TXN and version >= 4 and request.transactions \
                and all(t.verify_only for t in request.transactions):
            times.begin(api, version, (metrics[VERIFY_PARTITIONS_IN_TXN],))
        else:
            times.begin(api, version)

    def _raw_sasl_token(self, frame: bytes | bytearray | memoryview,
                        conn: Connection) -> Any:
        """A SASL token sent without a request header (after SaslHandshake v0): its answer
        goes back size-prefixed; a failure closes the connection without one, as Kafka does."""
        sasl: SaslAuthenticator | None = getattr(conn, "sasl", None)
        assert sasl is not None
        try:
            answer = sasl.raw_token(bytes(frame), self.clock.milliseconds())
        except SaslFailure as e:
            conn.abort(f"SASL authentication failed: {e.message}")
            return None
        if sasl.principal is not None and conn.principal is not sasl.principal:
            conn.authenticated(sasl.principal)
        return _SIZE.pack(len(answer)) + answer

    @staticmethod
    def _encoded(ctx: RequestContext, result: Any, times: RequestTimes | None = None,
                 conn: Connection | None = None) -> Any:
        """The handler's result as an encoded response, a future of one, or None; ``times``
        gets the end of the handler's own work, and the response's errors once it is ready.
        A handler that throttled the client's quota (``ctx.throttle_ms``) mutes ``conn``."""
        if ctx.throttle_ms and not inspect.isawaitable(result):
            _throttled(ctx, result, conn)
        if result is None:
            if times is not None:
                times.local_done = times.ready = now_ns()
            return None
        api_key, version, correlation_id = ctx.api_key, ctx.api_version, ctx.correlation_id
        if inspect.isawaitable(result):
            if times is not None:
                times.local_done = now_ns()

            def encode(body: Any) -> Any:
                if times is not None:
                    times.answered(body)
                if ctx.throttle_ms:
                    _throttled(ctx, body, conn)
                return (None if body is None
                        else encode_response(api_key, version, correlation_id, body))
            return then(asyncio.ensure_future(result), encode)
        if times is not None:  # RequestTimes.answered, in place: this runs for every request
            # (answered as the handler's own work ended: one clock read for both)
            times.local_done = times.ready = now_ns()
            times.throttle_ms = getattr(result, "throttle_time_ms", 0) or 0
            if times.api is not None:
                times.api.count_errors(result)
        return encode_response(api_key, version, correlation_id, result)

    def _intercepted(self, decision: Interception, handler: ApiHandler, ctx: RequestContext,
                     request: Any, conn: Connection, times: RequestTimes | None) -> Any:
        if decision.disconnect:
            conn.abort(f"request interceptor: {handler.name} v{ctx.api_version} "
                       f"closes the connection")
            return None
        if decision.respond is not None:
            result = decision.respond
        else:
            result = handler.handle(ctx, request)
            if ctx.close_connection:
                conn.close_after_responses()
        encoded = self._encoded(ctx, result, times, conn)
        if encoded is None:
            return None
        if decision.drop:
            # never completed; the connection cancels it when it closes
            return asyncio.get_running_loop().create_future()
        if decision.delay_s > 0:
            return asyncio.ensure_future(_after(decision.delay_s, encoded))
        return encoded

    def unsupported_api_versions_response(self) -> Any:
        mod = messages.response_module(ApiKey.API_VERSIONS)
        h = self.handlers[ApiKey.API_VERSIONS]
        return mod.ApiVersionsResponse(
            error_code=ErrorCode.UNSUPPORTED_VERSION,
            api_keys=[mod.ApiVersion(api_key=ApiKey.API_VERSIONS, min_version=h.min_version,
                                     max_version=h.max_version)],
        )


def _follower_fetch(api_key: int, version: int, request: Any) -> bool:
    """A broker's fetch (a replica id), which no request quota throttles."""
    if api_key != ApiKey.FETCH:
        return False
    state = getattr(request, "replica_state", None)
    replica_id = state.replica_id if state is not None and version >= 15 else request.replica_id
    return bool(replica_id >= 0)


def _throttled(ctx: RequestContext, body: Any, conn: Connection | None) -> None:
    """A quota throttled the request: the response says so (the longest throttle of any
    quota) and the connection reads nothing more for that long."""
    if body is not None and getattr(body, "throttle_time_ms", ctx.throttle_ms) < ctx.throttle_ms:
        body.throttle_time_ms = ctx.throttle_ms
    if conn is not None:
        conn.throttle(ctx.throttle_ms)


async def _after(delay_s: float, encoded: Any) -> Any:
    await asyncio.sleep(delay_s)
    if is_pending(encoded):
        return await encoded
    return encoded
