"""ConsumerGroupDescribe (69): the KIP-848 consumer groups' description.

As Kafka 3.9 with its default ``group.coordinator.rebalance.protocols`` (``classic``) answers it,
and so in ZooKeeper mode always: every group asked for with UNSUPPORTED_VERSION
(``ConsumerGroupDescribeRequest.getErrorResponse``), until pybroker serves the protocol."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    consumer_group_describe_request as req,
    consumer_group_describe_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api

#: docs/apis.md's words for it
UNSERVED = ("answered as Kafka 3.9 answers it with its default protocols: UNSUPPORTED_VERSION "
            "(the consumer protocol, KIP-848, is not served yet)")


@api(ApiKey.CONSUMER_GROUP_DESCRIBE, 0, 0, status=UNSERVED)
def handle(ctx: RequestContext, request: req.ConsumerGroupDescribeRequest,
           ) -> m.ConsumerGroupDescribeResponse:
    return m.ConsumerGroupDescribeResponse(groups=[
        m.DescribedGroup(group_id=group_id, error_code=ErrorCode.UNSUPPORTED_VERSION)
        for group_id in request.group_ids])
