"""AlterConfigs (33): replace a topic's config overrides, a broker's dynamic configs, or a
group's configs (Kafka 4's GROUP resource, KIP-848).

The checks and the change are :mod:`pybroker.admin.configs`', shared with
IncrementalAlterConfigs. A change stored in ZooKeeper answers once written.
"""

from __future__ import annotations

import logging

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, alter_configs_request as req, alter_configs_response as m
from pybroker.admin.configs import (
    BROKER,
    GROUP,
    TOPIC,
    change_broker_configs,
    change_group_configs,
    change_topic_configs,
    preprocess,
    settled,
)
from pybroker.api.acl_requests import config_refusal
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import Outcome, gather, when_ready
from pybroker.security.acl import AclOperation

log = logging.getLogger(__name__)

def _change(ctx: RequestContext, r: req.AlterConfigsResource, validate_only: bool,
            ) -> Outcome[KafkaError | None]:
    # (null values were refused by preprocess)
    configs = {c.name: c.value for c in r.configs if c.value is not None}
    if r.resource_type == TOPIC:
        return change_topic_configs(ctx.services, r.resource_name, configs, validate_only)
    if r.resource_type == BROKER:
        return change_broker_configs(ctx.services, r.resource_name, configs, validate_only)
    if r.resource_type == GROUP:
        return change_group_configs(ctx.services, ctx.services.groups.group_configs,
                                    r.resource_name, configs, validate_only)
    # Kafka's legacy AlterConfigs knows no BROKER_LOGGER resource
    raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {r.resource_type}")

@api(ApiKey.ALTER_CONFIGS, 0, 2)
def handle(ctx: RequestContext, request: req.AlterConfigsRequest,
           ) -> Response[m.AlterConfigsResponse]:
    refused = preprocess(request.resources, lambda c: c.value is None)
    outcomes: list[Outcome[KafkaError | None]] = []
    for r in request.resources:
        try:
            if id(r) in refused:
                raise refused[id(r)]
            refusal = config_refusal(ctx, r.resource_type, r.resource_name,
                                     AclOperation.ALTER_CONFIGS)
            if refusal is not None:
                raise KafkaError(refusal, None)
            outcomes.append(settled(_change(ctx, r, request.validate_only), r.resource_type,
                                    r.resource_name))
        except KafkaError as e:
            outcomes.append(e)
        except Exception:
            log.exception("Error processing alter configs request for resource %s %r",
                          r.resource_type, r.resource_name)
            outcomes.append(KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, None))

    def respond(errors: list[KafkaError | None]) -> m.AlterConfigsResponse:
        return m.AlterConfigsResponse(throttle_time_ms=0, responses=[
            m.AlterConfigsResourceResponse(
                resource_type=r.resource_type, resource_name=r.resource_name,
                error_code=e.code if e is not None else ErrorCode.NONE,
                error_message=e.message if e is not None else None)
            for r, e in zip(request.resources, errors, strict=True)])

    return when_ready(gather(outcomes), respond)
