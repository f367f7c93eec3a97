"""ConsumerGroupHeartbeat (68): the KIP-848 consumer group protocol's one request.

Kafka 3.9 advertises it and answers it, with its default ``group.coordinator.rebalance.protocols``
(``classic``), with UNSUPPORTED_VERSION in the response body - in ZooKeeper mode it cannot be
otherwise. So does pybroker until it serves the protocol: a client asking for
``group.protocol=consumer`` then fails as against Kafka 3.9 ("The cluster does not support the
new CONSUMER group protocol"), not on a missing API."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    consumer_group_heartbeat_request as req,
    consumer_group_heartbeat_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api

#: docs/apis.md's words for it
UNSERVED = ("answered as Kafka 3.9 answers it with its default protocols: UNSUPPORTED_VERSION "
            "(the consumer protocol, KIP-848, is not served yet)")


@api(ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, 0, status=UNSERVED)
def handle(ctx: RequestContext, request: req.ConsumerGroupHeartbeatRequest,
           ) -> m.ConsumerGroupHeartbeatResponse:
    # Kafka's ConsumerGroupHeartbeatRequest.getErrorResponse: the error alone
    return m.ConsumerGroupHeartbeatResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
