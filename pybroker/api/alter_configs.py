"""AlterConfigs (33): replace a topic's whole set of config overrides.

IncrementalAlterConfigs (:mod:`.incremental_alter_configs`) shares the helpers here. Both check a
request the way a Kafka 3.9 broker does: first each resource on its own (a resource named twice,
a config named twice, null values: INVALID_REQUEST), then the topic (UNKNOWN_TOPIC_OR_PARTITION),
then the new set of overrides as CreateTopics does (INVALID_CONFIG, with Kafka's message, prefixed
by the resource for a refused value). Accepted overrides are stored by the controller and applied
to the partitions' logs at once. Broker configs are static here (read from server.properties),
so changing them is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import alter_configs_response as m_alter
from pybroker.api.describe_configs import BROKER, BROKER_LOGGER, TOPIC
from pybroker.api.registry import api
from pybroker.config import alter_message

RESOURCE_TYPE_NAMES = {TOPIC: "TOPIC", BROKER: "BROKER", BROKER_LOGGER: "BROKER_LOGGER"}


def _check_request(resources: Iterable[Any], null_refused: Callable[[Any], bool]) -> dict[int, KafkaError]:
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


def _check_resource(ctx, resource_type: int, name: str) -> None:
    if resource_type == TOPIC:
        if not name:
            raise KafkaError(ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed.")
        if ctx.broker.metadata_cache.topic(name) is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             f"The topic '{name}' does not exist.")
        return
    if resource_type in (BROKER, BROKER_LOGGER):
        raise KafkaError(ErrorCode.INVALID_REQUEST,
                         "Broker configs are static in pybroker: change server.properties "
                         "and restart")
    raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource_type}")


def _apply(ctx, resource_type: int, name: str, overrides: dict[str, str],
           validate_only: bool) -> None:
    """Check the resource, validate the overrides (INVALID_CONFIG) and store them."""
    _check_resource(ctx, resource_type, name)
    try:
        ctx.broker.topic_log_config(overrides)
    except KafkaError as e:
        raise KafkaError(e.code, alter_message(RESOURCE_TYPE_NAMES[resource_type], name, e)) \
            from e
    if not validate_only:
        ctx.broker.controller.set_topic_configs(name, overrides)


@api(33, 0, 2)
def handle_alter(ctx, request) -> m_alter.AlterConfigsResponse:
    refused = _check_request(request.resources, lambda c: c.value is None)
    responses = []
    for r in request.resources:
        out = m_alter.AlterConfigsResourceResponse(resource_type=r.resource_type,
                                                   resource_name=r.resource_name,
                                                   error_code=ErrorCode.NONE, error_message=None)
        try:
            if id(r) in refused:
                raise refused[id(r)]
            _apply(ctx, r.resource_type, r.resource_name, {c.name: c.value for c in r.configs},
                   request.validate_only)
        except KafkaError as e:
            out.error_code, out.error_message = e.code, e.message
        responses.append(out)
    return m_alter.AlterConfigsResponse(throttle_time_ms=0, responses=responses)
