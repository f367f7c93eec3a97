"""IncrementalAlterConfigs (44): SET, DELETE, APPEND and SUBTRACT single configs of a topic, a
broker or a group (Kafka 4's GROUP resource, KIP-848), and the levels of the broker's loggers.

The operations, the checks and the change are :mod:`pybroker.admin.configs`', shared with
AlterConfigs; logger levels are :mod:`pybroker.admin.loggers`', changed (and answered) before
anything else, as Kafka's preprocessing does.
"""

from __future__ import annotations

import logging

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    incremental_alter_configs_request as req,
    incremental_alter_configs_response as m,
)
from pybroker.admin import loggers
from pybroker.admin.configs import (
    BROKER,
    BROKER_LOGGER,
    DELETE,
    GROUP,
    TOPIC,
    incremental_broker_configs,
    incremental_group_configs,
    incremental_topic_configs,
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
    if r.resource_type == TOPIC:
        return incremental_topic_configs(ctx.services, r.resource_name, r.configs, validate_only)
    if r.resource_type == BROKER:
        return incremental_broker_configs(ctx.services, r.resource_name, r.configs,
                                          validate_only)
    if r.resource_type == GROUP:
        return incremental_group_configs(ctx.services, ctx.services.groups.group_configs,
                                         r.resource_name, r.configs, validate_only)
    loggers.check_node(ctx.services.broker_id, r.resource_name)
    loggers.check_changes(r.configs)
    if not validate_only:
        loggers.apply_changes(r.configs)
    return None

@api(ApiKey.INCREMENTAL_ALTER_CONFIGS, 0, 1)
def handle(ctx: RequestContext, request: req.IncrementalAlterConfigsRequest,
           ) -> Response[m.IncrementalAlterConfigsResponse]:
    refused = preprocess(request.resources,
                         lambda c: c.config_operation != DELETE and c.value is None)
    outcomes: list[Outcome[KafkaError | None]] = []
    # the loggers first: Kafka changes them while preprocessing, before any other resource
    order = sorted(range(len(request.resources)),
                   key=lambda i: request.resources[i].resource_type != BROKER_LOGGER)
    by_index: dict[int, Outcome[KafkaError | None]] = {}
    for i in order:
        r = request.resources[i]
        try:
            if id(r) in refused:
                raise refused[id(r)]
            refusal = config_refusal(ctx, r.resource_type, r.resource_name,
                                     AclOperation.ALTER_CONFIGS)
            if refusal is not None:
                raise KafkaError(refusal, None)
            by_index[i] = settled(_change(ctx, r, request.validate_only), r.resource_type,
                                  r.resource_name)
        except KafkaError as e:
            by_index[i] = e
        except Exception:
            log.exception("Error processing incremental alter configs request for resource "
                          "%s %r", r.resource_type, r.resource_name)
            by_index[i] = KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, None)
    outcomes = [by_index[i] for i in range(len(request.resources))]

    def respond(errors: list[KafkaError | None]) -> m.IncrementalAlterConfigsResponse:
        return m.IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=[
            m.AlterConfigsResourceResponse(
                resource_type=r.resource_type, resource_name=r.resource_name,
                error_code=e.code if e is not None else ErrorCode.NONE,
                error_message=e.message if e is not None else None)
            for r, e in zip(request.resources, errors, strict=True)])

    return when_ready(gather(outcomes), respond)
