"""TLS for the SSL and SASL_SSL listeners, from Kafka's ``ssl.*`` settings."""

from __future__ import annotations

import ssl

from pybroker.config import BrokerConfig, ConfigException


def handshake_timeout_s(config: BrokerConfig) -> float:
    """How long a TLS handshake may take: ``connections.max.idle.ms``, after which Kafka closes
    a connection that has said nothing."""
    return max(0.001, config.get_int("connections.max.idle.ms") / 1000)


def server_context(config: BrokerConfig, listener: str) -> ssl.SSLContext:
    """The TLS context of a listener's connections."""
    raise ConfigException(f"Listener {listener} runs over TLS, which this broker does not "
                          "serve yet")
