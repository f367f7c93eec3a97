"""A minimal blocking Kafka client over a raw socket, built on the generated codecs.

For tests of broker semantics that stock clients hide or do not exercise (old versions, two
batches in one partition, exact sequence numbers). The codecs themselves are checked against
kafka-python's in the unit tests, so a shared encoding bug cannot hide here.
"""

from __future__ import annotations

import socket
import ssl
import struct
from typing import Any

from protocol import messages
from protocol.headers import request_header_version, response_header_version
from protocol.primitives import Reader, Writer
from pybroker.security.sasl_client import SaslClientCredentials


class WireClient:
    """``ssl_context``: speak TLS (to an SSL listener), the server's name checked as the
    context says."""

    def __init__(self, bootstrap: str, timeout: float = 15.0,
                 ssl_context: ssl.SSLContext | None = None, client_id: str = "wire-test",
                 ) -> None:
        host, port = bootstrap.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)), timeout=timeout)
        if ssl_context is not None:
            try:
                sock = ssl_context.wrap_socket(sock, server_hostname=host)
            except BaseException:
                sock.close()
                raise
        self.sock = sock
        self.correlation_id = 0
        self.client_id = client_id.encode()

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> WireClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, api_key: int, version: int, body: Any) -> int:
        self.correlation_id += 1
        w = Writer()
        hv = request_header_version(api_key, version)
        w += struct.pack(">hhi", api_key, version, self.correlation_id)
        client_id = self.client_id
        w += struct.pack(">h", len(client_id)) + client_id
        if hv >= 2:
            w += b"\x00"  # no tagged fields
        messages.request_module(api_key).write(w, body, version)
        self.sock.sendall(struct.pack(">i", len(w)) + bytes(w))
        return self.correlation_id

    def receive(self, api_key: int, version: int, correlation_id: int) -> Any:
        size = struct.unpack(">i", self._recv_exact(4))[0]
        r = Reader(self._recv_exact(size))
        assert r.int32() == correlation_id
        if response_header_version(api_key, version) >= 1:
            r.tagged_fields()
        return messages.response_module(api_key).read(r, version)

    def call(self, api_key: int, version: int, body: Any) -> Any:
        return self.receive(api_key, version, self.send(api_key, version, body))

    def authenticate(self, credentials: SaslClientCredentials) -> Any:
        """Log in on a SASL listener (SaslHandshake v1, then SaslAuthenticate v2 until the
        exchange ends): the last SaslAuthenticate response, a failed one included."""
        from protocol.messages import (
            sasl_authenticate_request as auth_req,
            sasl_handshake_request as handshake_req,
        )
        handshake = self.call(17, 1, handshake_req.SaslHandshakeRequest(
            mechanism=credentials.mechanism))
        if handshake.error_code:
            return handshake
        exchange = credentials.exchange()
        token: bytes | None = exchange.first()
        while True:
            answer = self.call(36, 2, auth_req.SaslAuthenticateRequest(auth_bytes=token or b""))
            if answer.error_code:
                return answer
            token = exchange.respond(answer.auth_bytes)
            if token is None:
                return answer

    def _recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("broker closed the connection")
            buf += chunk
        return bytes(buf)
