"""DescribeConfigs (32): topic and broker configs with their source, type and synonyms.

Answers as a Kafka 3.9 broker does (``ConfigHelper``): every topic config Kafka defines, printed
the way Kafka prints it, with the synonyms Kafka lists - the topic override, then the broker
properties behind the topic config's highest-priority broker name (``log.retention.ms`` for
``retention.ms``: ``log.retention.ms``, ``log.retention.minutes``, ``log.retention.hours``), each
as set in server.properties and then as defaulted, keeping only those from that highest-priority
name on. An empty or null key list means every config. No documentation is returned (the field
is nullable): this broker does not carry Kafka's config documentation text.

Broker configs are the catalogue's (``pybroker.config.catalogue``) that it marks as described:
those this broker reads, plus the broker names behind topic configs, each value printed as Kafka
prints the parsed value. They are static - read from server.properties at start-up, never
changed by AlterConfigs - so all of them are read-only (whatever Kafka's update mode), and the
cluster-wide dynamic default resource (the empty name) has none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import describe_configs_request as req, describe_configs_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.api.services import BrokerServices
from pybroker.config import (
    BROKER_CONFIGS,
    CONFIG_TYPE_IDS,
    STRING,
    TOPIC_CONFIGS,
    broker_config_synonyms,
    to_config_string,
)
from pybroker.metadata.topics import validate_topic_name

TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8

# ConfigSource, as Kafka numbers it.
DYNAMIC_TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5

# ConfigType, as Kafka numbers it (the catalogue gives each config's).
UNKNOWN_TYPE = 0
STRING_TYPE = CONFIG_TYPE_IDS[STRING]


@dataclass(slots=True)
class ConfigEntry:
    name: str
    value: str | None
    source: int
    read_only: bool = False
    is_sensitive: bool = False
    config_type: int = STRING_TYPE
    synonyms: list[tuple[str, str | None, int]] = field(default_factory=list)


def _broker_synonyms(services: BrokerServices, name: str) -> list[tuple[str, str | None, int]]:
    """Where broker property ``name`` gets its value: server.properties, then the default, over
    the names that stand for it, from ``name`` on (as Kafka's ConfigHelper lists them)."""
    config = services.config
    explicit, names = config.explicit, broker_config_synonyms(name)
    found = [(n, config.get(n), STATIC_BROKER_CONFIG) for n in names if n in explicit]
    found += [(n, BROKER_CONFIGS[n].default_string, DEFAULT_CONFIG) for n in names
              if BROKER_CONFIGS[n].default is not None]
    while found and found[0][0] != name:
        found.pop(0)
    return found


def topic_config_entries(services: BrokerServices, overrides: Mapping[str, str],
                         ) -> list[ConfigEntry]:
    """Every topic config with its effective value, where it comes from and its synonyms."""
    effective = services.configs.effective(overrides)
    entries = []
    for name, key in TOPIC_CONFIGS.items():
        value = to_config_string(effective.value(name), key.type)
        synonyms: list[tuple[str, str | None, int]] = []
        if name in overrides:
            synonyms.append((name, value, DYNAMIC_TOPIC_CONFIG))
        if key.synonyms:
            synonyms += _broker_synonyms(services, key.synonyms[0][0])
        source = synonyms[0][2] if synonyms else DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source, config_type=CONFIG_TYPE_IDS[key.type],
                                   synonyms=synonyms))
    return entries


def broker_config_entries(services: BrokerServices) -> list[ConfigEntry]:
    config = services.config
    entries = []
    for name, key in BROKER_CONFIGS.items():
        if not key.described:
            continue
        value = to_config_string(config.value(name), key.type)
        synonyms = _broker_synonyms(services, name)
        source = synonyms[0][2] if synonyms else DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source, read_only=True,
                                   config_type=CONFIG_TYPE_IDS[key.type], synonyms=synonyms))
    return entries


def _broker_id(name: str) -> int:
    """The resource name as Java's ``Integer.parseInt`` reads it, or INVALID_REQUEST."""
    digits = name[1:] if name[:1] in "+-" else name
    if not digits.isascii() or not digits.isdigit():
        raise KafkaError(ErrorCode.INVALID_REQUEST,
                         f"Broker id must be an integer, but it is: {name}")
    return int(name)


def _entries(services: BrokerServices, resource: req.DescribeConfigsResource,
             ) -> list[ConfigEntry]:
    name = resource.resource_name
    if resource.resource_type == TOPIC:
        validate_topic_name(name)
        if services.metadata_cache.topic(name) is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "")
        return topic_config_entries(services, services.configs.topic_overrides(name))
    if resource.resource_type == BROKER:
        if not name:
            return []  # the cluster-wide dynamic defaults: this broker has none
        if _broker_id(name) != services.broker_id:
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"Unexpected broker id, expected {services.broker_id} or empty "
                             f"string, but received {name}")
        return broker_config_entries(services)
    if resource.resource_type == BROKER_LOGGER:
        if not name:
            raise KafkaError(ErrorCode.INVALID_REQUEST, "Broker id must not be empty")
        if _broker_id(name) != services.broker_id:
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"Unexpected broker id, expected {services.broker_id} but received "
                             f"{name}")
        return []
    raise KafkaError(ErrorCode.INVALID_REQUEST,
                     f"Unsupported resource type: {resource.resource_type}")


def _result(ctx: RequestContext, resource: req.DescribeConfigsResource,
            include_synonyms: bool) -> m.DescribeConfigsResult:
    result = m.DescribeConfigsResult(resource_type=resource.resource_type,
                                     resource_name=resource.resource_name,
                                     error_code=ErrorCode.NONE, error_message="")
    try:
        entries = _entries(ctx.services, resource)
    except KafkaError as e:
        result.error_code = e.code
        result.error_message = e.message
        return result
    keys = resource.configuration_keys
    if keys:  # null or empty: every config
        wanted = set(keys)
        entries = [e for e in entries if e.name in wanted]
    v = ctx.api_version
    result.configs = [
        m.DescribeConfigsResourceResult(
            name=e.name,
            value=e.value,
            read_only=e.read_only,
            is_default=False,  # (v0) Kafka leaves it false; config_source (v1+) says it
            config_source=e.source,
            is_sensitive=e.is_sensitive,
            synonyms=[m.DescribeConfigsSynonym(name=n, value=val, source=s)
                      for n, val, s in e.synonyms] if include_synonyms else [],
            config_type=e.config_type if v >= 3 else UNKNOWN_TYPE,
            documentation=None,
        )
        for e in entries
    ]
    return result


@api(32, 0, 4)
def handle(ctx: RequestContext, request: req.DescribeConfigsRequest,
           ) -> m.DescribeConfigsResponse:
    include_synonyms = ctx.api_version >= 1 and bool(request.include_synonyms)
    return m.DescribeConfigsResponse(
        throttle_time_ms=0,
        results=[_result(ctx, r, include_synonyms) for r in request.resources],
    )
