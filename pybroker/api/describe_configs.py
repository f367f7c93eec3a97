"""DescribeConfigs (32): topic and broker configs with their source, type and synonyms."""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import describe_configs_response as m
from pybroker.api.registry import api
from pybroker.log.config import BROKER_SYNONYMS

TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8

# ConfigSource, as Kafka numbers it.
DYNAMIC_TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5

# ConfigType, as Kafka numbers it.
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST = 1, 2, 3, 4, 5, 6, 7

TOPIC_CONFIG_TYPES = {
    "segment.bytes": INT,
    "segment.ms": LONG,
    "segment.jitter.ms": LONG,
    "segment.index.bytes": INT,
    "index.interval.bytes": INT,
    "flush.messages": LONG,
    "flush.ms": LONG,
    "max.message.bytes": INT,
    "message.timestamp.type": STRING,
    "message.timestamp.difference.max.ms": LONG,
    "message.timestamp.before.max.ms": LONG,
    "message.timestamp.after.max.ms": LONG,
    "retention.ms": LONG,
    "retention.bytes": LONG,
    "cleanup.policy": LIST,
    "min.insync.replicas": INT,
    "compression.type": STRING,
    "file.delete.delay.ms": LONG,
}


@dataclass(slots=True)
class ConfigEntry:
    name: str
    value: str | None
    source: int
    read_only: bool = False
    is_sensitive: bool = False
    config_type: int = STRING
    synonyms: list[tuple[str, str | None, int]] = field(default_factory=list)


def topic_config_entries(broker, overrides: dict[str, str]) -> list[ConfigEntry]:
    """Every topic config with its effective value, where it comes from and its synonyms."""
    effective = broker.topic_log_config(overrides).to_properties()
    defaults = broker.default_log_config.to_properties()
    explicit = broker.config.explicit
    entries = []
    for name, value in sorted(effective.items()):
        synonyms: list[tuple[str, str | None, int]] = []
        if name in overrides:
            synonyms.append((name, overrides[name], DYNAMIC_TOPIC_CONFIG))
        broker_names = [b for b, _ in BROKER_SYNONYMS.get(name, ())]
        for b in broker_names:
            if b in explicit:
                synonyms.append((b, broker.config.get(b), STATIC_BROKER_CONFIG))
        if broker_names:
            synonyms.append((broker_names[0], defaults.get(name), DEFAULT_CONFIG))
        source = synonyms[0][2] if synonyms else DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source,
                                   config_type=TOPIC_CONFIG_TYPES.get(name, STRING),
                                   synonyms=synonyms))
    return entries


def broker_config_entries(broker) -> list[ConfigEntry]:
    config = broker.config
    entries = []
    for name, value in sorted(config.props.items()):
        source = STATIC_BROKER_CONFIG if name in config.explicit else DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source, read_only=True,
                                   synonyms=[(name, value, source)]))
    return entries


def _result(ctx, resource, include_synonyms: bool) -> m.DescribeConfigsResult:
    broker = ctx.broker
    result = m.DescribeConfigsResult(resource_type=resource.resource_type,
                                     resource_name=resource.resource_name,
                                     error_code=ErrorCode.NONE)
    try:
        if resource.resource_type == TOPIC:
            if broker.metadata_cache.topic(resource.resource_name) is None:
                raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                 f"Topic {resource.resource_name} does not exist")
            entries = topic_config_entries(broker, broker.controller.topic_overrides(
                resource.resource_name))
        elif resource.resource_type == BROKER:
            if resource.resource_name not in ("", str(broker.broker_id)):
                raise KafkaError(ErrorCode.INVALID_REQUEST,
                                 f"Unexpected broker id, expected {broker.broker_id} but received "
                                 f"{resource.resource_name}")
            entries = broker_config_entries(broker)
        elif resource.resource_type == BROKER_LOGGER:
            entries = []
        else:
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"Unsupported resource type {resource.resource_type}")
    except KafkaError as e:
        result.error_code = e.code
        result.error_message = e.message
        return result
    keys = resource.configuration_keys
    if keys is not None:
        wanted = set(keys)
        entries = [e for e in entries if e.name in wanted]
    v = ctx.api_version
    result.configs = [
        m.DescribeConfigsResourceResult(
            name=e.name,
            value=e.value,
            read_only=e.read_only,
            is_default=e.source == DEFAULT_CONFIG,
            config_source=e.source,
            is_sensitive=e.is_sensitive,
            synonyms=[m.DescribeConfigsSynonym(name=n, value=val, source=s)
                      for n, val, s in e.synonyms] if include_synonyms else [],
            config_type=e.config_type if v >= 3 else 0,
            documentation=None,
        )
        for e in entries
    ]
    return result


@api(32, 0, 4)
def handle(ctx, request) -> m.DescribeConfigsResponse:
    include_synonyms = ctx.api_version >= 1 and bool(request.include_synonyms)
    return m.DescribeConfigsResponse(
        throttle_time_ms=0,
        results=[_result(ctx, r, include_synonyms) for r in request.resources],
    )
