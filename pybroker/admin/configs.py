"""Config changes, as AlterConfigs and IncrementalAlterConfigs ask for them (Kafka's
``ConfigAdminManager`` and the config half of ``ZkAdminManager``).

Both APIs check a request the way a Kafka 3.9 broker does: first each resource on its own (a
resource named twice, a config named twice, null values: INVALID_REQUEST), then the topic
(UNKNOWN_TOPIC_OR_PARTITION), then the new set of overrides as CreateTopics does
(INVALID_CONFIG, with Kafka's message, prefixed by the resource for a refused value). Accepted
overrides go through the admin seam and reach the partitions' logs at once. Broker configs are
static here (read from server.properties), so changing them is refused.

IncrementalAlterConfigs' operations apply to the topic's overrides, as in Kafka: APPEND and
SUBTRACT are for list configs only (``cleanup.policy``, the throttled-replica lists) and start
from the override, or from Kafka's built-in default when there is none; items are split on
commas as given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode, KafkaError
from pybroker.config import LIST, TOPIC_CONFIGS, alter_message, to_config_string

if TYPE_CHECKING:
    from pybroker.admin import AdminManager, Outcome
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.metadata.config_repository import ConfigRepository

# ConfigResource types, as Kafka numbers them
TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8
RESOURCE_TYPE_NAMES = {TOPIC: "TOPIC", BROKER: "BROKER", BROKER_LOGGER: "BROKER_LOGGER"}

# IncrementalAlterConfigs operations
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
_OP_NAMES = {APPEND: "append", SUBTRACT: "subtract"}

#: Kafka's dynamic broker configs for replication throttling
DYNAMIC_THROTTLES = frozenset({
    "leader.replication.throttled.rate",
    "follower.replication.throttled.rate",
    "replica.alter.log.dirs.io.max.bytes.per.second",
})


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
        if r.resource_type not in (TOPIC, BROKER, BROKER_LOGGER):
            errors[id(r)] = KafkaError(ErrorCode.INVALID_REQUEST,
                                       f"Unknown resource type {r.resource_type}")
    return errors


def java_split(text: str) -> list[str]:
    """Java's ``String.split(",")``: trailing empty items are dropped, a lone "" stays."""
    if text == "":
        return [""]
    items = text.split(",")
    while items and items[-1] == "":
        items.pop()
    return items


def incremental_overrides(current: Mapping[str, str], entries: Iterable[Any]) -> dict[str, str]:
    """``current`` overrides with IncrementalAlterConfigs' operations applied in order."""
    new = dict(current)
    for e in entries:
        op = e.config_operation
        if op == SET:
            new[e.name] = e.value
        elif op == DELETE:
            new.pop(e.name, None)
        elif op in (APPEND, SUBTRACT):
            key = TOPIC_CONFIGS.get(e.name)
            if key is None:
                raise KafkaError(ErrorCode.INVALID_CONFIG, f"Unknown topic config name: {e.name}")
            if key.type != LIST:
                raise KafkaError(ErrorCode.INVALID_CONFIG,
                                 f"Config value {_OP_NAMES[op]} is not allowed for config key: "
                                 f"{e.name}")
            old = new.get(e.name)
            if old is None:
                old = to_config_string(key.default, LIST) or ""
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


def deletes_unset_broker_throttles(broker_id: int, resource: Any) -> bool:
    """Deleting the dynamic replication throttles of this broker (or the cluster default).

    Broker configs are static here, so these are never set and deleting them changes nothing;
    Kafka accepts the same request. ``kafka-reassign-partitions --verify`` and ``--cancel``
    send it after every reassignment to remove the throttles they may have set."""
    return (
        resource.resource_type == BROKER
        and resource.resource_name in ("", str(broker_id))
        and bool(resource.configs)
        and all(c.config_operation == DELETE and c.name in DYNAMIC_THROTTLES
                for c in resource.configs)
    )


def _check_resource(metadata: MetadataCache, resource_type: int, name: str) -> None:
    if resource_type == TOPIC:
        if not name:
            raise KafkaError(ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed.")
        if metadata.topic(name) is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             f"The topic '{name}' does not exist.")
        return
    if resource_type in (BROKER, BROKER_LOGGER):
        raise KafkaError(ErrorCode.INVALID_REQUEST,
                         "Broker configs are static in pybroker: change server.properties "
                         "and restart")
    raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource_type}")


def change_configs(metadata: MetadataCache, configs: ConfigRepository, admin: AdminManager,
                   resource_type: int, name: str, overrides: Mapping[str, str],
                   validate_only: bool) -> Outcome[KafkaError | None]:
    """Check the resource, validate the overrides (INVALID_CONFIG) and store them through the
    admin seam. Raises KafkaError for a refusal decided here."""
    _check_resource(metadata, resource_type, name)
    try:
        configs.effective(overrides)
    except KafkaError as e:
        raise KafkaError(e.code, alter_message(RESOURCE_TYPE_NAMES[resource_type], name, e)) \
            from e
    return admin.alter_topic_configs(name, overrides, validate_only=validate_only)
