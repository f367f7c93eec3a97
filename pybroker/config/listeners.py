"""Listeners and their security protocols, checked as Kafka checks them at start-up.

``listener.security.protocol.map`` names the security protocol of each listener
(``INTERNAL:PLAINTEXT,EXTERNAL:SSL``); Kafka's default maps each protocol's own name to itself,
so ``SSL://:9093`` is an SSL listener with no map at all. A listener the map does not name stops
the broker with Kafka's message (``Error creating broker listeners from 'FOO://:9092': No
security protocol defined for listener FOO``).

The inter-broker listener is ``inter.broker.listener.name`` or, when that is unset, the listener
named after ``security.inter.broker.protocol`` (``PLAINTEXT`` by default); setting both is an
error, as is an inter-broker listener that is not advertised (Kafka's KafkaConfig).
"""

from __future__ import annotations

from collections.abc import Mapping

from .values import ConfigException

PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL = "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"
#: Kafka's security protocols with their ids (SecurityProtocol)
SECURITY_PROTOCOLS: Mapping[str, int] = {PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3}
#: the protocols that run over TLS
TLS_PROTOCOLS = frozenset({SSL, SASL_SSL})
#: the protocols that authenticate with SASL
SASL_PROTOCOLS = frozenset({SASL_PLAINTEXT, SASL_SSL})

LISTENER_SECURITY_PROTOCOL_MAP = "listener.security.protocol.map"
INTER_BROKER_LISTENER_NAME = "inter.broker.listener.name"
INTER_BROKER_SECURITY_PROTOCOL = "security.inter.broker.protocol"


def security_protocol(name: str, config_name: str) -> str:
    """A security protocol by name (Kafka's SecurityProtocol.forName is case-sensitive)."""
    if name not in SECURITY_PROTOCOLS:
        raise ConfigException(f"Invalid security protocol `{name}` defined in {config_name}")
    return name


def parse_security_protocol_map(text: str) -> dict[str, str]:
    """``INTERNAL:PLAINTEXT,external:SSL`` -> {"INTERNAL": "PLAINTEXT", "EXTERNAL": "SSL"}
    (listener names are upper-cased, as Kafka's ListenerName.normalised does)."""
    out: dict[str, str] = {}
    for item in filter(None, (i.strip() for i in text.split(","))):
        name, sep, protocol = item.partition(":")
        if not sep or not name.strip():
            raise ConfigException(f"Invalid value {text} for configuration "
                                  f"{LISTENER_SECURITY_PROTOCOL_MAP}: Map entry '{item}' is "
                                  "improperly formatted")
        out[name.strip().upper()] = security_protocol(protocol.strip(),
                                                      LISTENER_SECURITY_PROTOCOL_MAP)
    return out


def listener_protocols(listeners_value: str, listener_names: list[str],
                       protocol_map: Mapping[str, str]) -> dict[str, str]:
    """Each listener's security protocol; a listener the map does not name is refused with
    Kafka's message. ``listeners_value``: the property as written (for the message)."""
    out = {}
    for name in listener_names:
        if name not in protocol_map:
            raise ConfigException(f"Error creating broker listeners from '{listeners_value}': "
                                  f"No security protocol defined for listener {name}")
        out[name] = protocol_map[name]
    return out


def inter_broker_listener(props: Mapping[str, str], explicit: frozenset[str] | set[str],
                          protocol_map: Mapping[str, str]) -> tuple[str, str]:
    """(listener name, security protocol) of the inter-broker listener, as Kafka decides it.
    ``explicit``: the names the configuration sets (Kafka checks its originals)."""
    name = props.get(INTER_BROKER_LISTENER_NAME)
    if name:
        if INTER_BROKER_SECURITY_PROTOCOL in explicit:
            raise ConfigException(f"Only one of {INTER_BROKER_LISTENER_NAME} and "
                                  f"{INTER_BROKER_SECURITY_PROTOCOL} should be set.")
        name = name.upper()
        if name not in protocol_map:
            raise ConfigException(f"Listener with name {name} defined in "
                                  f"{INTER_BROKER_LISTENER_NAME} not found in "
                                  f"{LISTENER_SECURITY_PROTOCOL_MAP}.")
        return name, protocol_map[name]
    protocol = security_protocol(props.get(INTER_BROKER_SECURITY_PROTOCOL) or PLAINTEXT,
                                 INTER_BROKER_SECURITY_PROTOCOL)
    return protocol, protocol


def check_inter_broker_advertised(inter_broker: str, advertised_names: list[str]) -> None:
    """Kafka's requirement that the inter-broker listener be advertised."""
    if inter_broker not in advertised_names:
        raise ConfigException(
            f"requirement failed: {INTER_BROKER_LISTENER_NAME} must be a listener name defined "
            "in advertised.listeners. The valid options based on currently configured listeners "
            f"are {','.join(advertised_names)}")
