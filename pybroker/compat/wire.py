"""A blocking connection that speaks Kafka's protocol with the generated codecs, for the probe
and for ``wire`` scenarios, keeping a transcript of what was sent and what came back (the
evidence of a failure)."""

from __future__ import annotations

import socket
import time
from typing import Any

from protocol.client import ClientConnection
from protocol.messages import API_NAMES
from pybroker.compat.security import ClientSecurity, authenticate as sasl_authenticate, wrap_tls

#: how much of one request or response the transcript keeps
TRANSCRIPT_CHARS = 2000


def split_bootstrap(bootstrap: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too) of the first address of a bootstrap list."""
    first = bootstrap.split(",")[0].strip()
    host, sep, port = first.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"not host:port: {bootstrap!r}")
    return host.strip("[]"), int(port)


def _clip(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= TRANSCRIPT_CHARS else text[:TRANSCRIPT_CHARS] + "..."


class WireConnection:
    """One connection to ``bootstrap``; :meth:`call` sends a request and waits for its answer.

    With ``security`` the connection speaks TLS when its protocol says so, and authenticates
    with its SASL credentials unless ``authenticate`` is False (a scenario then does the SASL
    exchange itself); :class:`~pybroker.compat.security.AuthenticationError` when refused."""

    def __init__(self, bootstrap: str, timeout: float = 10.0,
                 client_id: str = "pybroker-compat", security: ClientSecurity | None = None,
                 authenticate: bool = True) -> None:
        self.bootstrap = bootstrap
        self.timeout = timeout
        host, port = split_bootstrap(bootstrap)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.connection = ClientConnection(client_id)
        self.transcript: list[dict[str, Any]] = []
        try:
            if security is not None and security.tls:
                self.sock = wrap_tls(self.sock, host, security)
            if security is not None and security.sasl and authenticate:
                sasl_authenticate(self.call, security)
        except BaseException:
            self.sock.close()
            raise

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> WireConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, api_key: int, version: int, body: Any) -> Any:
        """The broker's answer to ``body`` as ``api_key`` v``version``; OSError or
        ConnectionError when the broker closes the connection or stays silent too long."""
        entry: dict[str, Any] = {
            "api": f"{API_NAMES.get(api_key, api_key)} v{version}", "request": _clip(body),
        }
        self.transcript.append(entry)
        _, frame = self.connection.send_request(api_key, version, body)
        self.sock.sendall(frame)
        deadline = time.monotonic() + self.timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                entry["response"] = "(no answer)"
                raise TimeoutError(f"no answer to {entry['api']} within {self.timeout}s")
            self.sock.settimeout(remaining)
            data = self.sock.recv(1 << 16)
            if not data:
                entry["response"] = "(connection closed)"
                raise ConnectionError(f"the broker closed the connection after {entry['api']}")
            answers = self.connection.receive_data(data)
            if answers:
                response = answers[0][1]
                entry["response"] = _clip(response)
                return response

