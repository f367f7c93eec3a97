"""AlterConfigs (33): replace a topic's whole set of config overrides.

IncrementalAlterConfigs (:mod:`.incremental_alter_configs`) shares the helpers here. New values are validated like at CreateTopics (INVALID_CONFIG with a
message), stored by the controller and applied to the partitions' logs at once. Broker configs
are static here (read from server.properties), so changing them is refused.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import alter_configs_response as m_alter
from pybroker.api.describe_configs import BROKER, BROKER_LOGGER, TOPIC
from pybroker.api.registry import api


def _check_resource(ctx, resource_type: int, name: str) -> None:
    if resource_type == TOPIC:
        if ctx.broker.metadata_cache.topic(name) is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             f"Topic {name} does not exist")
        return
    if resource_type in (BROKER, BROKER_LOGGER):
        raise KafkaError(ErrorCode.INVALID_REQUEST,
                         "Broker configs are static in pybroker: change server.properties "
                         "and restart")
    raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unsupported resource type {resource_type}")


def _apply(ctx, name: str, overrides: dict[str, str], validate_only: bool) -> None:
    controller = ctx.broker.controller
    ctx.broker.topic_log_config(overrides)  # raises INVALID_CONFIG
    if not validate_only:
        controller.set_topic_configs(name, overrides)


@api(33, 0, 2)
def handle_alter(ctx, request) -> m_alter.AlterConfigsResponse:
    responses = []
    for r in request.resources:
        out = m_alter.AlterConfigsResourceResponse(resource_type=r.resource_type,
                                                   resource_name=r.resource_name,
                                                   error_code=ErrorCode.NONE)
        try:
            _check_resource(ctx, r.resource_type, r.resource_name)
            overrides = {}
            for c in r.configs:
                if c.value is None:
                    raise KafkaError(ErrorCode.INVALID_CONFIG,
                                     f"Null value not supported for : {c.name}")
                overrides[c.name] = c.value
            _apply(ctx, r.resource_name, overrides, request.validate_only)
        except KafkaError as e:
            out.error_code, out.error_message = e.code, e.message
        responses.append(out)
    return m_alter.AlterConfigsResponse(throttle_time_ms=0, responses=responses)
