"""Broker configuration: ``server.properties`` names and defaults, as Apache Kafka has them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

# Broker properties this broker understands, with Kafka's defaults (as strings, like a properties file).
DEFAULTS: dict[str, str] = {
    "broker.id": "0",
    "listeners": "PLAINTEXT://:9092",
    "advertised.listeners": "",
    "log.dirs": "",
    "log.dir": "/tmp/kafka-logs",
    "zookeeper.connect": "",
    "num.partitions": "1",
    "default.replication.factor": "1",
    "min.insync.replicas": "1",
    "auto.create.topics.enable": "true",
    "delete.topic.enable": "true",
    "socket.request.max.bytes": "104857600",
    "message.max.bytes": "1048588",
    "offsets.topic.num.partitions": "50",
    "offsets.topic.replication.factor": "3",
    "offsets.topic.segment.bytes": "104857600",
    "offsets.retention.minutes": "10080",
    "offsets.retention.check.interval.ms": "600000",
    "offset.metadata.max.bytes": "4096",
    "group.initial.rebalance.delay.ms": "3000",
    "group.min.session.timeout.ms": "6000",
    "group.max.session.timeout.ms": "1800000",
    "broker.rack": "",
    "log.flush.offset.checkpoint.interval.ms": "60000",
    "log.retention.check.interval.ms": "300000",
    "log.cleaner.enable": "true",
    "log.cleaner.backoff.ms": "15000",
    "producer.id.expiration.check.interval.ms": "600000",
    "log.flush.scheduler.interval.ms": "9223372036854775807",
    "replica.fetch.wait.max.ms": "500",
    "connections.max.idle.ms": "600000",
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
        parts = urlsplit(item)
        if not parts.scheme or parts.port is None:
            raise ValueError(f"invalid listener {item!r}: expected NAME://host:port")
        endpoints.append(Endpoint(parts.scheme.upper(), parts.hostname or "", parts.port))
    return endpoints


@dataclass
class BrokerConfig:
    """The effective broker configuration: Kafka's defaults overlaid by the file and overrides."""

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
        merged = dict(DEFAULTS)
        merged.update(props)
        return cls(merged, frozenset(props))

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.props.get(name, default)

    def get_int(self, name: str) -> int:
        return int(self.props[name])

    def get_bool(self, name: str) -> bool:
        return self.props[name].strip().lower() == "true"

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
    def zookeeper_connect(self) -> str:
        return self.props.get("zookeeper.connect", "")
