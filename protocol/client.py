"""The client side of a Kafka connection, without I/O (after h11).

A :class:`ClientConnection` turns requests into frames and received bytes into decoded
responses; whoever owns the socket moves the bytes. A broker uses it to talk to other brokers
(the controller's channel to each broker, replica fetchers).

* ``send_request`` picks the request header version from the API and version (as
  :func:`protocol.headers.request_header_version` does for the server side), numbers the
  request with the next correlation id and returns the whole frame, size prefix included.
* ``receive_data`` feeds bytes to a :class:`~protocol.framing.FrameDecoder` and decodes every
  complete response with the generated codec of the request it answers; ``receive_frames``
  decodes frames the owner of the socket has already cut (with a
  :class:`~protocol.framing.FrameReader`, which reads each large frame into its own buffer).

Kafka answers the requests of one connection in the order they were sent, so each response
must carry the correlation id of the oldest request still waiting; anything else (another id,
a response nobody asked for, bytes that do not decode) raises :class:`ProtocolError` and leaves
the connection unusable, as the stream can no longer be trusted. Kafka's client does the same
(``CorrelationIdMismatchException``).

Two quirks follow Kafka's client:

* ApiVersions responses always come with response header v0, and a broker that does not know
  the requested ApiVersions version answers in the v0 layout (KIP-511): a body that does not
  decode at the requested version is read again as v0.
* A Produce request with ``acks=0`` gets no response, so it is not waited for.
"""

from __future__ import annotations

import collections
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from protocol import messages
from protocol.errors import ProtocolError
from protocol.framing import FrameDecoder
from protocol.headers import request_header_version, response_header_version
from protocol.messages import ApiKey, request_header
from protocol.messages.request_header import RequestHeader
from protocol.primitives import Reader, Writer

__all__ = ["ClientConnection", "PendingRequest"]

_SIZE = struct.Struct(">i")
#: correlation ids are int32s; after the largest one they start again at 0
MAX_CORRELATION_ID = 0x7FFFFFFF
#: the largest size a frame's int32 prefix can announce
MAX_FRAME_SIZE = 0x7FFFFFFF
_DECODE_ERRORS = (struct.error, ValueError, IndexError, OverflowError, MemoryError,
                  UnicodeDecodeError)


@dataclass(frozen=True, slots=True)
class PendingRequest:
    """A request sent and not yet answered."""

    correlation_id: int
    api_key: int
    api_version: int


class ClientConnection:
    """One client connection to a Kafka broker, as a state machine over bytes.

    ``client_id`` goes into every request header (Kafka's controller uses its broker id).
    ``max_frame_size`` bounds a response frame; Kafka's clients accept any size, so the default
    is the largest frame an int32 size can announce.
    """

    __slots__ = ("client_id", "_decoder", "_next_correlation_id", "_pending", "_broken")

    def __init__(
        self,
        client_id: str | None,
        *,
        max_frame_size: int = MAX_FRAME_SIZE,
        first_correlation_id: int = 0,
    ) -> None:
        if not 0 <= first_correlation_id <= MAX_CORRELATION_ID:
            raise ValueError(f"correlation id {first_correlation_id} does not fit an int32")
        self.client_id = client_id
        self._decoder = FrameDecoder(max_frame_size)
        self._next_correlation_id = first_correlation_id
        self._pending: collections.deque[PendingRequest] = collections.deque()
        self._broken: str | None = None

    # -- state -------------------------------------------------------------------------------

    @property
    def in_flight(self) -> tuple[PendingRequest, ...]:
        """Requests sent and waiting for their response, oldest first."""
        return tuple(self._pending)

    @property
    def broken(self) -> bool:
        """True once the peer sent something that cannot be a response; nothing more is read."""
        return self._broken is not None

    # -- sending -----------------------------------------------------------------------------

    def send_request(
        self,
        api_key: int,
        api_version: int,
        body: Any,
        *,
        expect_response: bool | None = None,
    ) -> tuple[int, bytes]:
        """Encode a request; returns its correlation id and the frame to write.

        ``expect_response`` defaults to True except for Produce with ``acks=0``, which the broker
        never answers. A key or version this codebase has no codec for raises ValueError: that
        is the caller's mistake, not the peer's.
        """
        versions = messages.REQUEST_VERSIONS.get(api_key)
        if versions is None:
            raise ValueError(f"unknown api key {api_key}")
        if not versions[0] <= api_version <= versions[1]:
            raise ValueError(
                f"{messages.API_NAMES[api_key]} v{api_version} is outside the known "
                f"versions {versions[0]}..{versions[1]}"
            )
        if expect_response is None:
            expect_response = not (api_key == ApiKey.PRODUCE and getattr(body, "acks", 1) == 0)
        correlation_id = self._next_correlation_id
        header = RequestHeader(
            request_api_key=api_key,
            request_api_version=api_version,
            correlation_id=correlation_id,
            client_id=self.client_id,
        )
        w = Writer()
        w += b"\0\0\0\0"
        request_header.WRITERS[request_header_version(api_key, api_version)](w, header)
        messages.request_module(api_key).write(w, body, api_version)
        _SIZE.pack_into(w, 0, w.total_size() - _SIZE.size)
        # only now that the request is encoded does it count as sent
        self._next_correlation_id = (
            0 if correlation_id == MAX_CORRELATION_ID else correlation_id + 1
        )
        if expect_response:
            self._pending.append(PendingRequest(correlation_id, api_key, api_version))
        return correlation_id, w.to_bytes()

    # -- receiving ---------------------------------------------------------------------------

    def receive_data(self, data: bytes | bytearray | memoryview) -> list[tuple[int, Any]]:
        """Feed received bytes; return ``(correlation_id, response)`` for every response they
        complete, in order. Raises :class:`ProtocolError` for anything that is not the answer to
        the oldest pending request; the connection is unusable afterwards."""
        if self._broken is not None:
            raise ProtocolError(f"connection is unusable: {self._broken}")
        try:
            frames = self._decoder.feed(data)
        except ProtocolError as exc:
            self._broken = str(exc)
            raise
        return self.receive_frames(frames)

    def receive_frames(self, frames: Iterable[bytes | bytearray]) -> list[tuple[int, Any]]:
        """``receive_data`` for whole frames (size prefix removed): ``(correlation_id,
        response)`` for each, in order, under the same rules. A response's records are views
        of its frame."""
        if self._broken is not None:
            raise ProtocolError(f"connection is unusable: {self._broken}")
        responses: list[tuple[int, Any]] = []
        try:
            for frame in frames:
                responses.append(self._read_response(frame))
        except ProtocolError as exc:
            self._broken = str(exc)
            raise
        return responses

    def _read_response(self, frame: bytes | bytearray) -> tuple[int, Any]:
        r = Reader(frame)
        try:
            correlation_id = r.int32()
        except (ProtocolError, *_DECODE_ERRORS) as exc:
            raise ProtocolError(f"malformed response header: {exc}") from exc
        if not self._pending:
            raise ProtocolError(
                f"response with correlation id {correlation_id} when no request is in flight"
            )
        expected = self._pending[0]
        if correlation_id != expected.correlation_id:
            raise ProtocolError(
                f"correlation id mismatch: got {correlation_id}, expected "
                f"{expected.correlation_id} ({messages.API_NAMES[expected.api_key]} "
                f"v{expected.api_version}); responses must arrive in request order"
            )
        self._pending.popleft()
        key, version = expected.api_key, expected.api_version
        try:
            if response_header_version(key, version) >= 1:
                r.tagged_fields()
            body = _decode_body(key, version, memoryview(frame)[r.pos:])
        except (ProtocolError, *_DECODE_ERRORS) as exc:
            raise ProtocolError(
                f"undecodable {messages.API_NAMES[key]} v{version} response "
                f"(correlation id {correlation_id}): {exc}"
            ) from exc
        return correlation_id, body


def _decode_body(api_key: int, version: int, data: memoryview) -> Any:
    module = messages.response_module(api_key)
    try:
        return module.decode(data, version)
    except ProtocolError as exc:
        if api_key != ApiKey.API_VERSIONS or version == 0:
            raise
        # KIP-511: a broker that does not know this ApiVersions version answers in v0's layout
        try:
            return module.decode(data, 0)
        except ProtocolError:
            raise exc from None
