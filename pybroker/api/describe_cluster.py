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
from pybroker.security.acl import CLUSTER_NAME, AclOperation, ResourceType

BROKERS_ENDPOINT, CONTROLLERS_ENDPOINT = 1, 2


UNKNOWN_OPERATIONS = -2147483648


def _cluster_operations(ctx: RequestContext, request: req.DescribeClusterRequest) -> int:
    """What the client may do to the cluster, when it asks: none unless it may describe it
    (without an authorizer, every operation of the cluster)."""
    if not request.include_cluster_authorized_operations:
        return UNKNOWN_OPERATIONS
    acls = ctx.services.acls
    if not acls.authorize_cluster(ctx, AclOperation.DESCRIBE):
        return 0
    return acls.authorized_operations(ctx, ResourceType.CLUSTER, CLUSTER_NAME)


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
        cluster_authorized_operations=_cluster_operations(ctx, request),
    )
