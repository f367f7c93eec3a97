"""ACL bindings and filters as Kafka defines them (``org.apache.kafka.common.acl``/``resource``).

An ACL binding is a resource pattern (resource type, name, pattern type LITERAL or PREFIXED)
with an access control entry (principal, host, operation, permission). Filters select bindings
for DescribeAcls and DeleteAcls: ANY in a field matches every value, a null name, principal or
host matches every one, and the MATCH pattern type matches the patterns that would apply to a
resource of that name (its literal pattern, the wildcard ``*``, and every prefix).

The enums carry Kafka's wire codes; their ``json_name`` is what Kafka writes in ZooKeeper
(``Topic``, ``ClusterAction``, ``Allow``) and ``cli_name`` what its tools print.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Self

WILDCARD_RESOURCE = "*"
WILDCARD_HOST = "*"
WILDCARD_PRINCIPAL = "User:*"
CLUSTER_NAME = "kafka-cluster"


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


class _Coded(enum.IntEnum):
    @classmethod
    def from_code(cls, code: int) -> Self:
        """Kafka's ``fromCode``: a code it does not know is UNKNOWN."""
        try:
            return cls(code)
        except ValueError:
            return cls(0)

    @property
    def json_name(self) -> str:
        """Kafka's ``SecurityUtils`` names: upper snake case to camel case."""
        return _camel(self.name)

    @classmethod
    def from_json_name(cls, text: str) -> Self:
        """Parse a camel-case or upper-case name, ignoring case and underscores (Kafka's
        ``SecurityUtils.resourceType``/``operation``/``permissionType``)."""
        key = text.replace("_", "").upper()
        for member in cls:
            if member.name.replace("_", "") == key and member.value > 1:
                return member
        raise ValueError(f"unknown {cls.__name__} {text!r}")


class ResourceType(_Coded):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(_Coded):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4

    @property
    def is_specific(self) -> bool:
        return self in (PatternType.LITERAL, PatternType.PREFIXED)


class AclOperation(_Coded):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14


class AclPermissionType(_Coded):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


#: the resource types an ACL may name (Kafka's ``AclEntry.RESOURCE_TYPES``)
CONCRETE_RESOURCE_TYPES = tuple(t for t in ResourceType if t.value > 1)

#: the operations each resource type has (Kafka's ``AclEntry.supportedOperations``); kafka-acls
#: refuses others, the broker stores whatever it is given
SUPPORTED_OPERATIONS: dict[ResourceType, frozenset[AclOperation]] = {
    ResourceType.TOPIC: frozenset({
        AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE,
        AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS}),
    ResourceType.GROUP: frozenset({AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE}),
    ResourceType.CLUSTER: frozenset({
        AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER,
        AclOperation.DESCRIBE}),
    ResourceType.TRANSACTIONAL_ID: frozenset({AclOperation.DESCRIBE, AclOperation.WRITE}),
    ResourceType.DELEGATION_TOKEN: frozenset({AclOperation.DESCRIBE}),
    ResourceType.USER: frozenset({AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS}),
}


@dataclass(frozen=True, slots=True)
class ResourcePattern:
    resource_type: ResourceType
    name: str
    pattern_type: PatternType = PatternType.LITERAL

    def __str__(self) -> str:
        return (f"ResourcePattern(resourceType={self.resource_type.name}, name={self.name}, "
                f"patternType={self.pattern_type.name})")

    @property
    def is_unknown(self) -> bool:
        return (self.resource_type is ResourceType.UNKNOWN
                or self.pattern_type is PatternType.UNKNOWN)


@dataclass(frozen=True, slots=True)
class AccessControlEntry:
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    @property
    def is_unknown(self) -> bool:
        return (self.operation is AclOperation.UNKNOWN
                or self.permission_type is AclPermissionType.UNKNOWN)


@dataclass(frozen=True, slots=True)
class AclBinding:
    pattern: ResourcePattern
    entry: AccessControlEntry

    @property
    def is_unknown(self) -> bool:
        return self.pattern.is_unknown or self.entry.is_unknown


def check_binding(binding: AclBinding) -> None:
    """What Kafka's ``ResourcePattern`` and ``AccessControlEntry`` constructors refuse
    (ANY and MATCH belong to filters); raises ValueError."""
    if binding.pattern.resource_type is ResourceType.ANY:
        raise ValueError("resourceType must not be ANY")
    if binding.pattern.pattern_type in (PatternType.MATCH, PatternType.ANY):
        raise ValueError(f"patternType must not be {binding.pattern.pattern_type.name}")
    if binding.entry.operation is AclOperation.ANY:
        raise ValueError("operation must not be ANY")
    if binding.entry.permission_type is AclPermissionType.ANY:
        raise ValueError("permissionType must not be ANY")


@dataclass(frozen=True, slots=True)
class ResourcePatternFilter:
    resource_type: ResourceType
    name: str | None
    pattern_type: PatternType

    def matches(self, pattern: ResourcePattern) -> bool:
        if self.resource_type is not ResourceType.ANY and self.resource_type != pattern.resource_type:
            return False
        if (self.pattern_type not in (PatternType.ANY, PatternType.MATCH)
                and self.pattern_type != pattern.pattern_type):
            return False
        if self.name is None:
            return True
        if self.pattern_type in (PatternType.ANY, pattern.pattern_type):
            return self.name == pattern.name
        if pattern.pattern_type is PatternType.LITERAL:
            return self.name == pattern.name or pattern.name == WILDCARD_RESOURCE
        if pattern.pattern_type is PatternType.PREFIXED:
            return self.name.startswith(pattern.name)
        raise ValueError(f"Unsupported PatternType: {pattern.pattern_type.name}")

    def find_indefinite_field(self) -> str | None:
        if self.resource_type is ResourceType.ANY:
            return "Resource type is ANY."
        if self.resource_type is ResourceType.UNKNOWN:
            return "Resource type is UNKNOWN."
        if self.name is None:
            return "Resource name is NULL."
        if self.pattern_type is PatternType.MATCH:
            return "Resource pattern type is MATCH."
        if self.pattern_type is PatternType.UNKNOWN:
            return "Resource pattern type is UNKNOWN."
        return None

    @property
    def matches_at_most_one(self) -> bool:
        return self.find_indefinite_field() is None

    def specific_patterns(self) -> list[ResourcePattern]:
        """The patterns a filter that matches at most one names (Kafka's
        ``filterToResources``; ANY is both the literal and the prefixed one)."""
        assert self.name is not None
        if self.pattern_type is PatternType.ANY:
            return [ResourcePattern(self.resource_type, self.name, PatternType.LITERAL),
                    ResourcePattern(self.resource_type, self.name, PatternType.PREFIXED)]
        return [ResourcePattern(self.resource_type, self.name, self.pattern_type)]


@dataclass(frozen=True, slots=True)
class AccessControlEntryFilter:
    principal: str | None
    host: str | None
    operation: AclOperation
    permission_type: AclPermissionType

    def matches(self, entry: AccessControlEntry) -> bool:
        if self.principal is not None and self.principal != entry.principal:
            return False
        if self.host is not None and self.host != entry.host:
            return False
        if self.operation is not AclOperation.ANY and self.operation != entry.operation:
            return False
        return (self.permission_type is AclPermissionType.ANY
                or self.permission_type == entry.permission_type)


@dataclass(frozen=True, slots=True)
class AclBindingFilter:
    pattern: ResourcePatternFilter
    entry: AccessControlEntryFilter

    def matches(self, binding: AclBinding) -> bool:
        return self.pattern.matches(binding.pattern) and self.entry.matches(binding.entry)

    @property
    def is_unknown(self) -> bool:
        return (self.pattern.resource_type is ResourceType.UNKNOWN
                or self.pattern.pattern_type is PatternType.UNKNOWN
                or self.entry.operation is AclOperation.UNKNOWN
                or self.entry.permission_type is AclPermissionType.UNKNOWN)


#: a filter that matches every binding
ANY_BINDING = AclBindingFilter(
    ResourcePatternFilter(ResourceType.ANY, None, PatternType.ANY),
    AccessControlEntryFilter(None, None, AclOperation.ANY, AclPermissionType.ANY))
