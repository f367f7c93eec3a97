"""Kafka's znodes: one codec per znode, with Kafka 3.9's paths and JSON (``kafka.zk.ZkData``).

Each ``*ZNode`` class holds a znode's path (``PATH`` when fixed, ``path(...)`` when it names
something) and, where the znode has content, ``encode`` and ``decode``. The values are frozen
dataclasses. Writing Kafka's exact shapes lets Kafka's own tools read a pybroker cluster's
ZooKeeper, and lets pybroker read what Kafka wrote.

Decoding follows Kafka: older versions of a znode are read where Kafka reads them (broker
registrations from version 1, topic assignments without ``topic_id`` or the adding/removing
sets, controller registrations without ``kraftControllerEpoch``, version-1 config change
notifications); an empty znode reads as Kafka reads it (no configs, no assignment, no producer
id block yet). Bytes that are not the JSON a znode holds raise :class:`ZNodeDecodeError`.
Encoding always writes the current version, except for broker registrations, which carry the
version they were registered with.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from pybroker.kernel.types import TopicPartition


class ZNodeDecodeError(ValueError):
    """A znode's bytes are not the JSON its codec reads."""


# -- JSON as Kafka's Json.encodeAsBytes writes it -------------------------------------------------

def _dumps(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _loads(data: bytes | None, what: str) -> Any:
    """The parsed JSON, or None for an empty znode."""
    if not data:
        return None
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ZNodeDecodeError(f"{what}: not JSON: {data[:200]!r}") from e


def _object(data: bytes | None, what: str) -> dict[str, Any] | None:
    value = _loads(data, what)
    if value is not None and not isinstance(value, dict):
        raise ZNodeDecodeError(f"{what}: expected a JSON object: {(data or b'')[:200]!r}")
    return value


def _field(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in obj:
        raise ZNodeDecodeError(f"{what}: no {key!r} in {obj!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ZNodeDecodeError(f"{what}: {key!r} is {value!r}")
    return value


def _int(obj: Mapping[str, Any], key: str, what: str) -> int:
    value: int = _field(obj, key, int, what)
    return value


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ZNodeDecodeError(f"{what}: expected a list of integers: {value!r}")
    return tuple(value)


def _partitions_json(partitions: Iterable[TopicPartition]) -> list[dict[str, object]]:
    return [{"topic": t, "partition": p} for t, p in sorted(partitions)]


def _partitions_from_json(obj: Mapping[str, Any], what: str) -> frozenset[TopicPartition]:
    items = _field(obj, "partitions", list, what)
    out: set[TopicPartition] = set()
    for item in items:
        if not isinstance(item, dict):
            raise ZNodeDecodeError(f"{what}: partition entry {item!r}")
        out.add((_field(item, "topic", str, what), _int(item, "partition", what)))
    return frozenset(out)


# -- topic ids --------------------------------------------------------------------------------

#: Kafka's ``Uuid.ZERO_UUID``
ZERO_UUID = uuid.UUID(int=0)


def uuid_to_string(value: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 of the 16 bytes, without padding."""
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def uuid_from_string(text: str) -> uuid.UUID:
    """Kafka's ``Uuid.fromString``."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as e:
        raise ZNodeDecodeError(f"not a base64 UUID: {text!r}") from e
    if len(raw) != 16:
        raise ZNodeDecodeError(f"not a base64 UUID of 16 bytes: {text!r}")
    return uuid.UUID(bytes=raw)


def new_base64_uuid() -> str:
    """A random UUID as Kafka's cluster ids are made (``CoreUtils.generateUuidAsBase64``)."""
    return uuid_to_string(uuid.uuid4())


# -- top-level paths --------------------------------------------------------------------------

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


class TopicsZNode:
    PATH = "/brokers/topics"


class ConfigZNode:
    PATH = "/config"


class AdminZNode:
    PATH = "/admin"


class DeleteTopicsZNode:
    PATH = "/admin/delete_topics"


class ConsumerPathZNode:
    """The old consumers' path, still created by brokers at start-up."""

    PATH = "/consumers"


class LogDirEventNotificationZNode:
    PATH = "/log_dir_event_notification"


class IsrChangeNotificationZNode:
    PATH = "/isr_change_notification"


class ConfigEntityChangeNotificationZNode:
    PATH = "/config/changes"


# Kafka's ConfigType: the entity types configured through ZooKeeper (ConfigType.ALL)
CONFIG_TOPIC = "topics"
CONFIG_CLIENT = "clients"
CONFIG_USER = "users"
CONFIG_BROKER = "brokers"
CONFIG_IP = "ips"
CONFIG_TYPES = (CONFIG_TOPIC, CONFIG_CLIENT, CONFIG_USER, CONFIG_BROKER, CONFIG_IP)


class ConfigEntityTypeZNode:
    @staticmethod
    def path(entity_type: str) -> str:
        return f"{ConfigZNode.PATH}/{entity_type}"


# -- brokers ----------------------------------------------------------------------------------

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


# -- the controller ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ControllerRegistration:
    """The content of ``/controller``: who the controller is (``kraftControllerEpoch`` is -1
    for a ZooKeeper controller, absent before version 2)."""

    broker_id: int
    timestamp: int | None = None
    kraft_controller_epoch: int | None = -1
    version: int = 2


class ControllerZNode:
    """``/controller``, ephemeral: whoever creates it is the controller."""

    PATH = "/controller"

    @staticmethod
    def encode(reg: ControllerRegistration) -> bytes:
        obj: dict[str, object] = {"version": reg.version, "brokerid": reg.broker_id}
        if reg.timestamp is not None:
            obj["timestamp"] = str(reg.timestamp)
        if reg.kraft_controller_epoch is not None:
            obj["kraftControllerEpoch"] = reg.kraft_controller_epoch
        return _dumps(obj)

    @staticmethod
    def decode(data: bytes | None) -> ControllerRegistration:
        what = "controller registration"
        obj = _object(data, what)
        if obj is None:
            raise ZNodeDecodeError(f"{what}: empty znode")
        timestamp = obj.get("timestamp")
        kraft = obj.get("kraftControllerEpoch")
        if kraft is not None and (not isinstance(kraft, int) or isinstance(kraft, bool)):
            raise ZNodeDecodeError(f"{what}: kraftControllerEpoch {kraft!r}")
        try:
            ts = int(timestamp) if timestamp is not None else None
        except (TypeError, ValueError) as e:
            raise ZNodeDecodeError(f"{what}: timestamp {timestamp!r}") from e
        version = obj.get("version", 1)
        if not isinstance(version, int):
            raise ZNodeDecodeError(f"{what}: version {version!r}")
        return ControllerRegistration(_int(obj, "brokerid", what), ts, kraft, version)


class ControllerEpochZNode:
    """``/controller_epoch``: the controller epoch as plain decimal text."""

    PATH = "/controller_epoch"

    @staticmethod
    def encode(epoch: int) -> bytes:
        return str(epoch).encode()

    @staticmethod
    def decode(data: bytes | None) -> int:
        try:
            return int((data or b"").decode())
        except (UnicodeDecodeError, ValueError) as e:
            raise ZNodeDecodeError(f"controller epoch: {data!r}") from e


# -- topics -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ReplicaAssignment:
    """A partition's replicas, with those being added or removed by a reassignment."""

    replicas: tuple[int, ...]
    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "replicas", tuple(self.replicas))
        object.__setattr__(self, "adding_replicas", tuple(self.adding_replicas))
        object.__setattr__(self, "removing_replicas", tuple(self.removing_replicas))


@dataclass(frozen=True)
class TopicAssignment:
    """The content of ``/brokers/topics/<t>``: the topic id (None if never given one) and
    partition -> replica assignment."""

    topic_id: uuid.UUID | None
    partitions: Mapping[int, ReplicaAssignment]

    def __post_init__(self) -> None:
        object.__setattr__(self, "partitions", dict(sorted(self.partitions.items())))

    @classmethod
    def of(cls, topic_id: uuid.UUID | None,
           replicas: Mapping[int, Sequence[int]]) -> TopicAssignment:
        """An assignment with no reassignment in progress."""
        return cls(topic_id, {p: ReplicaAssignment(tuple(r)) for p, r in replicas.items()})

    def replicas(self) -> dict[int, tuple[int, ...]]:
        return {p: a.replicas for p, a in self.partitions.items()}


class TopicZNode:
    """``/brokers/topics/<t>``: the replica assignment (version 3). Creating it creates the
    topic."""

    @staticmethod
    def path(topic: str) -> str:
        return f"{TopicsZNode.PATH}/{topic}"

    @staticmethod
    def encode(assignment: TopicAssignment) -> bytes:
        parts = assignment.partitions
        obj: dict[str, object] = {
            "version": 3,
            "partitions": {str(p): list(a.replicas) for p, a in parts.items()},
            "adding_replicas": {
                str(p): list(a.adding_replicas) for p, a in parts.items() if a.adding_replicas},
            "removing_replicas": {
                str(p): list(a.removing_replicas) for p, a in parts.items()
                if a.removing_replicas},
        }
        if assignment.topic_id is not None:
            obj["topic_id"] = uuid_to_string(assignment.topic_id)
        return _dumps(obj)

    @staticmethod
    def decode(topic: str, data: bytes | None) -> TopicAssignment:
        what = f"assignment of topic {topic}"
        obj = _object(data, what)
        if obj is None:
            return TopicAssignment(None, {})
        raw_id = obj.get("topic_id")
        topic_id = uuid_from_string(raw_id) if isinstance(raw_id, str) else None

        def table(key: str) -> Mapping[str, Any]:
            value = obj.get(key)
            if value is None:
                return {}
            if not isinstance(value, dict):
                raise ZNodeDecodeError(f"{what}: {key} {value!r}")
            return value

        adding, removing = table("adding_replicas"), table("removing_replicas")
        partitions: dict[int, ReplicaAssignment] = {}
        for p, replicas in table("partitions").items():
            try:
                partition = int(p)
            except ValueError as e:
                raise ZNodeDecodeError(f"{what}: partition {p!r}") from e
            partitions[partition] = ReplicaAssignment(
                _ints(replicas, what), _ints(adding.get(p, []), what),
                _ints(removing.get(p, []), what))
        return TopicAssignment(topic_id, partitions)


class TopicPartitionsZNode:
    @staticmethod
    def path(topic: str) -> str:
        return f"{TopicZNode.path(topic)}/partitions"


class TopicPartitionZNode:
    @staticmethod
    def path(tp: TopicPartition) -> str:
        return f"{TopicPartitionsZNode.path(tp[0])}/{tp[1]}"


#: KIP-704's leader recovery states (``org.apache.kafka.metadata.LeaderRecoveryState``)
RECOVERED = 0
RECOVERING = 1


@dataclass(frozen=True, slots=True)
class LeaderIsrAndControllerEpoch:
    """The content of a partition's ``state`` znode; its partition epoch is the znode's version,
    returned beside it."""

    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    controller_epoch: int
    leader_recovery_state: int = RECOVERED

    def __post_init__(self) -> None:
        object.__setattr__(self, "isr", tuple(self.isr))


class TopicPartitionStateZNode:
    """``/brokers/topics/<t>/partitions/<p>/state`` (version 1)."""

    @staticmethod
    def path(tp: TopicPartition) -> str:
        return f"{TopicPartitionZNode.path(tp)}/state"

    @staticmethod
    def encode(state: LeaderIsrAndControllerEpoch) -> bytes:
        obj: dict[str, object] = {
            "version": 1,
            "leader": state.leader,
            "leader_epoch": state.leader_epoch,
            "controller_epoch": state.controller_epoch,
            "isr": list(state.isr),
        }
        if state.leader_recovery_state != RECOVERED:
            obj["leader_recovery_state"] = state.leader_recovery_state
        return _dumps(obj)

    @staticmethod
    def decode(data: bytes | None) -> LeaderIsrAndControllerEpoch | None:
        """None for an empty znode, as Kafka reads one."""
        what = "partition state"
        obj = _object(data, what)
        if obj is None:
            return None
        recovery = obj.get("leader_recovery_state", RECOVERED)
        if recovery not in (RECOVERED, RECOVERING) or isinstance(recovery, bool):
            raise ZNodeDecodeError(f"{what}: leader_recovery_state {recovery!r}")
        return LeaderIsrAndControllerEpoch(
            _int(obj, "leader", what), _int(obj, "leader_epoch", what),
            _ints(_field(obj, "isr", list, what), what), _int(obj, "controller_epoch", what),
            recovery)


# -- configs ----------------------------------------------------------------------------------

def sanitize(name: str) -> str:
    """Kafka's ``Sanitizer.sanitize``: a user or client id made safe as a znode name (URL
    encoding, ``*`` as ``%2A``, a space as ``%20``)."""
    return quote(name, safe="*").replace("*", "%2A").replace("~", "%7E")


def desanitize(name: str) -> str:
    """Kafka's ``Sanitizer.desanitize``."""
    return unquote(name)


class ConfigEntityZNode:
    """``/config/<entity type>/<name>``: ``{"version":1,"config":{name: value}}``."""

    @staticmethod
    def path(entity_type: str, entity_name: str) -> str:
        return f"{ConfigEntityTypeZNode.path(entity_type)}/{entity_name}"

    @staticmethod
    def encode(config: Mapping[str, str]) -> bytes:
        return _dumps({"version": 1, "config": dict(config)})

    @staticmethod
    def decode(data: bytes | None) -> dict[str, str]:
        """The configs; none for an empty znode or one without a ``config`` object."""
        what = "entity config"
        obj = _loads(data, what)
        if not isinstance(obj, dict) or not isinstance(obj.get("config"), dict):
            return {}
        config: dict[str, Any] = obj["config"]
        for k, v in config.items():
            if not isinstance(v, str):
                raise ZNodeDecodeError(f"{what}: {k} = {v!r} is not a string")
        return dict(config)


class ConfigEntityChangeNotificationSequenceZNode:
    """``/config/changes/config_change_<seq>``: ``{"version":2,"entity_path":"topics/<t>"}``,
    telling every broker to reload one entity's configs."""

    SEQUENCE_PREFIX = "config_change_"
    CREATE_PATH = f"{ConfigEntityChangeNotificationZNode.PATH}/{SEQUENCE_PREFIX}"

    @staticmethod
    def path(name: str) -> str:
        """The path of the notification child ``name`` (``config_change_0000000003``)."""
        return f"{ConfigEntityChangeNotificationZNode.PATH}/{name}"

    @staticmethod
    def encode(entity_path: str) -> bytes:
        return _dumps({"version": 2, "entity_path": entity_path})

    @staticmethod
    def decode(data: bytes | None) -> str:
        """The entity path (``topics/orders``); version 1 named its type and name apart."""
        what = "config change notification"
        obj = _object(data, what)
        if obj is None:
            raise ZNodeDecodeError(f"{what}: empty znode")
        version = _int(obj, "version", what)
        if version == 1:
            return f"{_field(obj, 'entity_type', str, what)}/{_field(obj, 'entity_name', str, what)}"
        if version == 2:
            entity_path: str = _field(obj, "entity_path", str, what)
            return entity_path
        raise ZNodeDecodeError(f"{what}: unsupported version {version}")


# -- ACLs (Kafka's ZkAclStore and ZkAclChangeStore) ------------------------------------------

#: the resource types' names in ACL paths (Kafka's ``SecurityUtils.resourceTypeName``)
ACL_RESOURCE_TYPES = ("Topic", "Group", "Cluster", "TransactionalId", "DelegationToken", "User")


class AclZNode:
    """``/kafka-acl/<ResourceType>/<name>`` (literal patterns) and
    ``/kafka-acl-extended/prefixed/<ResourceType>/<name>`` (prefixed ones):
    ``{"version":1,"acls":[{"principal":..,"permissionType":..,"operation":..,"host":..}]}``."""

    LITERAL_ROOT = "/kafka-acl"
    PREFIXED_ROOT = "/kafka-acl-extended/prefixed"
    ROOTS = (LITERAL_ROOT, PREFIXED_ROOT)

    @staticmethod
    def path(root: str, resource_type: str, name: str) -> str:
        return f"{root}/{resource_type}/{name}"

    @staticmethod
    def encode(acls: Sequence[Mapping[str, str]]) -> bytes:
        return _dumps({"version": 1, "acls": [dict(a) for a in acls]})

    @staticmethod
    def decode(data: bytes | None) -> list[dict[str, str]]:
        what = "ACL znode"
        obj = _object(data, what)
        if obj is None:
            return []
        version = _int(obj, "version", what)
        if version != 1:
            raise ZNodeDecodeError(f"{what}: unsupported version {version}")
        acls = _field(obj, "acls", list, what)
        out = []
        for acl in acls:
            if not isinstance(acl, dict):
                raise ZNodeDecodeError(f"{what}: an ACL is not an object")
            out.append({k: _field(acl, k, str, what)
                        for k in ("principal", "permissionType", "operation", "host")})
        return out


class AclChangeNotificationZNode:
    """``/kafka-acl-changes/acl_changes_<seq>`` naming a literal pattern as ``Topic:name``, and
    ``/kafka-acl-extended-changes/acl_changes_<seq>`` naming any pattern as
    ``{"version":1,"resourceType":"Topic","name":..,"patternType":"Prefixed"}``; each tells every
    broker to reread that pattern's ACLs."""

    LITERAL = "/kafka-acl-changes"
    EXTENDED = "/kafka-acl-extended-changes"
    ROOTS = (LITERAL, EXTENDED)
    SEQUENCE_PREFIX = "acl_changes_"

    @staticmethod
    def path(root: str, name: str) -> str:
        return f"{root}/{name}"


# -- admin requests ---------------------------------------------------------------------------

class DeleteTopicsTopicZNode:
    """``/admin/delete_topics/<t>``, empty: a request to delete the topic."""

    @staticmethod
    def path(topic: str) -> str:
        return f"{DeleteTopicsZNode.PATH}/{topic}"


class ReassignPartitionsZNode:
    """``/admin/reassign_partitions``: the legacy way to ask for reassignments."""

    PATH = "/admin/reassign_partitions"

    @staticmethod
    def encode(reassignment: Mapping[TopicPartition, Sequence[int]]) -> bytes:
        return _dumps({"version": 1, "partitions": [
            {"topic": t, "partition": p, "replicas": list(reassignment[(t, p)])}
            for t, p in sorted(reassignment)]})

    @staticmethod
    def decode(data: bytes | None) -> dict[TopicPartition, tuple[int, ...]]:
        what = "partition reassignment"
        obj = _object(data, what)
        if obj is None:
            raise ZNodeDecodeError(f"{what}: empty znode")
        _int(obj, "version", what)
        out: dict[TopicPartition, tuple[int, ...]] = {}
        for item in _field(obj, "partitions", list, what):
            if not isinstance(item, dict):
                raise ZNodeDecodeError(f"{what}: entry {item!r}")
            tp = (_field(item, "topic", str, what), _int(item, "partition", what))
            out[tp] = _ints(_field(item, "replicas", list, what), what)
        return out


class PreferredReplicaElectionZNode:
    """``/admin/preferred_replica_election``: partitions whose preferred replica should lead."""

    PATH = "/admin/preferred_replica_election"

    @staticmethod
    def encode(partitions: Iterable[TopicPartition]) -> bytes:
        return _dumps({"version": 1, "partitions": _partitions_json(partitions)})

    @staticmethod
    def decode(data: bytes | None) -> frozenset[TopicPartition]:
        obj = _object(data, "preferred replica election")
        if obj is None:
            return frozenset()
        return _partitions_from_json(obj, "preferred replica election")


class IsrChangeNotificationSequenceZNode:
    """``/isr_change_notification/isr_change_<seq>``: partitions whose ISR a leader changed."""

    SEQUENCE_PREFIX = "isr_change_"
    VERSION = 1

    @staticmethod
    def path(sequence_number: str = "") -> str:
        return (f"{IsrChangeNotificationZNode.PATH}/"
                f"{IsrChangeNotificationSequenceZNode.SEQUENCE_PREFIX}{sequence_number}")

    @staticmethod
    def encode(partitions: Iterable[TopicPartition]) -> bytes:
        return _dumps({"version": IsrChangeNotificationSequenceZNode.VERSION,
                       "partitions": _partitions_json(partitions)})

    @staticmethod
    def decode(data: bytes | None) -> frozenset[TopicPartition]:
        obj = _object(data, "ISR change notification")
        if obj is None:
            return frozenset()
        return _partitions_from_json(obj, "ISR change notification")

    @staticmethod
    def sequence_number(path: str) -> str:
        prefix = IsrChangeNotificationSequenceZNode.SEQUENCE_PREFIX
        return path[path.rfind(prefix) + len(prefix):]


class LogDirEventNotificationSequenceZNode:
    """``/log_dir_event_notification/log_dir_event_<seq>``: a broker's log dir failed (KIP-112);
    the controller asks that broker which of its replicas are still online."""

    SEQUENCE_PREFIX = "log_dir_event_"
    VERSION = 1
    #: Kafka's ``LogDirFailureEvent``, the only event there is
    LOG_DIR_FAILURE_EVENT = 1

    @staticmethod
    def path(sequence_number: str = "") -> str:
        return (f"{LogDirEventNotificationZNode.PATH}/"
                f"{LogDirEventNotificationSequenceZNode.SEQUENCE_PREFIX}{sequence_number}")

    @staticmethod
    def encode(broker_id: int) -> bytes:
        return _dumps({"version": LogDirEventNotificationSequenceZNode.VERSION,
                       "broker": broker_id,
                       "event": LogDirEventNotificationSequenceZNode.LOG_DIR_FAILURE_EVENT})

    @staticmethod
    def decode(data: bytes | None) -> int | None:
        """The broker the event names (None for an empty znode)."""
        what = "log dir event notification"
        obj = _object(data, what)
        if obj is None:
            return None
        broker: int = _field(obj, "broker", int, what)
        return broker

    @staticmethod
    def sequence_number(path: str) -> str:
        prefix = LogDirEventNotificationSequenceZNode.SEQUENCE_PREFIX
        return path[path.rfind(prefix) + len(prefix):]


# -- producer ids -----------------------------------------------------------------------------

#: Kafka's ``ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE``
PRODUCER_ID_BLOCK_SIZE = 1000
_LONG_MAX = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class ProducerIdsBlock:
    """``size`` producer ids from ``first_producer_id``, reserved by one broker."""

    assigned_broker_id: int
    first_producer_id: int
    size: int

    @property
    def last_producer_id(self) -> int:
        return self.first_producer_id + self.size - 1

    @property
    def next_block_first_id(self) -> int:
        return self.first_producer_id + self.size


class ProducerIdBlockZNode:
    """``/latest_producer_id_block``: the last block handed out,
    ``{"version":1,"broker":b,"block_start":"0","block_end":"999"}`` (ids as strings)."""

    PATH = "/latest_producer_id_block"
    CURRENT_VERSION = 1

    @staticmethod
    def encode(block: ProducerIdsBlock) -> bytes:
        return _dumps({"version": ProducerIdBlockZNode.CURRENT_VERSION,
                       "broker": block.assigned_broker_id,
                       "block_start": str(block.first_producer_id),
                       "block_end": str(block.last_producer_id)})

    @staticmethod
    def decode(data: bytes | None) -> ProducerIdsBlock | None:
        """The latest block, or None when none was handed out yet (an empty znode)."""
        what = "producer id block"
        obj = _object(data, what)
        if obj is None:
            return None
        try:
            start = int(_field(obj, "block_start", str, what))
            end = int(_field(obj, "block_end", str, what))
        except ValueError as e:
            raise ZNodeDecodeError(f"{what}: {obj!r}") from e
        if not (0 <= start <= end <= _LONG_MAX):
            raise ZNodeDecodeError(f"{what}: block {start}..{end}")
        return ProducerIdsBlock(_int(obj, "broker", what), start, end - start + 1)


#: persistent paths every broker makes sure exist at start-up (Kafka's
#: ``ZkData.PersistentZkPaths``)
PERSISTENT_ZK_PATHS: tuple[str, ...] = (
    ConsumerPathZNode.PATH,
    BrokerIdsZNode.PATH,
    TopicsZNode.PATH,
    ConfigEntityChangeNotificationZNode.PATH,
    DeleteTopicsZNode.PATH,
    BrokerSequenceIdZNode.PATH,
    IsrChangeNotificationZNode.PATH,
    ProducerIdBlockZNode.PATH,
    LogDirEventNotificationZNode.PATH,
    *(ConfigEntityTypeZNode.path(t) for t in CONFIG_TYPES),
)
