"""AlterConfigs (33): replace a topic's whole set of config overrides.

The checks and the change are :mod:`pybroker.admin.configs`', shared with
IncrementalAlterConfigs; broker configs are static here, so changing them is refused.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, alter_configs_request as req, alter_configs_response as m
from pybroker.admin.configs import change_configs, preprocess
from pybroker.api.context import RequestContext
from pybroker.api.registry import api


@api(ApiKey.ALTER_CONFIGS, 0, 2)
def handle(ctx: RequestContext, request: req.AlterConfigsRequest) -> m.AlterConfigsResponse:
    services = ctx.services
    refused = preprocess(request.resources, lambda c: c.value is None)
    responses = []
    for r in request.resources:
        out = m.AlterConfigsResourceResponse(resource_type=r.resource_type,
                                             resource_name=r.resource_name,
                                             error_code=ErrorCode.NONE, error_message=None)
        try:
            if id(r) in refused:
                raise refused[id(r)]
            error = change_configs(services.metadata_cache, services.configs, services.admin,
                                   r.resource_type, r.resource_name,
                                   # (null values were refused by preprocess)
                                   {c.name: c.value for c in r.configs if c.value is not None},
                                   request.validate_only)
            if isinstance(error, KafkaError):
                raise error
        except KafkaError as e:
            out.error_code, out.error_message = e.code, e.message
        responses.append(out)
    return m.AlterConfigsResponse(throttle_time_ms=0, responses=responses)
