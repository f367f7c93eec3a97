"""DescribeCluster (60): the brokers, the controller and the cluster id."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import describe_cluster_response as m
from pybroker.api.registry import api

BROKERS_ENDPOINT = 1


@api(60, 0, 1)
def handle(ctx, request) -> m.DescribeClusterResponse:
    cache = ctx.broker.metadata_cache
    if ctx.api_version >= 1 and request.endpoint_type != BROKERS_ENDPOINT:
        return m.DescribeClusterResponse(
            error_code=ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
            error_message="The request was sent to an endpoint of type BROKER, but we wanted "
                          "an endpoint of type CONTROLLER" if request.endpoint_type == 2 else None,
            endpoint_type=request.endpoint_type,
            cluster_id=cache.cluster_id,
        )
    return m.DescribeClusterResponse(
        throttle_time_ms=0,
        error_code=ErrorCode.NONE,
        endpoint_type=BROKERS_ENDPOINT,
        cluster_id=cache.cluster_id,
        controller_id=cache.controller_id,
        brokers=[
            m.DescribeClusterBroker(broker_id=b.node_id, host=b.host, port=b.port, rack=b.rack)
            for b in cache.brokers.values()
        ],
    )
