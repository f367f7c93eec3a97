"""ConsumerGroupHeartbeat (68): the KIP-848 consumer group protocol's one request, v0-1 (v1,
Kafka 4.0: subscriptions by RE2 regular expression, member ids made by the client).

Served when ``group.coordinator.rebalance.protocols`` contains ``consumer`` (the default, as in
Kafka 4); without it the answer is Kafka 3.9's, UNSUPPORTED_VERSION in the body, which clients
report as a cluster without the new protocol. Then, as Kafka 4.1's ``KafkaApis``: READ on the
group, DESCRIBE on every topic subscribed to by name (else TOPIC_AUTHORIZATION_FAILED), and the
group coordinator's answer (:mod:`pybroker.coordinator.group.consumer.coordinator`)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    consumer_group_heartbeat_request as req,
    consumer_group_heartbeat_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.kernel.outcome import Outcome
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, 1)
def handle(ctx: RequestContext, request: req.ConsumerGroupHeartbeatRequest,
           ) -> Outcome[m.ConsumerGroupHeartbeatResponse]:
    groups = ctx.services.groups
    if not groups.consumer_config.enabled:
        # Kafka's ConsumerGroupHeartbeatRequest.getErrorResponse: the error alone
        return m.ConsumerGroupHeartbeatResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    acls = ctx.services.acls
    if not acls.authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return m.ConsumerGroupHeartbeatResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    names = request.subscribed_topic_names
    if names:
        allowed = acls.authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, names)
        if len(set(allowed)) < len(set(names)):
            return m.ConsumerGroupHeartbeatResponse(
                error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    return groups.consumer.heartbeat(request, ctx.api_version, ctx.client_id or "",
                                     "/" + ctx.peer.rsplit(":", 1)[0], ctx.now_ms)
