"""The socket server: one asyncio listener per configured listener.

Listeners can be added and removed while the broker runs (a dynamic ``listeners`` change,
KIP-226): removing one closes it and the connections it accepted. Such changes run one at a
time, in the order they were asked for.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from protocol.framing import DEFAULT_CHUNK_SIZE
from pybroker.metrics.registry import MBean, Meter, MetricsRegistry
from pybroker.network.connection import UNKNOWN_SOFTWARE, KafkaConnection
from pybroker.network.traffic import Traffic
from pybroker.security.listeners import PLAINTEXT_LISTENER, ListenerSecurity
from pybroker.security.sasl import SaslAuthenticator

if TYPE_CHECKING:
    from pybroker.config import Endpoint
    from pybroker.network.dispatch import RequestDispatcher

log = logging.getLogger(__name__)


class ListenerStats:
    """One listener's ``kafka.server:type=socket-server-metrics,listener=L,networkProcessor=0``
    (one event loop is the one network processor): connection-count, and the connections made
    and closed, as totals and per-second rates (the meters' one-minute rates)."""

    def __init__(self, registry: MetricsRegistry, listener: str,
                 connections: Callable[[], Iterable[KafkaConnection]]) -> None:
        now = registry.clock.monotonic()
        self.created = Meter(now)
        self.closed = Meter(now)
        self._registry = registry
        self._listener = listener
        self._connections = connections
        #: every client software seen on this listener, which keeps its series (at 0 once
        #: its connections are gone, as Kafka's)
        self._software: set[tuple[str, str]] = set()
        self.client_software(*UNKNOWN_SOFTWARE)
        self.traffic = traffic = Traffic(registry.clock.monotonic)

        def count() -> int:
            return sum(1 for _ in connections())

        def read() -> dict[str, float]:
            at = registry.clock.monotonic()
            size_avg, size_max = traffic.request_size.read()
            return {"connection-count": count(),
                    "connection-creation-total": self.created.count,
                    "connection-creation-rate": self.created.rates(at)[1],
                    "connection-close-total": self.closed.count,
                    "connection-close-rate": self.closed.rates(at)[1],
                    "incoming-byte-total": traffic.incoming.count,
                    "incoming-byte-rate": traffic.incoming.rates(at)[1],
                    "outgoing-byte-total": traffic.outgoing.count,
                    "outgoing-byte-rate": traffic.outgoing.rates(at)[1],
                    "request-total": traffic.requests.count,
                    "request-rate": traffic.requests.rates(at)[1],
                    "response-total": traffic.responses.count,
                    "response-rate": traffic.responses.rates(at)[1],
                    "request-size-avg": size_avg,
                    "request-size-max": size_max}

        registry.attributes(MBean("kafka.server", "socket-server-metrics", "",
                                  (("listener", listener), ("networkProcessor", "0"))), read)
        # no connection quota (max.connections) ever blocks the acceptor here: Kafka's meter
        # of the nanoseconds it was blocked stays at 0
        registry.meter(MBean("kafka.network", "Acceptor", "AcceptorBlockedPercent",
                             (("listener", listener),)))

    def on_closed(self) -> None:
        self.closed.count += 1

    def client_software(self, name: str, version: str) -> None:
        """A connection's client named its software: serve ``connections`` for it (Kafka's
        ``socket-server-metrics`` tagged ``clientSoftwareName`` and ``clientSoftwareVersion``)."""
        software = (name, version)
        if software in self._software:
            return
        self._software.add(software)
        self._registry.attributes(
            MBean("kafka.server", "socket-server-metrics", "",
                  (("clientSoftwareName", name), ("clientSoftwareVersion", version),
                   ("listener", self._listener), ("networkProcessor", "0"))),
            lambda: {"connections": sum(1 for c in self._connections()
                                        if c.client_software == software)})


class SocketServer:
    """``security(listener)`` says what a listener's connections are (its security protocol,
    its TLS context); it is asked when the listener opens. Without it every listener is
    PLAINTEXT."""

    def __init__(self, dispatcher: RequestDispatcher, *, max_frame_size: int,
                 security: Callable[[str], ListenerSecurity] | None = None,
                 metrics: MetricsRegistry | None = None) -> None:
        """``metrics``: where each listener's ``socket-server-metrics`` go."""
        self.dispatcher = dispatcher
        self.metrics = metrics if metrics is not None else MetricsRegistry()
        #: each listener's connections made and closed (Kafka's Selector metrics)
        self.listener_stats: dict[str, ListenerStats] = {}
        self._register_socket_server_gauges()
        self.max_frame_size = max_frame_size
        self.security = security or (lambda listener: PLAINTEXT_LISTENER)
        #: the security of each open listener
        self.listener_security: dict[str, ListenerSecurity] = {}
        self.use_sendfile = True
        #: the open connections, by the listener that accepted them
        self._connections: dict[str, set[KafkaConnection]] = {}
        self._servers: dict[str, list[asyncio.base_events.Server]] = {}
        self.bound: list[tuple[str, str, int]] = []
        self._changing = asyncio.Lock()
        #: whether the listeners accept connections (Kafka's ``enableRequestProcessing``: a
        #: broker may bind its ports first, to register them, and serve once it is ready)
        self.serving = True
        #: what every connection reads into between frames (all run on one event loop)
        self._read_chunk = bytearray(DEFAULT_CHUNK_SIZE)
        #: a new connection's SASL authenticator, by the listener that accepted it (None: the
        #: listener does not authenticate with SASL)
        self.sasl_authenticator: Callable[[str], SaslAuthenticator | None] = lambda name: None

    @property
    def connections(self) -> set[KafkaConnection]:
        return set().union(*self._connections.values())

    def _new_connection(self, listener: str, security: ListenerSecurity) -> KafkaConnection:
        stats = self._stats(listener)
        stats.created.count += 1
        # sendfile cannot encrypt: a TLS connection reads file regions and writes them
        return KafkaConnection(self.dispatcher, max_frame_size=self.max_frame_size,
                               use_sendfile=self.use_sendfile and security.ssl_context is None,
                               connections=self._connections.setdefault(listener, set()),
                               on_sendfile_unsupported=self.disable_sendfile,
                               listener=listener, read_chunk=self._read_chunk,
                               security_protocol=security.protocol,
                               tls_principal=security.tls_principal,
                               sasl=self.sasl_authenticator(listener),
                               on_closed=stats.on_closed,
                               on_client_software=stats.client_software,
                               traffic=stats.traffic)

    def _register_socket_server_gauges(self) -> None:
        """The SocketServer gauges whose values follow from what this server is, as a Kafka
        broker's with the same settings shows them: no request memory pool
        (``queued.max.request.bytes`` -1, Kafka's ``MemoryPool.NONE``: all of a long
        available, none used) and no control-plane listener (its idle ratio NaN, nothing
        killed on it)."""
        def gauge(name: str, value: float) -> None:
            self.metrics.gauge(MBean("kafka.network", "SocketServer", name), lambda: value)

        gauge("MemoryPoolAvailable", float(2**63 - 1))
        gauge("MemoryPoolUsed", 0)
        gauge("ControlPlaneNetworkProcessorAvgIdlePercent", math.nan)
        gauge("ControlPlaneExpiredConnectionsKilledCount", 0)

    def _stats(self, listener: str) -> ListenerStats:
        stats = self.listener_stats.get(listener)
        if stats is None:
            stats = self.listener_stats[listener] = ListenerStats(
                self.metrics, listener, lambda: list(self._connections.get(listener, ())))
        return stats

    def disable_sendfile(self) -> None:
        """New connections write fetched file regions with read+write (this event loop has
        no sendfile)."""
        self.use_sendfile = False

    async def _open(self, ep: Endpoint) -> None:
        loop = asyncio.get_running_loop()
        # a TLS listener reads its key and trust stores: off the event loop
        security = await asyncio.to_thread(self.security, ep.listener)
        tls = security.ssl_context
        server = await loop.create_server(
            lambda: self._new_connection(ep.listener, security),
            host=ep.host or None, port=ep.port, reuse_address=True, backlog=1024, ssl=tls,
            ssl_handshake_timeout=security.handshake_timeout_s if tls is not None else None,
            start_serving=self.serving)
        self._servers.setdefault(ep.listener, []).append(server)
        self.listener_security[ep.listener] = security
        for sock in server.sockets:
            host, port = sock.getsockname()[:2]
            self.bound.append((ep.listener, host, port))
            log.info("listening on %s://%s:%d (%s)", ep.listener, host, port, security.protocol)

    async def start(self, endpoints: list[Endpoint], *, serving: bool = True) -> None:
        """Open ``endpoints``; without ``serving`` they are bound (their ports known) but
        accept nothing until :meth:`enable_request_processing`."""
        async with self._changing:
            self.serving = serving
            for ep in endpoints:
                await self._open(ep)

    async def enable_request_processing(self) -> None:
        """Accept connections on every listener from now on."""
        async with self._changing:
            self.serving = True
            for group in self._servers.values():
                for server in group:
                    await server.start_serving()

    async def add_listeners(self, endpoints: Iterable[Endpoint]) -> None:
        """Open more listeners."""
        async with self._changing:
            for ep in endpoints:
                if ep.listener not in self._servers:
                    await self._open(ep)

    async def remove_listeners(self, names: Iterable[str]) -> None:
        """Close listeners, and the connections they accepted."""
        async with self._changing:
            for name in names:
                servers = self._servers.pop(name, [])
                for server in servers:
                    server.close()
                for conn in list(self._connections.pop(name, ())):
                    conn.abort(f"listener {name} removed", logging.INFO)
                for server in servers:
                    await server.wait_closed()
                self.bound = [b for b in self.bound if b[0] != name]
                self.listener_security.pop(name, None)
                log.info("stopped listening on %s", name)

    async def when_listening(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` once the listener changes asked for so far are done."""
        async with self._changing:
            fn()

    async def stop(self) -> None:
        servers = [s for group in self._servers.values() for s in group]
        for server in servers:
            server.close()
        for conn in list(self.connections):
            conn.abort("broker shutting down", logging.DEBUG)
        for server in servers:
            await server.wait_closed()
        self._servers.clear()
