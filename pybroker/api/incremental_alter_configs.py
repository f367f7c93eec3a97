"""IncrementalAlterConfigs (44): SET, DELETE, APPEND and SUBTRACT single topic configs.

The operations apply to the topic's overrides, as in Kafka: APPEND and SUBTRACT are for list
configs only (``cleanup.policy``, the throttled-replica lists) and start from the override, or
from Kafka's built-in default when there is none; items are split on commas as given. Checks,
validation and storage are shared with AlterConfigs.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import incremental_alter_configs_response as m_incr
from pybroker.api.alter_configs import _apply, _check_request
from pybroker.api.describe_configs import BROKER, TOPIC
from pybroker.api.registry import api
from pybroker.config import LIST, TOPIC_CONFIGS, to_config_string

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
#: Kafka's dynamic broker configs for replication throttling
DYNAMIC_THROTTLES = frozenset({
    "leader.replication.throttled.rate",
    "follower.replication.throttled.rate",
    "replica.alter.log.dirs.io.max.bytes.per.second",
})
_OP_NAMES = {APPEND: "append", SUBTRACT: "subtract"}


def _java_split(text: str) -> list[str]:
    """Java's ``String.split(",")``: trailing empty items are dropped, a lone "" stays."""
    if text == "":
        return [""]
    items = text.split(",")
    while items and items[-1] == "":
        items.pop()
    return items


def _incremental(current: dict[str, str], entries) -> dict[str, str]:
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
                old = to_config_string(key.default, LIST)
            if op == APPEND:
                items = _java_split(old) if old else []
                items += [v for v in _java_split(e.value) if v not in items]
            else:
                items = _java_split(old)
                for v in _java_split(e.value):
                    if v in items:
                        items.remove(v)
            new[e.name] = ",".join(items)
        else:
            raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown config operation {op}")
    return new


def _deletes_unset_broker_throttles(ctx, resource) -> bool:
    """Deleting the dynamic replication throttles of this broker (or the cluster default).

    Broker configs are static here, so these are never set and deleting them changes nothing;
    Kafka accepts the same request. ``kafka-reassign-partitions --verify`` and ``--cancel``
    send it after every reassignment to remove the throttles they may have set."""
    return (
        resource.resource_type == BROKER
        and resource.resource_name in ("", str(ctx.broker.broker_id))
        and bool(resource.configs)
        and all(c.config_operation == DELETE and c.name in DYNAMIC_THROTTLES
                for c in resource.configs)
    )


@api(44, 0, 1)
def handle_incremental(ctx, request) -> m_incr.IncrementalAlterConfigsResponse:
    refused = _check_request(request.resources,
                             lambda c: c.config_operation != DELETE and c.value is None)
    responses = []
    for r in request.resources:
        out = m_incr.AlterConfigsResourceResponse(resource_type=r.resource_type,
                                                  resource_name=r.resource_name,
                                                  error_code=ErrorCode.NONE, error_message=None)
        try:
            if id(r) in refused:
                raise refused[id(r)]
            if _deletes_unset_broker_throttles(ctx, r):
                responses.append(out)
                continue
            overrides = {}
            if r.resource_type == TOPIC and r.resource_name:
                current = ctx.broker.controller.topic_overrides(r.resource_name)
                overrides = _incremental(current, r.configs)
            _apply(ctx, r.resource_type, r.resource_name, overrides, request.validate_only)
        except KafkaError as e:
            out.error_code, out.error_message = e.code, e.message
        responses.append(out)
    return m_incr.IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=responses)
