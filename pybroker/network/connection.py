"""One client connection: framing in, responses out, strictly in request order.

The connection is an ``asyncio.BufferedProtocol``: the socket reads into the buffer a
:class:`~protocol.framing.FrameReader` offers, so a large request (a produce of a megabyte)
lands in its own buffer as it arrives instead of being joined from received pieces. Requests
are handled as soon as their frame is complete, in the ``buffer_updated`` callback itself: no
task per request. A handler that must wait (a long-poll fetch) hands back a future;
the connection keeps a FIFO of response slots so answers still leave in request order (Kafka
clients match responses to requests by order as well as correlation id). Everything that is
ready at the end of a wake-up goes out in one ``transport.write``.

A Fetch response can carry regions of segment files (``Writer.splices``). They are sent with
``os.sendfile`` when the event loop supports it, otherwise read with ``os.pread`` and written
like any other bytes. When nothing is queued on the transport a region goes out at once, in
the callback that made the response, as far as the socket takes it; what it does not take (a
full send buffer) is sent by ``loop.sendfile`` in a task, which holds back the responses after
it. A fetch answer to a follower mostly fits the socket, so most cost one system call and no
task.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
import os
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from protocol.errors import ProtocolError
from protocol.framing import FrameReader
from pybroker.kernel.outcome import is_pending
from pybroker.metrics.request_metrics import RequestTimes, now_ns
from pybroker.network.traffic import Traffic
from pybroker.security.principal import ANONYMOUS, KafkaPrincipal
from pybroker.security.sasl import SaslAuthenticator

if TYPE_CHECKING:
    from pybroker.network.dispatch import RequestDispatcher

log = logging.getLogger(__name__)

_BYTES_TYPES = (bytes, bytearray, memoryview)


def response_pieces(w: Any) -> list[Any]:
    """Split an encoded response into byte chunks and file slices, in wire order."""
    splices = getattr(w, "splices", None)
    if not splices:
        return [w]
    pieces: list[Any] = []
    start = 0
    view = memoryview(w)
    for pos, obj in splices:
        if pos > start:
            pieces.append(view[start:pos])
        pieces.append(obj)
        start = pos
    if start < len(w):
        pieces.append(view[start:])
    return pieces


#: a connection's client software until its ApiVersions names it (Kafka's ``unknown``)
UNKNOWN_SOFTWARE = ("unknown", "unknown")


class KafkaConnection(asyncio.BufferedProtocol):
    """``read_chunk``: what the socket reads into between frames; the connections of one event
    loop may share it (:class:`~protocol.framing.FrameReader`)."""

    def __init__(self, dispatcher: RequestDispatcher, *, max_frame_size: int, use_sendfile: bool,
                 connections: set[KafkaConnection],
                 on_sendfile_unsupported: Callable[[], None] = lambda: None,
                 listener: str = "", read_chunk: bytearray | None = None,
                 security_protocol: str = "PLAINTEXT",
                 tls_principal: Callable[[bytes | None], KafkaPrincipal] | None = None,
                 sasl: SaslAuthenticator | None = None,
                 on_closed: Callable[[], None] | None = None,
                 on_client_software: Callable[[str, str], None] | None = None,
                 traffic: Traffic | None = None) -> None:
        """``on_closed``: told once when the connection is gone; ``on_client_software``: told
        the client's software name and version when ApiVersions names them; ``traffic``: its
        listener's byte, request and response counts."""
        self.traffic = traffic
        self.dispatcher = dispatcher
        self._on_closed = on_closed
        self._on_client_software = on_client_software
        #: (name, version) of the client's software (KIP-511), unknown until ApiVersions v3+
        self.client_software = UNKNOWN_SOFTWARE
        #: the listener this connection was accepted on
        self.listener = listener
        #: that listener's security protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
        self.security_protocol = security_protocol
        self._tls_principal = tls_principal
        #: who the connection speaks for; authentication (TLS, SASL) replaces it
        self.principal: KafkaPrincipal = ANONYMOUS
        #: the SASL authentication of a connection on a SASL listener (None on others)
        self.sasl = sasl
        self.max_frame_size = max_frame_size
        self.reader = FrameReader(max_frame_size, chunk=read_chunk)
        if sasl is not None:
            # until it authenticates, a client may send no more than a SASL exchange needs
            self.reader.max_frame_size = min(max_frame_size, sasl.settings.max_receive_size)
        self.use_sendfile = use_sendfile
        self.connections = connections
        self.on_sendfile_unsupported = on_sendfile_unsupported
        self.transport: asyncio.Transport | None = None
        self.peer = "?"
        self.closed = False
        #: (response or future of one, its request's times), in request order
        self._slots: collections.deque[tuple[Any, RequestTimes]] = collections.deque()
        self._sending = False  # a sendfile of a spliced response is under way
        self._fd = -1  # the socket's descriptor, for sending file regions at once
        self._write_paused = False
        self._close_after_flush = False
        #: the end of a throttle (KIP-219), while the connection is muted
        self._unmute: asyncio.TimerHandle | None = None
        #: (received, frame) of requests read before the mute took effect, in order
        self._held: collections.deque[tuple[int, bytearray]] = collections.deque()
        #: how often, and for how long in all, this connection was throttled
        self.throttles = 0
        self.throttled_ms = 0

    # -- asyncio.Protocol -------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if peer else "?"
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
            self._fd = sock.fileno()
        self.connections.add(self)
        ssl_object = transport.get_extra_info("ssl_object")
        if ssl_object is not None:
            # a TLS transport connects once the handshake is done: the client is known
            self._fd = -1  # sendfile cannot encrypt: file regions are read and written
            self.use_sendfile = False
            if self._tls_principal is not None:
                try:
                    self.principal = self._tls_principal(ssl_object.getpeercert(True))
                except ValueError as e:
                    self.abort(f"TLS client authentication failed: {e}")
                    return
            log.debug("TLS connection from %s (%s, %s) as %s", self.peer, ssl_object.version(),
                      ssl_object.cipher()[0] if ssl_object.cipher() else "?", self.principal)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.connections.discard(self)
        if self._on_closed is not None:
            self._on_closed()
            self._on_closed = None
        for slot, _ in self._slots:
            if is_pending(slot):
                slot.cancel()
        self._slots.clear()
        if self._unmute is not None:
            self._unmute.cancel()
            self._unmute = None
        self._held.clear()

    def pause_writing(self) -> None:
        self._write_paused = True
        if self.transport is not None:
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        self._write_paused = False
        if self.transport is not None and not self.closed and self._unmute is None:
            self.transport.resume_reading()

    # -- KIP-219 ------------------------------------------------------------------------------
    def throttle(self, throttle_ms: int) -> None:
        """A response throttled this client's quota: read nothing more from it for
        ``throttle_ms`` (Kafka's ``ThrottledChannel``, which mutes the channel once the
        response is sent). The response itself goes out at once; requests already read wait."""
        if self.closed or self.transport is None or throttle_ms <= 0:
            return
        loop = asyncio.get_running_loop()
        until = loop.time() + throttle_ms / 1000
        self.throttles += 1
        self.throttled_ms += throttle_ms
        if self._unmute is not None:
            if self._unmute.when() >= until:
                return
            self._unmute.cancel()
        self._unmute = loop.call_at(until, self._end_throttle)
        self.transport.pause_reading()

    def _end_throttle(self) -> None:
        self._unmute = None
        if self.closed:
            return
        while self._held and not self._muted() and not self.closed:
            received, frame = self._held.popleft()
            self._dispatch([frame], received)
        if not self._muted() and not self._write_paused and self.transport is not None \
                and not self.closed:
            self.transport.resume_reading()

    def _muted(self) -> bool:
        return self._unmute is not None

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.reader.buffer()

    def buffer_updated(self, nbytes: int) -> None:
        if self.closed:
            return
        try:
            frames = self.reader.filled(nbytes)
        except ProtocolError as e:
            self.abort(f"bad frame: {e}")
            return
        received = now_ns()
        traffic = self.traffic
        if traffic is not None:
            traffic.incoming.count += nbytes
            traffic.requests.count += len(frames)
            traffic.request_size.record_frames(frames)
        if self._unmute is not None:  # throttled: read after the throttle ends
            self._held.extend((received, f) for f in frames)
            return
        self._dispatch(frames, received)

    def _dispatch(self, frames: list[bytearray], received: int) -> None:
        """Handle ``frames`` in order, then write what is ready; the frames after a response
        that throttles the connection wait until the throttle ends."""
        for i, frame in enumerate(frames):
            if self.closed:
                return
            if self._unmute is not None:
                self._held.extend((received, f) for f in frames[i:])
                break
            times = RequestTimes(received, len(frame))
            try:
                result = self.dispatcher.dispatch(frame, self, times)
            except ProtocolError as e:
                self.abort(f"bad request: {e}")
                return
            except Exception:
                log.exception("unexpected error handling a request from %s; closing it", self.peer)
                self.abort("internal error")
                return
            if result is None:
                times.complete(0)  # nothing to send: an acks=0 produce
                continue
            self._slots.append((result, times))
            if is_pending(result):
                result.add_done_callback(self._on_response_ready)
        self._flush()

    # -- responses --------------------------------------------------------------------------
    def _on_response_ready(self, fut: asyncio.Future) -> None:
        if not self.closed:
            self._flush()

    def _flush(self) -> None:
        try:
            self._flush_ready()
        except Exception as e:
            # e.g. a segment deleted while a response still pointed into it: the client
            # reconnects and fetches again, as after any broken connection.
            log.warning("writing a response to %s failed (%s); closing the connection", self.peer, e)
            self.abort("write failed")

    def _flush_ready(self) -> None:
        """Write every response at the head of the queue that is ready, in one write."""
        if self._sending or self.closed or self.transport is None:
            return
        chunks: list[Any] = []
        #: the requests whose responses this write sends
        sent: list[RequestTimes] = []
        while self._slots:
            slot, times = self._slots[0]
            if is_pending(slot):
                if not slot.done():
                    break
                if slot.cancelled() or slot.exception() is not None:
                    exc = None if slot.cancelled() else slot.exception()
                    if exc is not None and not isinstance(exc, ProtocolError):
                        log.error("request from %s failed", self.peer, exc_info=exc)
                    self._write(chunks, sent)
                    self.abort(f"request failed: {exc!r}" if exc is not None
                               else "request cancelled")
                    return
                response = slot.result()
                if response is None:  # a request that turned out to need no answer
                    self._slots.popleft()
                    times.complete(0)
                    continue
            else:
                response = slot
            self._slots.popleft()
            pieces = response_pieces(response)
            if self.traffic is not None:
                self.traffic.responses.count += 1
                self.traffic.outgoing.count += sum(map(len, pieces))
            if len(pieces) == 1:
                chunks.append(pieces[0])
                sent.append(times)
                continue
            if self.use_sendfile:
                self._write(chunks, sent)
                send_started = now_ns()
                rest = self._send_now(pieces)
                if self.closed:
                    return
                if rest is None:
                    times.complete(send_started)
                    continue  # all of it went out
                self._sending = True
                task = asyncio.ensure_future(self._send_spliced(*rest))
                task.add_done_callback(functools.partial(self._on_spliced_sent, times=times,
                                                         send_started=send_started))
                return
            chunks.extend(p if isinstance(p, _BYTES_TYPES) else p.read_bytes() for p in pieces)
            sent.append(times)
        self._write(chunks, sent)
        if self._close_after_flush and not self._slots:
            self.transport.close()

    def _write(self, chunks: list[Any], sent: list[RequestTimes] | None = None) -> None:
        """Write ``chunks`` at once, and complete the times of the requests they answer."""
        if not chunks or self.transport is None or self.closed:
            return
        send_started = now_ns()
        if len(chunks) == 1:
            self.transport.write(chunks[0])
        else:
            self.transport.write(b"".join(chunks))
        chunks.clear()
        if sent:
            for times in sent:
                times.complete(send_started)
            sent.clear()

    def _send_now(self, pieces: list[Any]) -> tuple[list[Any], int] | None:
        """Send a spliced response as far as the socket takes it without waiting: bytes go to
        the transport, file regions straight to the socket while nothing is queued before
        them. Returns None when all of it went out (or the connection was aborted), else the
        pieces left and how far into the first of them the send got."""
        transport = self.transport
        assert transport is not None
        for i, piece in enumerate(pieces):
            if isinstance(piece, _BYTES_TYPES):
                transport.write(piece)
                continue
            if self._fd < 0 or transport.get_write_buffer_size():
                return pieces[i:], 0  # bytes before it are still queued: keep the order
            size = len(piece)
            done = 0
            try:
                while done < size:
                    sent = os.sendfile(self._fd, piece.fileno(), piece.position + done,
                                       size - done)
                    if sent == 0:
                        self.abort(f"a segment file ended {size - done} bytes early while "
                                   "being sent")
                        return None
                    done += sent
            except BlockingIOError:
                return pieces[i:], done
            except OSError as e:
                self.abort(f"send failed: {e}")
                return None
        return None

    async def _send_spliced(self, pieces: list[Any], skip: int = 0) -> None:
        """Send ``pieces`` in order, waiting for the socket; ``skip``: bytes of the first one
        already sent."""
        loop = asyncio.get_running_loop()
        transport = self.transport
        assert transport is not None
        for piece in pieces:
            if self.closed:
                return
            if isinstance(piece, _BYTES_TYPES):
                transport.write(piece)
            else:
                want = len(piece) - skip
                sent = await loop.sendfile(transport, piece.file, piece.position + skip, want,
                                           fallback=True)
                if sent != want:
                    self.abort(f"a segment file ended {want - sent} bytes early while being "
                               "sent")
                    return
            skip = 0

    def _on_spliced_sent(self, task: asyncio.Task, times: RequestTimes | None = None,
                         send_started: int = 0) -> None:
        self._sending = False
        if task.cancelled() or self.closed:
            return
        if times is not None and task.exception() is None:
            times.complete(send_started)
        exc = task.exception()
        if exc is not None:
            if isinstance(exc, NotImplementedError):
                # This event loop cannot sendfile at all (uvloop): read and write from now on.
                log.info("event loop has no sendfile; fetches fall back to read+write")
                self.on_sendfile_unsupported()
            else:
                log.warning("sending a fetch response to %s failed: %s", self.peer, exc)
            self.abort("send failed")
            return
        self._flush()

    def authenticated(self, principal: KafkaPrincipal) -> None:
        """SASL authentication succeeded: the connection speaks for ``principal`` and may send
        frames up to ``socket.request.max.bytes``."""
        self.principal = principal
        self.reader.max_frame_size = self.max_frame_size

    def client_software_known(self, name: str, version: str) -> None:
        self.client_software = (name, version)
        if self._on_client_software is not None:
            self._on_client_software(name, version)

    def close_after_responses(self) -> None:
        """Close once everything queued so far has been written."""
        self._close_after_flush = True

    def abort(self, reason: str, level: int = logging.INFO) -> None:
        if self.closed:
            return
        # Kafka's SocketServer logs a connection closed for an invalid request at INFO too
        log.log(level, "closing connection from %s: %s", self.peer, reason)
        self.closed = True
        if self.transport is not None:
            self.transport.abort()
