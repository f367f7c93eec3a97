"""DescribeCluster (60): the brokers, the controller and the cluster id."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_cluster_request as req,
    describe_cluster_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api

BROKERS_ENDPOINT, CONTROLLERS_ENDPOINT = 1, 2


#: what a client may do to the cluster without an authorizer (Kafka's AclOperation codes):
#: CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE
CLUSTER_OPERATIONS = sum(1 << op for op in (5, 7, 8, 9, 10, 11, 12))
UNKNOWN_OPERATIONS = -2147483648


@api(ApiKey.DESCRIBE_CLUSTER, 0, 1)
def handle(ctx: RequestContext, request: req.DescribeClusterRequest) -> m.DescribeClusterResponse:
    cache = ctx.services.metadata_cache
    endpoint_type = request.endpoint_type if ctx.api_version >= 1 else BROKERS_ENDPOINT
    if endpoint_type not in (BROKERS_ENDPOINT, CONTROLLERS_ENDPOINT):
        return m.DescribeClusterResponse(
            error_code=(ErrorCode.INVALID_REQUEST if ctx.api_version == 0
                        else ErrorCode.UNSUPPORTED_ENDPOINT_TYPE),
            error_message=f"Unsupported endpoint type {endpoint_type}", cluster_id="")
    if endpoint_type != BROKERS_ENDPOINT:
        return m.DescribeClusterResponse(
            error_code=(ErrorCode.INVALID_REQUEST if ctx.api_version == 0
                        else ErrorCode.MISMATCHED_ENDPOINT_TYPE),
            error_message="The request was sent to an endpoint of type BROKER, but we wanted "
                          "an endpoint of type CONTROLLER", cluster_id="")
    return m.DescribeClusterResponse(
        throttle_time_ms=0,
        error_code=ErrorCode.NONE,
        endpoint_type=BROKERS_ENDPOINT,
        cluster_id=cache.cluster_id,
        controller_id=cache.controller_id,
        brokers=[
            m.DescribeClusterBroker(broker_id=b.node_id, host=b.host, port=b.port, rack=b.rack)
            for b in cache.brokers_for(ctx.listener).values()
        ],
        cluster_authorized_operations=(CLUSTER_OPERATIONS
                                       if request.include_cluster_authorized_operations
                                       else UNKNOWN_OPERATIONS),
    )
