"""``server.properties``: reading it, and the broker configuration it gives.

Property names, types, defaults and validators are the catalogue's (:mod:`.catalogue`). A value
the catalogue's type or validator refuses stops the broker at start-up with Kafka's message
(``Invalid value abc for configuration num.partitions: Not a number of type INT``); a name the
catalogue does not know is accepted and ignored with a warning, as Kafka does with names it does
not know.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .catalogue import AUTHORIZER_CONFIGS, BROKER_CONFIGS, PYBROKER_CONFIGS, broker_value
from .listeners import (
    LISTENER_SECURITY_PROTOCOL_MAP,
    check_inter_broker_advertised,
    inter_broker_listener,
    listener_protocols,
    parse_security_protocol_map,
)
from .values import ConfigException

log = logging.getLogger(__name__)

#: every broker property with a default, as Kafka prints it (what a properties file would say)
_DEFAULT_PROPERTIES: dict[str, str] = {
    k.name: text for k in BROKER_CONFIGS.values() if (text := k.default_string) is not None
}


def parse_properties(text: str) -> dict[str, str]:
    """Parse Java ``.properties`` text: ``key=value`` or ``key: value``, ``#``/``!`` comments,
    backslash line continuations."""
    props: dict[str, str] = {}
    logical = ""
    for raw in text.splitlines():
        line = raw.strip() if not logical else raw.lstrip()
        if not logical and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            logical += line[:-1]
            continue
        logical += line
        match = re.match(r"([^=:\s]+)\s*[=:\s]\s*(.*)$", logical)
        if match:
            props[match.group(1)] = match.group(2).strip()
        elif logical:
            props[logical] = ""
        logical = ""
    return props


@dataclass(frozen=True, slots=True)
class Endpoint:
    listener: str
    host: str
    port: int


def parse_listeners(value: str) -> list[Endpoint]:
    """``PLAINTEXT://127.0.0.1:9092,OTHER://:9093`` -> endpoints (empty host = all interfaces)."""
    endpoints = []
    for item in filter(None, (v.strip() for v in value.split(","))):
        match = _LISTENER.match(item)
        if match is None or not match.group(1):
            raise ValueError(f"invalid listener {item!r}: expected NAME://host:port")
        endpoints.append(Endpoint(match.group(1).upper(), match.group(2), int(match.group(3))))
    return endpoints


#: a setting for one listener (``listener.name.external.ssl.client.auth``)
_LISTENER_SETTING = re.compile(r"^listener\.name\.[^.]+\.(.+)$")

#: Kafka's pattern of a listener (SocketServerConfigs.URI_PARSE_REGEXP); the name may hold
#: underscores (SASL_SSL), which a URL scheme may not
_LISTENER = re.compile(r"^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$")


@dataclass
class BrokerConfig:
    """The effective broker configuration: the catalogue's defaults overlaid by the file and the
    overrides, every catalogued value checked as Kafka checks it."""

    props: dict[str, str] = field(default_factory=dict)
    explicit: frozenset[str] = frozenset()  # names set by the file or an override (not defaults)

    @classmethod
    def load(cls, path: str | Path | None = None, overrides: list[str] | None = None) -> BrokerConfig:
        props: dict[str, str] = {}
        if path is not None:
            props.update(parse_properties(Path(path).read_text()))
        for item in overrides or []:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"override {item!r} is not key=value")
            props[key.strip()] = value.strip()
        return cls.from_dict(props)

    @classmethod
    def from_dict(cls, props: dict[str, str]) -> BrokerConfig:
        """Raises ValueError with Kafka's message for a value the catalogue refuses."""
        given = {name: str(value) for name, value in props.items()}
        for name, raw in given.items():
            listener_setting = _LISTENER_SETTING.match(name)
            if listener_setting is not None and listener_setting.group(1) in BROKER_CONFIGS:
                name = listener_setting.group(1)  # one listener's own value of a setting
            key = (BROKER_CONFIGS.get(name) or AUTHORIZER_CONFIGS.get(name)
                   or PYBROKER_CONFIGS.get(name))
            if key is None:
                # a listener's own settings (listener.name.<listener>.<property>) are read
                # where the listener is set up
                if not name.startswith("listener.name."):
                    log.warning("the configuration %r was supplied but is not one this broker "
                                "knows: it is ignored", name)
                continue
            try:
                key.parse(raw)
            except ConfigException as e:
                raise ValueError(e.message) from e
        # a listener that does not parse is refused now, with the rest of the configuration
        parse_listeners(given.get("listeners", ""))
        parse_listeners(given.get("advertised.listeners", ""))
        return cls({**_DEFAULT_PROPERTIES, **given}, frozenset(given))

    def get(self, name: str, default: str | None = None) -> str | None:
        """The property as written (or its default as Kafka prints it); ``default`` when unset
        and without a default."""
        return self.props.get(name, default)

    def value(self, name: str) -> Any:
        """A catalogued property's typed value (None when unset and without a default)."""
        return broker_value(self.props, name)

    def get_int(self, name: str) -> int:
        value = self.value(name)
        if value is None:
            raise KeyError(f"{name} is not set and has no default")
        return value

    def get_bool(self, name: str) -> bool:
        return self.value(name)

    # Frequently used settings, typed.
    @property
    def broker_id(self) -> int:
        return self.get_int("broker.id")

    @property
    def log_dirs(self) -> list[Path]:
        value = self.props.get("log.dirs") or self.props["log.dir"]
        return [Path(p.strip()) for p in value.split(",") if p.strip()]

    @property
    def listeners(self) -> list[Endpoint]:
        return parse_listeners(self.props["listeners"])

    @property
    def advertised_listeners(self) -> list[Endpoint]:
        """Kafka advertises ``listeners`` when ``advertised.listeners`` is unset; an empty host
        there means the machine's name, which for this broker is the loopback address."""
        value = self.props.get("advertised.listeners") or self.props["listeners"]
        return [
            Endpoint(e.listener, e.host or "127.0.0.1", e.port) for e in parse_listeners(value)
        ]

    @property
    def security_protocol_map(self) -> dict[str, str]:
        """``listener.security.protocol.map``: listener name -> security protocol."""
        return parse_security_protocol_map(self.props.get(LISTENER_SECURITY_PROTOCOL_MAP) or "")

    def security_protocol(self, listener: str) -> str:
        """The security protocol of a listener (ConfigException when the map has none)."""
        return listener_protocols(self.props.get("listeners") or "", [listener],
                                  self.security_protocol_map)[listener]

    @property
    def inter_broker_listener(self) -> tuple[str, str]:
        """(name, security protocol) of the listener brokers talk to each other on."""
        return inter_broker_listener(self.props, self.explicit, self.security_protocol_map)

    def check_listeners(self) -> None:
        """Kafka's start-up checks of the listeners: each has a security protocol in
        ``listener.security.protocol.map``, advertised ones too, and the inter-broker listener
        is advertised (ConfigException with Kafka's message)."""
        protocol_map = self.security_protocol_map
        listener_protocols(self.props.get("listeners") or "",
                           [e.listener for e in self.listeners], protocol_map)
        advertised = self.advertised_listeners
        listener_protocols(self.props.get("advertised.listeners") or "",
                           [e.listener for e in advertised], protocol_map)
        check_inter_broker_advertised(self.inter_broker_listener[0],
                                      [e.listener for e in advertised])

    @property
    def zookeeper_connect(self) -> str:
        return self.props.get("zookeeper.connect", "")
