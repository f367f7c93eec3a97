"""Config changes, as AlterConfigs and IncrementalAlterConfigs ask for them (Kafka's
``ConfigAdminManager`` and the config half of ``ZkAdminManager``).

Both APIs check a request the way a Kafka 3.9 broker does: first each resource on its own (a
resource named twice, a config named twice, null values: INVALID_REQUEST), then by its type.

A topic (TOPIC): the topic must exist (UNKNOWN_TOPIC_OR_PARTITION), then the new set of
overrides is checked as CreateTopics does (INVALID_CONFIG, with Kafka's message, prefixed by the
resource for a refused value). Accepted overrides go through the admin seam and reach the
partitions' logs.

A broker (BROKER, KIP-226): the name is this broker's id (its dynamic configs) or empty (the
cluster-wide dynamic defaults); the new set of dynamic configs is checked by the broker's
:class:`~pybroker.config.dynamic.DynamicBrokerConfig` (read-only properties, values, per-broker
properties at the cluster level, the configuration they would give: INVALID_REQUEST with
Kafka's message, as Kafka's preprocessing answers), then stored through the admin seam, from
where every broker concerned applies it. As in Kafka, a password setting cannot be stored
without ``password.encoder.secret``, which this broker does not have (INVALID_CONFIG).

IncrementalAlterConfigs' operations apply to the stored set, as in Kafka: APPEND and SUBTRACT
are for list configs only (``cleanup.policy``, ``log.cleanup.policy``, the throttled-replica
lists) and start from the stored value, or from Kafka's built-in default when there is none;
items are split on commas as given. The broker's logger levels (BROKER_LOGGER) are
:mod:`pybroker.admin.loggers`'.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from protocol.errors import ErrorCode, KafkaError
from pybroker.config import (
    BROKER_CONFIGS,
    LIST,
    TOPIC_CONFIGS,
    BrokerConfigKey,
    ConfigException,
    alter_message,
    to_config_string,
)
from pybroker.config.dynamic import (
    DEFAULT_ENTITY,
    NON_DYNAMIC,
    DynamicBrokerConfig,
    DynamicConfigError,
    from_persistent,
    is_password_config,
)
from pybroker.config.groups import GROUP_RESOURCE, GroupConfigs
from pybroker.config.kafka_properties import EXTRA_DYNAMIC
from pybroker.kernel.outcome import Outcome, chain, when_ready, when_settled

if TYPE_CHECKING:
    from pybroker.admin import AdminManager
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.metadata.config_repository import ConfigRepository

log = logging.getLogger(__name__)

# ConfigResource types, as Kafka numbers them
TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8
GROUP = GROUP_RESOURCE  # Kafka 4 (KIP-848)
RESOURCE_TYPE_NAMES = {TOPIC: "TOPIC", BROKER: "BROKER", BROKER_LOGGER: "BROKER_LOGGER",
                       GROUP: "GROUP"}

# IncrementalAlterConfigs operations
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
_OP_NAMES = {APPEND: "append", SUBTRACT: "subtract"}


class ConfigServices(Protocol):
    """What a config change needs of the broker's services (``BrokerServices`` has them)."""

    @property
    def broker_id(self) -> int: ...

    @property
    def metadata_cache(self) -> MetadataCache: ...

    @property
    def configs(self) -> ConfigRepository: ...

    @property
    def admin(self) -> AdminManager: ...

    @property
    def dynamic_config(self) -> DynamicBrokerConfig: ...


# -- outcomes ----------------------------------------------------------------------------------


def settled(outcome: Outcome[KafkaError | None], resource_type: int, name: str,
            ) -> Outcome[KafkaError | None]:
    """``outcome`` with an unexpected failure answered as Kafka answers one
    (UNKNOWN_SERVER_ERROR), so that one resource cannot fail a whole request."""

    def failed(e: BaseException) -> KafkaError:
        if isinstance(e, KafkaError):
            return e
        if isinstance(e, asyncio.CancelledError):
            raise e
        log.error("Error processing alter configs request for resource ConfigResource(type=%s, "
                  "name='%s')", RESOURCE_TYPE_NAMES.get(resource_type), name, exc_info=e)
        return KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, None)

    return when_settled(outcome, lambda result: result, failed)


# -- request checks ----------------------------------------------------------------------------


def preprocess(resources: Iterable[Any], null_refused: Callable[[Any], bool],
               ) -> dict[int, KafkaError]:
    """Kafka's preprocessing: errors by ``id(resource)`` for the resources refused before any
    config is looked at."""
    resources = list(resources)
    errors: dict[int, KafkaError] = {}
    seen: dict[tuple[int, str], Any] = {}
    for r in resources:
        key = (r.resource_type, r.resource_name)
        if key in seen:
            for dup in (seen[key], r):
                errors[id(dup)] = KafkaError(ErrorCode.INVALID_REQUEST,
                                             "Each resource must appear at most once.")
        seen[key] = r
    for r in resources:
        if id(r) in errors:
            continue
        names = [c.name for c in r.configs]
        if len(set(names)) != len(names):
            errors[id(r)] = KafkaError(ErrorCode.INVALID_REQUEST,
                                       "Error due to duplicate config keys")
            continue
        nulls = [c.name for c in r.configs if null_refused(c)]
        if nulls:
            errors[id(r)] = KafkaError(ErrorCode.INVALID_REQUEST,
                                       f"Null value not supported for : {', '.join(nulls)}")
            continue
        if r.resource_type not in (TOPIC, BROKER, BROKER_LOGGER, GROUP):
            errors[id(r)] = KafkaError(ErrorCode.INVALID_REQUEST,
                                       f"Unknown resource type {r.resource_type}")
    return errors


def java_parse_int(text: str) -> int | None:
    """Java's ``Integer.parseInt``: an optional sign and ASCII digits, within an int; None
    when it would throw NumberFormatException."""
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isascii() or not digits.isdigit():
        return None
    value = int(text)
    return value if -(1 << 31) <= value < (1 << 31) else None


def node_id_resource(broker_id: int, name: str) -> str:
    """The stored entity of a BROKER resource: this broker's id (``+0`` is ``0``), or
    ``<default>`` for the empty name; INVALID_REQUEST for another broker (Kafka's
    ``validateResourceNameIsCurrentNodeId``)."""
    if not name:
        return DEFAULT_ENTITY
    node = java_parse_int(name)
    if node is None:
        raise KafkaError(ErrorCode.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}")
    if node != broker_id:
        raise KafkaError(ErrorCode.INVALID_REQUEST,
                         f"Unexpected broker id, expected {broker_id}, but received {name}")
    return str(node)


def java_split(text: str) -> list[str]:
    """Java's ``String.split(",")``: trailing empty items are dropped, a lone "" stays."""
    if text == "":
        return [""]
    items = text.split(",")
    while items and items[-1] == "":
        items.pop()
    return items


def incremental_overrides(current: Mapping[str, str], entries: Iterable[Any], *,
                          key_of: Callable[[str], Any] = TOPIC_CONFIGS.get,
                          unknown: str = "Unknown topic config name") -> dict[str, str]:
    """``current`` with IncrementalAlterConfigs' operations applied in order (Kafka's
    ``prepareIncrementalConfigs``); ``key_of`` gives a config's definition (its type and
    default), for APPEND and SUBTRACT."""
    new = dict(current)
    for e in entries:
        op = e.config_operation
        if op == SET:
            new[e.name] = e.value
        elif op == DELETE:
            new.pop(e.name, None)
        elif op in (APPEND, SUBTRACT):
            key = key_of(e.name)
            if key is None:
                raise KafkaError(ErrorCode.INVALID_CONFIG, f"{unknown}: {e.name}")
            if key.type != LIST:
                raise KafkaError(ErrorCode.INVALID_CONFIG,
                                 f"Config value {_OP_NAMES[op]} is not allowed for config key: "
                                 f"{e.name}")
            old = new.get(e.name)
            if old is None:
                old = _list_default(key)
            if op == APPEND:
                items = java_split(old) if old else []
                items += [v for v in java_split(e.value) if v not in items]
            else:
                items = java_split(old)
                for v in java_split(e.value):
                    if v in items:
                        items.remove(v)
            new[e.name] = ",".join(items)
        else:
            raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown config operation {op}")
    return new


def _list_default(key: Any) -> str:
    default = key.default
    if isinstance(default, str):  # topic configs hold lists joined already
        return default
    return to_config_string(default, LIST) or ""


# -- topics ------------------------------------------------------------------------------------


def _check_topic(metadata: MetadataCache, name: str) -> None:
    if not name:
        raise KafkaError(ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed.")
    if metadata.topic(name) is None:
        raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                         f"The topic '{name}' does not exist.")


def change_topic_configs(services: ConfigServices, name: str, overrides: Mapping[str, str],
                         validate_only: bool) -> Outcome[KafkaError | None]:
    """Check the topic, validate the overrides (INVALID_CONFIG) and store them through the
    admin seam. Raises KafkaError for a refusal decided here."""
    _check_topic(services.metadata_cache, name)
    try:
        services.configs.effective(overrides)
    except KafkaError as e:
        raise KafkaError(e.code, alter_message(RESOURCE_TYPE_NAMES[TOPIC], name, e)) from e
    return services.admin.alter_topic_configs(name, overrides, validate_only=validate_only)


def incremental_topic_configs(services: ConfigServices, name: str, entries: Sequence[Any],
                              validate_only: bool) -> Outcome[KafkaError | None]:
    if not name:
        raise KafkaError(ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed.")
    current = services.configs.topic_overrides(name)
    overrides = incremental_overrides(current, entries)
    return change_topic_configs(services, name, overrides, validate_only)


# -- brokers -----------------------------------------------------------------------------------


#: a read-only Kafka property the catalogue does not type: its operations go through, and the
#: check that follows refuses it
_UNTYPED_READ_ONLY = BrokerConfigKey("", LIST, [])


def _broker_key(name: str) -> BrokerConfigKey | None:
    """The definitions ``prepareIncrementalConfigs`` consults for a broker: Kafka's broker
    properties (``KafkaConfig.configKeys``, which has no replication throttles)."""
    key = BROKER_CONFIGS.get(name) or EXTRA_DYNAMIC.get(name)
    if key is None and name in NON_DYNAMIC:
        return _UNTYPED_READ_ONLY
    return key


def _validate_broker(services: ConfigServices, props: Mapping[str, str], per_broker: bool,
                     ) -> None:
    try:
        services.dynamic_config.validate(props, per_broker)
    except ConfigException as e:
        # Kafka's preprocessing answers any refusal of a broker change INVALID_REQUEST
        # (KAFKA-13609), with the refusal's message
        raise KafkaError(ErrorCode.INVALID_REQUEST, e.message) from e


def _store_broker(services: ConfigServices, entity: str, props: Mapping[str, str],
                  validate_only: bool, resource_name: str) -> Outcome[KafkaError | None]:
    if validate_only:
        return None
    passwords = [n for n in props if is_password_config(n)]
    if passwords:
        why = ("Password encoder secret not configured" if entity != DEFAULT_ENTITY
               else "Password config can be defined only at broker level")
        return KafkaError(ErrorCode.INVALID_CONFIG, alter_message(
            RESOURCE_TYPE_NAMES[BROKER], resource_name, DynamicConfigError(why)))
    return services.admin.alter_broker_configs(entity, props)


def change_broker_configs(services: ConfigServices, name: str, props: Mapping[str, str],
                          validate_only: bool) -> Outcome[KafkaError | None]:
    """AlterConfigs on a broker: replace its dynamic configs (or the cluster's defaults) with
    ``props``. Raises KafkaError for a refusal decided here."""
    entity = node_id_resource(services.broker_id, name)
    per_broker = entity != DEFAULT_ENTITY
    _validate_broker(services, props, per_broker)
    return _store_broker(services, entity, props, validate_only, name)


def incremental_broker_configs(services: ConfigServices, name: str, entries: Sequence[Any],
                               validate_only: bool) -> Outcome[KafkaError | None]:
    """IncrementalAlterConfigs on a broker: the operations on its stored dynamic configs (or
    the cluster's defaults). Raises KafkaError for a refusal decided before the stored
    configs are read."""
    entity = node_id_resource(services.broker_id, name)
    per_broker = entity != DEFAULT_ENTITY
    for e in entries:
        if e.config_operation not in (SET, DELETE, APPEND, SUBTRACT):
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"Unknown operations type {e.config_operation}")

    def change(stored: dict[str, str]) -> Outcome[KafkaError | None]:
        try:
            props = incremental_overrides(from_persistent(stored, per_broker), entries,
                                          key_of=_broker_key, unknown="Unknown config name")
            _validate_broker(services, props, per_broker)
        except KafkaError as e:
            return e
        return _store_broker(services, entity, props, validate_only, name)

    return chain(services.admin.broker_configs(entity), change)


# -- groups (KIP-848) --------------------------------------------------------------------------


def _check_group(name: str) -> None:
    if not name:
        raise KafkaError(ErrorCode.INVALID_REQUEST, "Default group resources are not allowed.")


def _store_group(services: ConfigServices, groups: GroupConfigs, name: str,
                 props: Mapping[str, str], validate_only: bool) -> Outcome[KafkaError | None]:
    try:
        groups.validate(props)
    except KafkaError as e:
        return e
    if validate_only:
        return None

    def applied(error: KafkaError | None) -> KafkaError | None:
        # this broker follows its own change at once (the others when the notification
        # reaches them), so that its next answer to the client already uses it
        if error is None:
            groups.set(name, props)
        return error

    return when_ready(services.admin.alter_group_configs(name, props), applied)


def change_group_configs(services: ConfigServices, groups: GroupConfigs, name: str,
                         props: Mapping[str, str], validate_only: bool,
                         ) -> Outcome[KafkaError | None]:
    """AlterConfigs on a group: replace its overrides with ``props``, checked as Kafka 4.1's
    controller checks them (``GroupConfig.validate``: INVALID_CONFIG, Kafka's messages, not
    prefixed by the resource). The group need not exist. Raises KafkaError for a refusal
    decided here."""
    _check_group(name)
    return _store_group(services, groups, name, props, validate_only)


def incremental_group_configs(services: ConfigServices, groups: GroupConfigs, name: str,
                              entries: Sequence[Any], validate_only: bool,
                              ) -> Outcome[KafkaError | None]:
    """IncrementalAlterConfigs on a group: the operations on its stored overrides. APPEND and
    SUBTRACT are refused with the words of Kafka 4's controller (no group config is a list)."""
    _check_group(name)
    for e in entries:
        if e.config_operation not in (SET, DELETE, APPEND, SUBTRACT):
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"Unknown operations type {e.config_operation}")

    def change(stored: dict[str, str]) -> Outcome[KafkaError | None]:
        props = dict(stored)
        for e in entries:
            if e.config_operation == SET:
                props[e.name] = e.value
            elif e.config_operation == DELETE:
                props.pop(e.name, None)
            else:
                op = "APPEND" if e.config_operation == APPEND else "SUBTRACT"
                return KafkaError(ErrorCode.INVALID_CONFIG,
                                  f"Can't {op} to key {e.name} because its type is not LIST.")
        return _store_group(services, groups, name, props, validate_only)

    return chain(services.admin.group_configs(name), change)
