"""A connection from this broker to another one: asyncio over the sans-IO ClientConnection.

The connection is an ``asyncio.BufferedProtocol`` reading through a
:class:`~protocol.framing.FrameReader`: a large response (a replica fetch answer of megabytes)
is read straight into one buffer, and the records in its decoded answer are views of it.

:class:`BrokerClient` is one TCP connection (Kafka's ``NetworkClient`` to one node, without
its metadata, reconnection or retry logic: whoever owns the client decides those). Requests
are pipelined: each ``request`` writes its frame at once and waits for its own answer, while
:class:`protocol.client.ClientConnection` checks that answers come back in request order.

Failures are exceptions of :class:`BrokerClientError`:

* :class:`BrokerConnectError` - ``connect`` could not reach the broker in time;
* :class:`ConnectionLostError` - the connection closed (by either side, or because the broker
  sent bytes that are not the expected response); every request in flight fails with it, and
  so does every later ``request`` on this client;
* :class:`RequestTimeoutError` - no answer within the request's ``timeout_ms``. As Kafka's
  ``NetworkClient`` does, the connection is then closed, since a missing answer means the
  stream can no longer be trusted: the other requests in flight fail with
  :class:`ConnectionLostError`.

A client is used for one connection: to reconnect, make a new one. With ``sasl`` credentials
it authenticates (SaslHandshake, SaslAuthenticate) before ``connect`` returns. With an
``ssl_context`` it speaks TLS (an SSL or SASL_SSL inter-broker listener), checking the broker's
name as the context says.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from typing import Any

from protocol import messages
from protocol.client import MAX_FRAME_SIZE, ClientConnection
from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import FrameReader
from protocol.messages import ApiKey
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from pybroker.security.sasl_client import SaslClientCredentials, SaslFailure

log = logging.getLogger(__name__)

__all__ = [
    "BrokerClient",
    "BrokerClientError",
    "BrokerConnectError",
    "ConnectionLostError",
    "NodeConnections",
    "RequestTimeoutError",
]


class BrokerClientError(Exception):
    """A request to another broker failed for a reason of the connection, not of the request."""


class BrokerConnectError(BrokerClientError):
    """The connection could not be made."""


class ConnectionLostError(BrokerClientError):
    """The connection is closed; requests that were in flight have no answer."""


class RequestTimeoutError(BrokerClientError):
    """A request got no answer in time; the connection has been closed."""


class BrokerClient(asyncio.BufferedProtocol):
    """One connection to ``host:port``. ``client_id`` goes into every request header."""

    def __init__(self, host: str, port: int, *, client_id: str | None,
                 ssl_context: ssl.SSLContext | None = None,
                 sasl: SaslClientCredentials | None = None) -> None:
        self.host = host
        self.port = port
        #: TLS for the connection (an SSL or SASL_SSL inter-broker listener), or None
        self.ssl_context = ssl_context
        #: how to authenticate once connected (a SASL_* inter-broker listener), or None
        self.sasl = sasl
        self._conn = ClientConnection(client_id)
        self._reader = FrameReader(MAX_FRAME_SIZE)
        self._transport: asyncio.Transport | None = None
        self._waiters: dict[int, asyncio.Future[Any]] = {}
        self._closed: str | None = None  # why the connection ended, once it has
        self._write_paused = False
        self._drain_waiters: list[asyncio.Future[None]] = []
        #: when to re-authenticate (loop time; KIP-368), None: the session never ends
        self._reauth_at: float | None = None
        #: set while requests may be sent (cleared during a re-authentication)
        self._sendable = asyncio.Event()
        self._sendable.set()

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def connected(self) -> bool:
        """True between a successful ``connect`` and the end of the connection."""
        return self._transport is not None and self._closed is None

    @property
    def closed_reason(self) -> str | None:
        """Why the connection ended ("closed by the broker", "lost: ..."), once it has."""
        return self._closed

    @property
    def in_flight(self) -> int:
        """Requests written whose answer has not arrived."""
        return len(self._waiters)

    # -- public API ---------------------------------------------------------------------------

    async def connect(self, timeout: float) -> None:
        """Open the connection, within ``timeout`` seconds, or raise BrokerConnectError."""
        if self._transport is not None or self._closed is not None:
            raise BrokerClientError(f"this client to {self.address} was already connected")
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                if self.ssl_context is None:
                    await loop.create_connection(lambda: self, self.host, self.port)
                else:
                    await loop.create_connection(
                        lambda: self, self.host, self.port, ssl=self.ssl_context,
                        server_hostname=self.host, ssl_handshake_timeout=timeout)
        except TimeoutError as exc:
            raise BrokerConnectError(
                f"could not connect to {self.address} within {timeout:g} s"
            ) from exc
        except (OSError, ssl.SSLError, ssl.CertificateError) as exc:
            raise BrokerConnectError(f"could not connect to {self.address}: {exc}") from exc
        if self.sasl is not None:
            try:
                await self._authenticate(self.sasl, int(timeout * 1000))
            except BaseException:
                self._end("closed: SASL authentication did not complete", abort=True)
                raise

    async def _authenticate(self, sasl: SaslClientCredentials, timeout_ms: int) -> None:
        """SaslHandshake v1 and SaslAuthenticate v2 until the exchange is done, as Kafka's
        clients authenticate; BrokerConnectError when the broker refuses."""
        answer = await self._send(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(
            mechanism=sasl.mechanism), timeout_ms)
        if answer.error_code != ErrorCode.NONE:
            raise BrokerConnectError(
                f"{self.address} refused SASL mechanism {sasl.mechanism} "
                f"({ErrorCode(answer.error_code).name}; it offers {answer.mechanisms})")
        exchange = sasl.exchange()
        token: bytes | None = exchange.first()
        while token is not None:
            reply = await self._send(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(
                auth_bytes=token), timeout_ms)
            if reply.error_code != ErrorCode.NONE:
                raise BrokerConnectError(
                    f"SASL authentication to {self.address} as {sasl.username} failed: "
                    f"{reply.error_message}")
            try:
                token = exchange.respond(bytes(reply.auth_bytes))
            except SaslFailure as exc:
                raise BrokerConnectError(
                    f"SASL authentication to {self.address} failed: {exc}") from exc
            if token is None and reply.session_lifetime_ms > 0:
                # re-authenticate before the session ends, as Kafka's clients do (at 85-95%
                # of it; here 90%)
                self._reauth_at = (asyncio.get_running_loop().time()
                                   + reply.session_lifetime_ms * 0.9 / 1000)

    async def _reauthenticate(self, timeout_ms: int) -> None:
        """KIP-368: once the requests in flight are answered, authenticate again on this
        connection; requests asked for meanwhile wait."""
        assert self.sasl is not None
        self._sendable.clear()
        self._reauth_at = None
        try:
            while self._waiters and self._closed is None:
                await asyncio.sleep(0.005)
            await self._authenticate(self.sasl, timeout_ms)
        except BrokerClientError as exc:
            self._end(f"closed: re-authentication failed: {exc}", abort=True)
            raise
        finally:
            self._sendable.set()

    async def request(self, api_key: int, version: int, body: Any, timeout_ms: int | None) -> Any:
        """Send one request and return its decoded response (None for a Produce with acks=0,
        which is never answered). ``timeout_ms`` None waits as long as the connection lives.

        Several requests may be in flight at once; each returns its own answer. A request
        this codebase cannot encode raises ValueError before anything is written. When the
        connection's SASL session is about to end, it re-authenticates first.
        """
        if not self._sendable.is_set():
            await self._sendable.wait()
        if self._reauth_at is not None and asyncio.get_running_loop().time() >= self._reauth_at:
            await self._reauthenticate(timeout_ms if timeout_ms is not None else 30_000)
        return await self._send(api_key, version, body, timeout_ms)

    async def _send(self, api_key: int, version: int, body: Any, timeout_ms: int | None) -> Any:
        transport = self._transport
        if self._closed is not None:
            raise ConnectionLostError(f"connection to {self.address} {self._closed}")
        if transport is None:
            raise BrokerClientError(f"not connected to {self.address}")
        expected = len(self._conn.in_flight)
        correlation_id, data = self._conn.send_request(api_key, version, body)
        transport.write(data)
        if len(self._conn.in_flight) == expected:  # nothing to wait for (Produce, acks=0)
            await self._drain()
            return None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters[correlation_id] = future
        try:
            await self._drain()
            if timeout_ms is None:
                return await future
            async with asyncio.timeout(timeout_ms / 1000):
                return await future
        except TimeoutError:
            if future.done() and not future.cancelled():
                return future.result()  # answered (or failed) just as the time ran out
            name = messages.API_NAMES.get(api_key, str(api_key))
            what = (
                f"{name} v{version} request (correlation id {correlation_id}) got no "
                f"response within {timeout_ms} ms"
            )
            self._end(f"closed: a {what}", abort=True)
            raise RequestTimeoutError(f"{what} from {self.address}") from None
        finally:
            self._waiters.pop(correlation_id, None)

    def close(self) -> None:
        """Close the connection; requests in flight fail with ConnectionLostError."""
        self._end("closed by this side", abort=False)

    # -- asyncio.Protocol ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._reader.buffer()

    def buffer_updated(self, nbytes: int) -> None:
        if self._closed is not None:
            return
        try:
            responses = self._conn.receive_frames(self._reader.filled(nbytes))
        except ProtocolError as exc:
            self._end(f"closed: the broker sent a bad response: {exc}", abort=True)
            return
        for correlation_id, body in responses:
            future = self._waiters.pop(correlation_id, None)
            if future is not None and not future.done():
                future.set_result(body)

    def eof_received(self) -> bool | None:
        return None  # close our side too; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(f"lost: {exc}" if exc is not None else "closed by the broker", abort=False)

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        self._wake_drainers()

    # -- internals ----------------------------------------------------------------------------

    async def _drain(self) -> None:
        if not self._write_paused or self._closed is not None:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._drain_waiters.append(waiter)
        await waiter

    def _wake_drainers(self) -> None:
        waiters, self._drain_waiters = self._drain_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _end(self, reason: str, *, abort: bool) -> None:
        """End the connection once; ``reason`` completes "connection to host:port ..."."""
        if self._closed is not None:
            return
        self._closed = reason
        waiters, self._waiters = self._waiters, {}
        for future in waiters.values():
            if not future.done():
                future.set_exception(ConnectionLostError(f"connection to {self.address} {reason}"))
        if self._transport is not None:
            if abort:
                self._transport.abort()
            else:
                self._transport.close()
        self._wake_drainers()
        log.debug("connection to %s ended: %s", self.address, reason)

    def __repr__(self) -> str:
        state = "connected" if self.connected else (self._closed or "not connected")
        return f"BrokerClient({self.address}, {state}, {self.in_flight} in flight)"


class NodeConnections:
    """One kept-open :class:`BrokerClient` per broker id, as a sender to several brokers keeps
    them (Kafka's ``NetworkClient`` per node): made on first use, and made again when the
    connection was lost or the broker now listens elsewhere. Whoever owns it decides retries
    and closes a node's connection after a failed request."""

    def __init__(self, client_id: str | None, connect_timeout: float,
                 ssl_context: ssl.SSLContext | None = None,
                 sasl: SaslClientCredentials | None = None) -> None:
        self.client_id = client_id
        self.connect_timeout = connect_timeout
        self.ssl_context = ssl_context
        self.sasl = sasl
        self._clients: dict[int, BrokerClient] = {}

    async def get(self, node: int, host: str, port: int) -> BrokerClient:
        """The connection to ``node`` at ``host:port``; raises :class:`BrokerConnectError`."""
        client = self._clients.get(node)
        if client is not None and (not client.connected
                                   or (client.host, client.port) != (host, port)):
            self.close(node)
            client = None
        if client is None:
            client = BrokerClient(host, port, client_id=self.client_id,
                                  ssl_context=self.ssl_context, sasl=self.sasl)
            await client.connect(self.connect_timeout)
            self._clients[node] = client
        return client

    def close(self, node: int) -> None:
        client = self._clients.pop(node, None)
        if client is not None:
            client.close()

    def close_all(self) -> None:
        for node in list(self._clients):
            self.close(node)
