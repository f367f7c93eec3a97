"""The cluster and broker znodes of ``kafka.zk.ZkData``: ``/cluster/id``, ``/brokers/ids/<id>``
(a live broker's registration with its advertised listeners), ``/brokers/seqid`` and the old
consumers' path."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pybroker.zk.znodes.codec import (
    ZNodeDecodeError,
    _dumps,
    _field,
    _int,
    _object,
)


class ClusterZNode:
    PATH = "/cluster"


class ClusterIdZNode:
    """``/cluster/id``: ``{"version":"1","id":"<base64 uuid>"}`` (the version is a string)."""

    PATH = "/cluster/id"

    @staticmethod
    def encode(cluster_id: str) -> bytes:
        return _dumps({"version": "1", "id": cluster_id})

    @staticmethod
    def decode(data: bytes | None) -> str:
        what = "cluster id"
        obj = _object(data, what)
        if obj is None:
            raise ZNodeDecodeError(f"{what}: empty znode")
        cluster_id: str = _field(obj, "id", str, what)
        return cluster_id


class BrokersZNode:
    PATH = "/brokers"


class BrokerIdsZNode:
    PATH = "/brokers/ids"


class BrokerSequenceIdZNode:
    PATH = "/brokers/seqid"


class ConsumerPathZNode:
    """The old consumers' path, still created by brokers at start-up."""

    PATH = "/consumers"


#: Kafka's default listener name -> security protocol map (every protocol under its own name),
#: used for registrations older than version 4
DEFAULT_SECURITY_PROTOCOL_MAP: Mapping[str, str] = {
    p: p for p in ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")}

_ENDPOINT = re.compile(r"^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$")


@dataclass(frozen=True, slots=True)
class EndPoint:
    """One advertised listener: ``LISTENER://host:port`` and its security protocol."""

    listener_name: str
    host: str | None
    port: int
    security_protocol: str

    def connection_string(self) -> str:
        """Kafka's ``EndPoint.connectionString`` (an IPv6 host in brackets, no host as ``:port``)."""
        if self.host is None:
            hostport = f":{self.port}"
        elif ":" in self.host:
            hostport = f"[{self.host}]:{self.port}"
        else:
            hostport = f"{self.host}:{self.port}"
        return f"{self.listener_name}://{hostport}"

    @classmethod
    def parse(cls, text: str, protocol_map: Mapping[str, str]) -> EndPoint:
        """An endpoint from ``LISTENER://host:port``, its protocol from ``protocol_map``."""
        m = _ENDPOINT.match(text)
        if m is None:
            raise ZNodeDecodeError(f"unable to parse {text!r} to a broker endpoint")
        listener = m.group(1).upper()
        if listener not in protocol_map:
            raise ZNodeDecodeError(f"no security protocol defined for listener {listener}")
        return cls(listener, m.group(2) or None, int(m.group(3)), protocol_map[listener])


@dataclass(frozen=True)
class BrokerRegistration:
    """The content of ``/brokers/ids/<id>`` (Kafka's ``BrokerInfo``).

    ``host``/``port`` at the top level of the JSON (for old clients) and the listener map are
    derived from ``endpoints`` when encoding, as Kafka derives them. ``features`` maps a
    feature name to its ``{"min_version": .., "max_version": ..}`` range.
    """

    broker_id: int
    endpoints: tuple[EndPoint, ...]
    rack: str | None = None
    jmx_port: int = -1
    timestamp: int | None = None  # ms, written as a string
    features: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    version: int = 5

    def __post_init__(self) -> None:
        object.__setattr__(self, "endpoints", tuple(self.endpoints))
        object.__setattr__(self, "features",
                           {k: dict(v) for k, v in self.features.items()})

    def endpoint(self, listener_name: str) -> EndPoint | None:
        return next((e for e in self.endpoints if e.listener_name == listener_name), None)


class BrokerIdZNode:
    """``/brokers/ids/<id>``, ephemeral: a live broker's registration (JSON version 5)."""

    @staticmethod
    def path(broker_id: int) -> str:
        return f"{BrokerIdsZNode.PATH}/{broker_id}"

    @staticmethod
    def encode(info: BrokerRegistration) -> bytes:
        plaintext = next((e for e in info.endpoints if e.security_protocol == "PLAINTEXT"), None)
        obj: dict[str, object] = {
            "version": info.version,
            "host": plaintext.host if plaintext is not None else None,
            "port": plaintext.port if plaintext is not None else -1,
            "endpoints": [e.connection_string() for e in info.endpoints],
            "jmx_port": info.jmx_port,
        }
        if info.timestamp is not None:
            obj["timestamp"] = str(info.timestamp)
        if info.rack is not None and info.version >= 3:
            obj["rack"] = info.rack
        if info.version >= 4:
            obj["listener_security_protocol_map"] = {
                e.listener_name: e.security_protocol for e in info.endpoints}
        if info.version >= 5:
            obj["features"] = {k: dict(v) for k, v in info.features.items()}
        return _dumps(obj)

    @staticmethod
    def decode(broker_id: int, data: bytes | None) -> BrokerRegistration:
        what = f"registration of broker {broker_id}"
        obj = _object(data, what)
        if obj is None:
            raise ZNodeDecodeError(f"{what}: empty znode")
        version = _int(obj, "version", what)
        jmx_port = _int(obj, "jmx_port", what)
        if version < 1:
            raise ZNodeDecodeError(f"{what}: unsupported version {version}")
        if version == 1:
            endpoints: tuple[EndPoint, ...] = (EndPoint(
                "PLAINTEXT", _field(obj, "host", str, what), _int(obj, "port", what),
                "PLAINTEXT"),)
        else:
            raw_map = obj.get("listener_security_protocol_map")
            if raw_map is None:
                protocol_map: Mapping[str, str] = DEFAULT_SECURITY_PROTOCOL_MAP
            elif isinstance(raw_map, dict) and all(
                    isinstance(v, str) for v in raw_map.values()):
                protocol_map = {k.upper(): v for k, v in raw_map.items()}
            else:
                raise ZNodeDecodeError(f"{what}: listener_security_protocol_map {raw_map!r}")
            listeners = _field(obj, "endpoints", list, what)
            if not all(isinstance(s, str) for s in listeners):
                raise ZNodeDecodeError(f"{what}: endpoints {listeners!r}")
            endpoints = tuple(EndPoint.parse(s, protocol_map) for s in listeners)
        rack = obj.get("rack")
        if rack is not None and not isinstance(rack, str):
            raise ZNodeDecodeError(f"{what}: rack {rack!r}")
        timestamp = obj.get("timestamp")
        features = obj.get("features") or {}
        if not isinstance(features, dict) or not all(
                isinstance(v, dict) and all(isinstance(n, int) for n in v.values())
                for v in features.values()):
            raise ZNodeDecodeError(f"{what}: features {features!r}")
        try:
            ts = int(timestamp) if timestamp is not None else None
        except (TypeError, ValueError) as e:
            raise ZNodeDecodeError(f"{what}: timestamp {timestamp!r}") from e
        return BrokerRegistration(broker_id, endpoints, rack, jmx_port, ts, features, version)
