"""Quota entities and Kafka's rules for AlterClientQuotas and DescribeClientQuotas
(``ZkAdminManager.alterClientQuotas``/``describeClientQuotas``, ``QuotaConfigs``).

An entity is a user, a client id, a user with a client id, or an IP; each part is a name or
the default (``<default>`` in ZooKeeper, a null name on the wire). Names here are the real
ones: sanitizing them into znode names is the store's business.
"""

from __future__ import annotations

import enum
import ipaddress
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# Kafka's error codes (protocol.errors values)
UNKNOWN_SERVER_ERROR, INVALID_REQUEST, UNSUPPORTED_VERSION = -1, 42, 35

USER, CLIENT_ID, IP = "user", "client-id", "ip"
ENTITY_TYPES = (USER, CLIENT_ID, IP)

PRODUCER_BYTE_RATE = "producer_byte_rate"
CONSUMER_BYTE_RATE = "consumer_byte_rate"
REQUEST_PERCENTAGE = "request_percentage"
CONTROLLER_MUTATION_RATE = "controller_mutation_rate"
CONNECTION_CREATION_RATE = "connection_creation_rate"

LONG, INT, DOUBLE, STRING = "LONG", "INT", "DOUBLE", "STRING"
#: the quotas of users and client ids, with their types (QuotaConfigs.userAndClientQuotaConfigs)
CLIENT_QUOTA_KEYS: Mapping[str, str] = {
    PRODUCER_BYTE_RATE: LONG,
    CONSUMER_BYTE_RATE: LONG,
    REQUEST_PERCENTAGE: DOUBLE,
    CONTROLLER_MUTATION_RATE: DOUBLE,
}
#: what a user entity also holds: its SCRAM credentials (DynamicConfig.User)
SCRAM_KEYS: Mapping[str, str] = {"SCRAM-SHA-256": STRING, "SCRAM-SHA-512": STRING}
#: the quota of an IP (KIP-612's connection rate)
IP_QUOTA_KEYS: Mapping[str, str] = {CONNECTION_CREATION_RATE: INT}
INT_MAX = 2**31 - 1


class Default(enum.Enum):
    """The default entity of its type (``<default>``; a null name on the wire)."""

    DEFAULT = "<default>"

    def __repr__(self) -> str:
        return "<default>"


DEFAULT = Default.DEFAULT
#: one part of an entity: a name, or the default
Name = str | Default


class QuotaError(Exception):
    """A refusal, as Kafka's ApiError carries it."""

    def __init__(self, code: int, message: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class QuotaEntity:
    """One quota entity: a user, a client id, both, or an IP; each a name or the default."""

    user: Name | None = None
    client_id: Name | None = None
    ip: Name | None = None

    @property
    def keys(self) -> Mapping[str, str]:
        """The configs this entity may hold, by type."""
        if self.ip is not None:
            return IP_QUOTA_KEYS
        if self.user is not None and self.client_id is None:
            return {**SCRAM_KEYS, **CLIENT_QUOTA_KEYS}
        return CLIENT_QUOTA_KEYS

    def wire(self) -> list[tuple[str, str | None]]:
        """(entity type, name or None for the default) of each part."""
        out = []
        for entity_type, name in ((USER, self.user), (CLIENT_ID, self.client_id),
                                  (IP, self.ip)):
            if name is not None:
                out.append((entity_type, None if name is DEFAULT else name))
        return out


def _name(name: str | None) -> Name:
    return DEFAULT if name is None else name


def parse_entity(parts: Sequence[tuple[str, str | None]]) -> QuotaEntity:
    """An AlterClientQuotas entity (Kafka's ``parseAndSanitizeQuotaEntity`` and the entity
    match of ``alterEntityQuotas``); QuotaError when Kafka refuses it."""
    if not parts:
        raise QuotaError(INVALID_REQUEST, "Invalid empty client quota entity")
    found: dict[str, Name] = {}
    for entity_type, name in parts:
        if entity_type not in ENTITY_TYPES:
            raise QuotaError(INVALID_REQUEST, f"Unhandled client quota entity type: {entity_type}")
        found[entity_type] = _name(name)
        if name is not None and not name:
            raise QuotaError(INVALID_REQUEST, f"Empty {entity_type} not supported")
    user, client_id, ip = found.get(USER), found.get(CLIENT_ID), found.get(IP)
    if ip is not None:
        if user is not None or client_id is not None:
            raise QuotaError(INVALID_REQUEST, "Invalid quota entity combination, IP entity "
                                              "should not be used with user/client ID entity.")
        if ip is not DEFAULT and not valid_ip(ip):
            raise QuotaError(INVALID_REQUEST, f"{ip} is not a valid IP or resolvable host.")
    return QuotaEntity(user, client_id, ip)


def valid_ip(ip: str) -> bool:
    """Kafka's ``isValidIpEntity``: an IP address (Kafka also resolves a host name; an
    address is what a broker can match a connection against without a lookup)."""
    try:
        ipaddress.ip_address(ip)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Op:
    """Set ``key`` to ``value``, or remove it."""

    key: str
    value: float
    remove: bool = False


def _format_double(value: float) -> str:
    """Java's ``Double.toString`` for the values a quota takes."""
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if math.isnan(value):
        return "NaN"
    text = repr(float(value))
    if "e" in text:
        mantissa, exponent = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        return f"{mantissa}E{int(exponent)}"
    return text


def apply_ops(entity: QuotaEntity, current: Mapping[str, str], ops: Iterable[Op],
              ) -> dict[str, str]:
    """The entity's configs after ``ops`` (Kafka's ``alterEntityQuotas``): a removal drops the
    key, a LONG or INT quota must be a whole number; QuotaError when Kafka refuses an op."""
    props = dict(current)
    keys = entity.keys
    for op in ops:
        if op.remove:
            props.pop(op.key, None)
            continue
        key_type = keys.get(op.key)
        if key_type is None:
            raise QuotaError(INVALID_REQUEST, f"Invalid configuration key {op.key}")
        if key_type == DOUBLE:
            props[op.key] = _format_double(op.value)
        elif key_type in (LONG, INT):
            epsilon = 1e-6
            whole = int(op.value + epsilon) if math.isfinite(op.value) else None
            if whole is None or abs(whole - op.value) > epsilon:
                raise QuotaError(INVALID_REQUEST, f"Configuration {op.key} must be a {key_type} value")
            props[op.key] = str(whole)
        else:  # a SCRAM credential named as a quota: Kafka fails on its type
            raise QuotaError(UNKNOWN_SERVER_ERROR, None)
    _validate(entity, props)
    return props


def _validate(entity: QuotaEntity, props: Mapping[str, str]) -> None:
    """Kafka's ``DynamicConfig.*.validate`` of the whole entity: each value parses as its
    type; an IP's connection rate is at least 0."""
    keys = entity.keys
    for key, value in props.items():
        key_type = keys.get(key)
        try:
            if key_type in (LONG, INT):
                number: float = int(value)
            elif key_type == DOUBLE:
                number = float(value)
            else:
                continue
        except ValueError:
            raise QuotaError(INVALID_REQUEST, f"Invalid value {value} for configuration {key}"
                             ) from None
        if key == CONNECTION_CREATION_RATE and not 0 <= number <= INT_MAX:
            raise QuotaError(INVALID_REQUEST, f"Invalid value {value} for configuration {key}: "
                                              "Value must be at least 0")


def quota_values(entity: QuotaEntity, props: Mapping[str, str]) -> dict[str, float]:
    """The quotas an entity's configs hold, as DescribeClientQuotas answers them (its SCRAM
    credentials and anything else left out)."""
    keys = IP_QUOTA_KEYS if entity.ip is not None else CLIENT_QUOTA_KEYS
    out = {}
    for key, value in props.items():
        if key in keys:
            try:
                out[key] = float(value)
            except ValueError:
                continue
    return out


# -- DescribeClientQuotas ---------------------------------------------------------------------

MATCH_EXACT, MATCH_DEFAULT, MATCH_ANY = 0, 1, 2
_ANY = object()


@dataclass(frozen=True, slots=True)
class Component:
    """A filter component: an entity type and what its part must be - a name (EXACT), the
    default (DEFAULT) or any name or default (ANY, Kafka's SPECIFIED)."""

    entity_type: str
    match_type: int
    match: str | None = None


@dataclass(frozen=True, slots=True)
class QuotaFilter:
    components: tuple[Component, ...]
    strict: bool = False

    def __post_init__(self) -> None:
        seen: dict[str, Component] = {}
        for c in self.components:
            if c.entity_type == "":
                raise QuotaError(INVALID_REQUEST,
                                 "Unexpected empty filter component entity type")
            if c.entity_type not in ENTITY_TYPES:
                raise QuotaError(UNSUPPORTED_VERSION,
                                 f"Custom entity type '{c.entity_type}' not supported")
            if c.entity_type in seen:
                kind = {USER: "user", CLIENT_ID: "client", IP: "ip"}[c.entity_type]
                raise QuotaError(INVALID_REQUEST,
                                 f"Duplicate {kind} filter component entity type")
            if c.match_type not in (MATCH_EXACT, MATCH_DEFAULT, MATCH_ANY):
                raise QuotaError(UNKNOWN_SERVER_ERROR, f"Unexpected match type: {c.match_type}")
            seen[c.entity_type] = c
        if IP in seen and len(seen) > 1:
            raise QuotaError(INVALID_REQUEST,
                             "Invalid entity filter component combination, IP filter component "
                             "should not be used with user or clientId filter component.")

    def _component(self, entity_type: str) -> Component | None:
        for c in self.components:
            if c.entity_type == entity_type:
                return c
        return None

    def _part_matches(self, entity_type: str, name: Name | None) -> bool:
        c = self._component(entity_type)
        if c is None:
            return name is None or not self.strict
        if c.match_type == MATCH_ANY:
            return name is not None
        want: Name = DEFAULT if c.match_type == MATCH_DEFAULT else (c.match or "")
        return name == want

    def matches(self, entity: QuotaEntity) -> bool:
        """Kafka's ``handleDescribeClientQuotas``/``handleDescribeIpQuotas``: user and client
        id entities are described unless the filter names an IP, IP entities unless it names a
        user or a client id."""
        names_ip = self._component(IP) is not None
        names_user = self._component(USER) is not None or self._component(CLIENT_ID) is not None
        if entity.ip is not None:
            if names_user:
                return False
            c = self._component(IP)
            if c is None:
                return not self.strict
            return self._part_matches(IP, entity.ip)
        if names_ip:
            return False
        return (self._part_matches(USER, entity.user)
                and self._part_matches(CLIENT_ID, entity.client_id))


def describe(quota_filter: QuotaFilter, entities: Mapping[QuotaEntity, Mapping[str, str]],
             ) -> list[tuple[QuotaEntity, dict[str, float]]]:
    """The entities the filter matches that hold a quota, with their quotas."""
    out = []
    for entity, props in entities.items():
        values = quota_values(entity, props)
        if values and quota_filter.matches(entity):
            out.append((entity, values))
    return out
