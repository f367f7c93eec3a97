"""``pybroker healthcheck``: is a broker serving? One ApiVersions round trip over a socket, as a
client's first request - the container image's HEALTHCHECK.

The broker is ``--bootstrap host:port``, or else the first PLAINTEXT listener of the
``listeners`` the environment configures (``KAFKA_LISTENERS`` with
``KAFKA_LISTENER_SECURITY_PROTOCOL_MAP``, :mod:`pybroker.config.environment`), reached on
127.0.0.1 when it listens on every interface; 127.0.0.1:9092 when nothing says otherwise.
Healthy means the broker answered with no error and named the APIs it serves.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping

from protocol.client import ClientConnection
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import ApiKey, api_versions_request
from pybroker.config import ConfigException, broker_default, parse_listeners
from pybroker.config.environment import properties_from_env
from pybroker.config.listeners import (
    LISTENER_SECURITY_PROTOCOL_MAP,
    PLAINTEXT,
    parse_security_protocol_map,
)

DEFAULT_BOOTSTRAP = "127.0.0.1:9092"
#: ApiVersions v3 (KIP-511), what current clients send first
VERSION = 3


class Unhealthy(Exception):
    """The broker did not answer as a serving broker does; the message says how."""


def bootstrap_from_env(environ: Mapping[str, str]) -> str:
    """``host:port`` of the first PLAINTEXT listener the environment configures (the first
    listener when none is PLAINTEXT: the check then fails, saying what answered)."""
    props = properties_from_env(environ)
    listeners = props.get("listeners")
    if not listeners:
        return DEFAULT_BOOTSTRAP
    endpoints = parse_listeners(listeners)
    try:
        protocols = parse_security_protocol_map(
            props.get(LISTENER_SECURITY_PROTOCOL_MAP) or broker_default(
                LISTENER_SECURITY_PROTOCOL_MAP))
    except ConfigException:
        protocols = {}
    first = next((e for e in endpoints if protocols.get(e.listener) == PLAINTEXT), endpoints[0])
    host = first.host if first.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
    return f"[{host}]:{first.port}" if ":" in host else f"{host}:{first.port}"


def check(bootstrap: str, timeout: float = 5.0) -> int:
    """One ApiVersions round trip with the broker at ``bootstrap``; the number of APIs it
    serves. Raises :class:`Unhealthy`."""
    host, _, port = bootstrap.rpartition(":")
    host = host.strip("[]")
    deadline = time.monotonic() + timeout
    connection = ClientConnection("pybroker-healthcheck")
    request = api_versions_request.ApiVersionsRequest(
        client_software_name="pybroker-healthcheck", client_software_version="1")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            _, frame = connection.send_request(ApiKey.API_VERSIONS, VERSION, request)
            sock.sendall(frame)
            while True:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                data = sock.recv(65536)
                if not data:
                    raise Unhealthy(f"{bootstrap} closed the connection without an answer")
                answers = connection.receive_data(data)
                if answers:
                    break
    except (OSError, ValueError) as e:
        raise Unhealthy(f"{bootstrap}: {e}") from e
    except ProtocolError as e:
        raise Unhealthy(f"{bootstrap} answered something that is not Kafka's protocol: {e}") from e
    [(_, response)] = answers
    if response.error_code != ErrorCode.NONE:
        raise Unhealthy(f"{bootstrap} answered ApiVersions with error "
                        f"{ErrorCode(response.error_code).name}")
    if not response.api_keys:
        raise Unhealthy(f"{bootstrap} answered ApiVersions without any API")
    return len(response.api_keys)
