"""ACLs as Kafka stores them: one document per resource pattern, at Kafka's ZooKeeper path.

Literal patterns live at ``/kafka-acl/<ResourceType>/<name>``, prefixed ones at
``/kafka-acl-extended/prefixed/<ResourceType>/<name>``; the document is
``{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read",
"host":"*"}]}``. The single node keeps the same documents under the same paths in its metadata
store, so both modes hold ACLs in one format.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pybroker.security.acl import (
    AccessControlEntry,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)

LITERAL_ROOT = "/kafka-acl"
PREFIXED_ROOT = "/kafka-acl-extended/prefixed"
#: change notifications: literal patterns as ``Type:name``, extended ones as JSON
LITERAL_CHANGES = "/kafka-acl-changes"
EXTENDED_CHANGES = "/kafka-acl-extended-changes"
CHANGE_PREFIX = "acl_changes_"
VERSION = 1


def root(pattern_type: PatternType) -> str:
    if pattern_type is PatternType.LITERAL:
        return LITERAL_ROOT
    if pattern_type is PatternType.PREFIXED:
        return PREFIXED_ROOT
    raise ValueError(f"no store for pattern type {pattern_type.name}")


def pattern_path(pattern: ResourcePattern) -> str:
    return f"{root(pattern.pattern_type)}/{pattern.resource_type.json_name}/{pattern.name}"


def pattern_from_path(path: str) -> ResourcePattern:
    for pattern_type in (PatternType.PREFIXED, PatternType.LITERAL):
        prefix = root(pattern_type) + "/"
        if path.startswith(prefix):
            type_name, sep, name = path[len(prefix):].partition("/")
            if sep and name:
                resource_type = ResourceType.from_json_name(type_name)
                return ResourcePattern(resource_type, name, pattern_type)
    raise ValueError(f"not an ACL path: {path!r}")


def entry_to_json(entry: AccessControlEntry) -> dict[str, Any]:
    return {"principal": entry.principal,
            "permissionType": entry.permission_type.json_name,
            "operation": entry.operation.json_name,
            "host": entry.host}


def entry_from_json(doc: dict[str, Any]) -> AccessControlEntry:
    operation = AclOperation.from_json_name(str(doc["operation"]))
    permission = AclPermissionType.from_json_name(str(doc["permissionType"]))
    return AccessControlEntry(str(doc["principal"]), str(doc["host"]), operation, permission)


def entries_to_json(entries: Iterable[AccessControlEntry]) -> dict[str, Any]:
    ordered = sorted(entries, key=lambda e: (e.principal, e.host, e.operation.value,
                                             e.permission_type.value))
    return {"version": VERSION, "acls": [entry_to_json(e) for e in ordered]}


def entries_from_json(doc: dict[str, Any]) -> frozenset[AccessControlEntry]:
    if doc.get("version") != VERSION:
        raise ValueError(f"unknown ACL document version {doc.get('version')!r}")
    return frozenset(entry_from_json(e) for e in doc.get("acls", []))


def encode(entries: Iterable[AccessControlEntry]) -> bytes:
    return json.dumps(entries_to_json(entries), separators=(",", ":")).encode()


def decode(data: bytes | None) -> frozenset[AccessControlEntry]:
    """A znode's ACLs (no data: none)."""
    if not data:
        return frozenset()
    return entries_from_json(json.loads(data))


def literal_change(pattern: ResourcePattern) -> bytes:
    """A ``/kafka-acl-changes`` notification: ``Topic:name``."""
    return f"{pattern.resource_type.json_name}:{pattern.name}".encode()


def extended_change(pattern: ResourcePattern) -> bytes:
    """A ``/kafka-acl-extended-changes`` notification."""
    return json.dumps({"version": VERSION, "resourceType": pattern.resource_type.json_name,
                       "name": pattern.name,
                       "patternType": pattern.pattern_type.json_name},
                      separators=(",", ":")).encode()


def change_notification(pattern: ResourcePattern) -> tuple[str, bytes]:
    """Where and what to write so every broker rereads ``pattern``."""
    if pattern.pattern_type is PatternType.LITERAL:
        return LITERAL_CHANGES, literal_change(pattern)
    return EXTENDED_CHANGES, extended_change(pattern)


def pattern_from_change(root_path: str, data: bytes) -> ResourcePattern:
    """The pattern a change notification names."""
    if root_path == LITERAL_CHANGES:
        type_name, _, name = data.decode().partition(":")
        resource_type = ResourceType.from_json_name(type_name)
        return ResourcePattern(resource_type, name, PatternType.LITERAL)
    doc = json.loads(data)
    resource_type = ResourceType.from_json_name(str(doc["resourceType"]))
    pattern_type = PatternType.from_json_name(str(doc["patternType"]))
    return ResourcePattern(resource_type, str(doc["name"]), pattern_type)
