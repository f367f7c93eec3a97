"""IncrementalAlterConfigs (44): SET, DELETE, APPEND and SUBTRACT single topic configs.

The operations, the checks and the change are :mod:`pybroker.admin.configs`', shared with
AlterConfigs.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    incremental_alter_configs_request as req,
    incremental_alter_configs_response as m,
)
from pybroker.admin.configs import (
    DELETE,
    TOPIC,
    change_configs,
    deletes_unset_broker_throttles,
    incremental_overrides,
    preprocess,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api


@api(ApiKey.INCREMENTAL_ALTER_CONFIGS, 0, 1)
def handle(ctx: RequestContext, request: req.IncrementalAlterConfigsRequest,
           ) -> m.IncrementalAlterConfigsResponse:
    services = ctx.services
    refused = preprocess(request.resources,
                         lambda c: c.config_operation != DELETE and c.value is None)
    responses = []
    for r in request.resources:
        out = m.AlterConfigsResourceResponse(resource_type=r.resource_type,
                                             resource_name=r.resource_name,
                                             error_code=ErrorCode.NONE, error_message=None)
        try:
            if id(r) in refused:
                raise refused[id(r)]
            if deletes_unset_broker_throttles(services.broker_id, r):
                responses.append(out)
                continue
            overrides = {}
            if r.resource_type == TOPIC and r.resource_name:
                current = services.configs.topic_overrides(r.resource_name)
                overrides = incremental_overrides(current, r.configs)
            error = change_configs(services.metadata_cache, services.configs, services.admin,
                                   r.resource_type, r.resource_name, overrides,
                                   request.validate_only)
            if isinstance(error, KafkaError):
                raise error
        except KafkaError as e:
            out.error_code, out.error_message = e.code, e.message
        responses.append(out)
    return m.IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=responses)
