"""The config and ACL znodes of ``kafka.zk.ZkData`` with their change notifications:
``/config/<entity type>/<name>`` and ``/config/changes``, Kafka's ``Sanitizer`` for entity names,
``/kafka-acl*`` and ``/kafka-acl*-changes``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote

from pybroker.zk.znodes.codec import (
    ZNodeDecodeError,
    _dumps,
    _field,
    _int,
    _loads,
    _object,
)


class ConfigZNode:
    PATH = "/config"


class ConfigEntityChangeNotificationZNode:
    PATH = "/config/changes"


# Kafka's ConfigType: the entity types configured through ZooKeeper (ConfigType.ALL)
CONFIG_TOPIC = "topics"
CONFIG_CLIENT = "clients"
CONFIG_USER = "users"
CONFIG_BROKER = "brokers"
CONFIG_IP = "ips"
CONFIG_TYPES = (CONFIG_TOPIC, CONFIG_CLIENT, CONFIG_USER, CONFIG_BROKER, CONFIG_IP)
#: KIP-848's group configs, which Kafka keeps only in KRaft; pybroker keeps them under
#: ``/config/groups/<sanitized group id>``, created when first written. Not one of Kafka 3.9's
#: ``ConfigType``s, so not among CONFIG_TYPES (whose paths every broker creates at start-up)
CONFIG_GROUP = "groups"


class GroupConfigChangeNotificationZNode:
    """``/config/group_changes/group_config_change_<seq>``: a group's configs changed (its
    sanitized id). Not under ``/config/changes``: a Kafka 3.9 broker in the same cluster would
    stop at a notification for an entity type it does not know, and apply none after it."""

    PATH = f"{ConfigZNode.PATH}/group_changes"
    SEQUENCE_PREFIX = "group_config_change_"

    @staticmethod
    def path(name: str) -> str:
        return f"{GroupConfigChangeNotificationZNode.PATH}/{name}"

    @staticmethod
    def encode(sanitized_group: str) -> bytes:
        return sanitized_group.encode()

    @staticmethod
    def decode(data: bytes | None) -> str:
        return (data or b"").decode("utf-8", errors="replace")


class ConfigEntityTypeZNode:
    @staticmethod
    def path(entity_type: str) -> str:
        return f"{ConfigZNode.PATH}/{entity_type}"


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
