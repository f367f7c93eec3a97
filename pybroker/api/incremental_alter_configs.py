"""IncrementalAlterConfigs (44): SET, DELETE, APPEND and SUBTRACT single topic configs.

APPEND and SUBTRACT apply only to list configs (``cleanup.policy``) and work on the effective
value, defaults included. Validation and storage are shared with AlterConfigs.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import incremental_alter_configs_response as m_incr
from pybroker.api.alter_configs import _apply, _check_resource
from pybroker.api.describe_configs import LIST, TOPIC_CONFIG_TYPES
from pybroker.api.registry import api

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def _incremental(current: dict[str, str], entries) -> dict[str, str]:
    new = dict(current)
    for e in entries:
        op = e.config_operation
        if op == SET:
            if e.value is None:
                raise KafkaError(ErrorCode.INVALID_CONFIG,
                                 f"Null value not supported for : {e.name}")
            new[e.name] = e.value
        elif op == DELETE:
            new.pop(e.name, None)
        elif op in (APPEND, SUBTRACT):
            if TOPIC_CONFIG_TYPES.get(e.name) != LIST:
                raise KafkaError(ErrorCode.INVALID_CONFIG,
                                 f"Config value append/subtract is not allowed for config key "
                                 f"{e.name}, which is not a list")
            effective = current.get(e.name) or ""
            items = [x for x in effective.split(",") if x]
            values = [x.strip() for x in (e.value or "").split(",") if x.strip()]
            if op == APPEND:
                items += [v for v in values if v not in items]
            else:
                items = [x for x in items if x not in values]
            new[e.name] = ",".join(items)
        else:
            raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown config operation {op}")
    return new



@api(44, 0, 1)
def handle_incremental(ctx, request) -> m_incr.IncrementalAlterConfigsResponse:
    responses = []
    for r in request.resources:
        out = m_incr.AlterConfigsResourceResponse(resource_type=r.resource_type,
                                                  resource_name=r.resource_name,
                                                  error_code=ErrorCode.NONE)
        try:
            _check_resource(ctx, r.resource_type, r.resource_name)
            current = ctx.broker.controller.topic_overrides(r.resource_name)
            if any(e.config_operation in (APPEND, SUBTRACT) for e in r.configs):
                # APPEND/SUBTRACT work on the effective value, defaults included.
                effective = ctx.broker.topic_log_config(current).to_properties()
                current = {**{k: effective[k] for k in (e.name for e in r.configs)
                              if k in effective and k not in current}, **current}
            _apply(ctx, r.resource_name, _incremental(current, r.configs), request.validate_only)
        except KafkaError as e:
            out.error_code, out.error_message = e.code, e.message
        responses.append(out)
    return m_incr.IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=responses)
