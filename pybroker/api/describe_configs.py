"""DescribeConfigs (32): topic and broker configs with their source, type and synonyms.

Answers as a Kafka 3.9 broker does, from :mod:`pybroker.admin.config_helper` (Kafka's
``ConfigHelper``), which also gives CreateTopics its configs. An empty or null key list means
every config. No documentation is returned (the field
is nullable): this broker does not carry Kafka's config documentation text.

Broker configs are the catalogue's (``pybroker.config.catalogue``) that it marks as described
(those this broker reads, plus the broker names behind topic configs) and any a dynamic config
sets, each value printed as Kafka prints the parsed value, with its source among this broker's
dynamic configs, the cluster's dynamic defaults, server.properties and Kafka's defaults, and
read-only unless Kafka changes it at run time (KIP-226). The empty name is the cluster-wide
dynamic defaults. A broker's loggers (BROKER_LOGGER) are listed with their levels
(:mod:`pybroker.admin.loggers`). A group (Kafka 4's GROUP resource, KIP-848) shows every
group config, its own overrides as the store holds them and the rest at the broker's or Kafka's
defaults, as Kafka 4.1 does; the group need not exist.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Mapping

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    describe_configs_request as req,
    describe_configs_response as m,
)
from pybroker.admin import loggers
from pybroker.admin.config_helper import (
    DYNAMIC_BROKER_LOGGER_CONFIG,
    UNKNOWN_TYPE,
    ConfigEntry,
    broker_config_entries,
    default_broker_config_entries,
    group_config_entries,
    topic_config_entries,
)
from pybroker.admin.configs import BROKER, BROKER_LOGGER, GROUP, TOPIC
from pybroker.api.acl_requests import AUTHORIZATION_MESSAGES, config_refusal
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.api.services import BrokerServices
from pybroker.kernel.outcome import Outcome, gather, when_ready, when_settled
from pybroker.metadata.topics import validate_topic_name
from pybroker.security.acl import AclOperation

log = logging.getLogger(__name__)


def _broker_id(name: str) -> int:
    """The resource name as Java's ``Integer.parseInt`` reads it, or INVALID_REQUEST."""
    digits = name[1:] if name[:1] in "+-" else name
    if not digits.isascii() or not digits.isdigit():
        raise KafkaError(ErrorCode.INVALID_REQUEST,
                         f"Broker id must be an integer, but it is: {name}")
    return int(name)


#: a key of the overrides read from the store: (resource type, name)
Stored = tuple[int, str]


def _entries(services: BrokerServices, resource: req.DescribeConfigsResource,
             stored: Mapping[Stored, dict[str, str] | KafkaError]) -> list[ConfigEntry]:
    name = resource.resource_name
    if resource.resource_type == GROUP:
        if not name:
            raise KafkaError(ErrorCode.INVALID_REQUEST, "Group name must not be empty")
        found = stored.get((GROUP, name), {})
        if isinstance(found, KafkaError):
            raise found
        return group_config_entries(services.groups.group_configs, found)
    if resource.resource_type == TOPIC:
        validate_topic_name(name)
        if services.metadata_cache.topic(name) is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "")
        topic = stored.get((TOPIC, name))
        if isinstance(topic, KafkaError):
            raise topic
        return topic_config_entries(services.dynamic_config, services.configs,
                                    topic if topic is not None
                                    else services.configs.topic_overrides(name))
    if resource.resource_type == BROKER:
        if not name:
            return default_broker_config_entries(services.dynamic_config)
        if _broker_id(name) != services.broker_id:
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"Unexpected broker id, expected {services.broker_id} or empty "
                             f"string, but received {name}")
        return broker_config_entries(services.dynamic_config)
    if resource.resource_type == BROKER_LOGGER:
        if not name:
            raise KafkaError(ErrorCode.INVALID_REQUEST, "Broker id must not be empty")
        if _broker_id(name) != services.broker_id:
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"Unexpected broker id, expected {services.broker_id} but received "
                             f"{name}")
        return [ConfigEntry(n, level, DYNAMIC_BROKER_LOGGER_CONFIG, config_type=UNKNOWN_TYPE,
                            documentation="")
                for n, level in loggers.loggers().items()]
    raise KafkaError(ErrorCode.INVALID_REQUEST,
                     f"Unsupported resource type: {resource.resource_type}")


def _result(ctx: RequestContext, resource: req.DescribeConfigsResource,
            include_synonyms: bool,
            stored: Mapping[Stored, dict[str, str] | KafkaError]) -> m.DescribeConfigsResult:
    result = m.DescribeConfigsResult(resource_type=resource.resource_type,
                                     resource_name=resource.resource_name,
                                     error_code=ErrorCode.NONE, error_message="")
    refusal = config_refusal(ctx, resource.resource_type, resource.resource_name,
                             AclOperation.DESCRIBE_CONFIGS)
    if refusal is not None:
        result.error_code = refusal
        result.error_message = AUTHORIZATION_MESSAGES[refusal]
        return result
    try:
        entries = _entries(ctx.services, resource, stored)
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
            documentation=e.documentation,
        )
        for e in entries
    ]
    return result


def _stored(ctx: RequestContext, request: req.DescribeConfigsRequest) -> list[Stored]:
    """The topics and groups whose overrides the answer reads from the store: those it will
    describe."""
    keys: list[Stored] = []
    for r in request.resources:
        key = (r.resource_type, r.resource_name)
        if r.resource_type not in (TOPIC, GROUP) or key in keys or not r.resource_name:
            continue
        if config_refusal(ctx, r.resource_type, r.resource_name,
                          AclOperation.DESCRIBE_CONFIGS) is not None:
            continue
        if r.resource_type == GROUP or ctx.services.metadata_cache.topic(r.resource_name):
            keys.append(key)
    return keys


@api(ApiKey.DESCRIBE_CONFIGS, 0, 4)
def handle(ctx: RequestContext, request: req.DescribeConfigsRequest,
           ) -> m.DescribeConfigsResponse | Awaitable[m.DescribeConfigsResponse]:
    include_synonyms = ctx.api_version >= 1 and bool(request.include_synonyms)

    def respond(stored: Mapping[Stored, dict[str, str] | KafkaError],
                ) -> m.DescribeConfigsResponse:
        return m.DescribeConfigsResponse(
            throttle_time_ms=0,
            results=[_result(ctx, r, include_synonyms, stored) for r in request.resources],
        )

    keys = _stored(ctx, request)
    if not keys:
        return respond({})

    def failed(error: BaseException) -> dict[str, str] | KafkaError:
        log.warning("Could not read a resource's configs: %s", error)
        return KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, None)

    # as Kafka's ZkAdminManager: a topic's overrides as the store holds them, so that an answer
    # right after an alteration through another broker shows it (and a group's, as Kafka 4
    # reads its metadata image)
    admin = ctx.services.admin
    reads: list[Outcome[dict[str, str] | KafkaError]] = [
        when_settled(admin.topic_configs(name) if kind == TOPIC else admin.group_configs(name),
                     _as_overrides, failed)
        for kind, name in keys]

    def answer(got: list[dict[str, str] | KafkaError]) -> m.DescribeConfigsResponse:
        return respond(dict(zip(keys, got, strict=True)))

    found: Outcome[list[dict[str, str] | KafkaError]] = gather(reads)
    return when_ready(found, answer)


def _as_overrides(configs: dict[str, str]) -> dict[str, str] | KafkaError:
    return configs
