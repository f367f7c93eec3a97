"""What the socket server needs to know of a listener's security: its protocol, and for the
TLS protocols (SSL, SASL_SSL) the server's TLS context and how long a handshake may take.

:func:`listener_security` builds it from the broker's configuration when a listener opens (at
start-up, or when a dynamic ``listeners`` change adds one), so a listener takes the
``listener.name.<name>.ssl.*`` settings in force at that moment.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass

from pybroker.config import BrokerConfig
from pybroker.config.listeners import PLAINTEXT, SSL, TLS_PROTOCOLS
from pybroker.security.principal import KafkaPrincipal
from pybroker.security.tls import (
    check_server_settings,
    handshake_timeout_s,
    principal_builder,
    server_context,
)

#: how long a TLS handshake may take before the connection is closed (asyncio's default)
DEFAULT_HANDSHAKE_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class ListenerSecurity:
    """A listener's security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL), and the TLS
    context its connections are wrapped in (None unless the protocol runs over TLS)."""

    protocol: str = PLAINTEXT
    ssl_context: ssl.SSLContext | None = None
    handshake_timeout_s: float = DEFAULT_HANDSHAKE_TIMEOUT_S
    #: on an SSL listener, who a client is from its certificate (DER, None without one);
    #: raises ValueError when no ssl.principal.mapping.rules rule names it
    tls_principal: Callable[[bytes | None], KafkaPrincipal] | None = None


PLAINTEXT_LISTENER = ListenerSecurity()


def check_listener_security(config: BrokerConfig, listener: str) -> None:
    """What can be checked of a listener's security without reading files (ConfigException):
    its protocol, its TLS settings, ``ssl.principal.mapping.rules`` on an SSL listener."""
    protocol = config.security_protocol(listener)
    if protocol in TLS_PROTOCOLS:
        check_server_settings(config, listener)
    if protocol == SSL:
        principal_builder(config)


def listener_security(config: BrokerConfig, listener: str) -> ListenerSecurity:
    """The security of ``listener`` under ``config`` (ConfigException when its protocol is
    unknown or its TLS settings cannot be used). Reads a TLS listener's key and trust stores:
    call it off the event loop."""
    protocol = config.security_protocol(listener)
    if protocol not in TLS_PROTOCOLS:
        return ListenerSecurity(protocol)
    return ListenerSecurity(protocol, server_context(config, listener),
                            handshake_timeout_s(config),
                            principal_builder(config) if protocol == SSL else None)
