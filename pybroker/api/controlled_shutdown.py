"""ControlledShutdown (7): a stopping broker asks the controller to move its leaderships away
first (ZooKeeper mode only; answered by the controller, NOT_CONTROLLER elsewhere).

The answer lists the partitions the broker still leads; the broker asks again until there are
none or it runs out of attempts (``controlled.shutdown.max.retries``)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    controlled_shutdown_request as req,
    controlled_shutdown_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import ZOOKEEPER, Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation


@api(ApiKey.CONTROLLED_SHUTDOWN, 0, 3, modes=frozenset({ZOOKEEPER}))
def handle(ctx: RequestContext, request: req.ControlledShutdownRequest,
           ) -> Response[m.ControlledShutdownResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION):
        return m.ControlledShutdownResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    controller = ctx.services.controller
    if controller is None or not controller.is_active:
        return m.ControlledShutdownResponse(error_code=ErrorCode.NOT_CONTROLLER)
    epoch = request.broker_epoch if ctx.api_version >= 2 else -1

    def respond(outcome: tuple[ErrorCode, list[tuple[str, int]]],
                ) -> m.ControlledShutdownResponse:
        error, remaining = outcome
        return m.ControlledShutdownResponse(
            error_code=error,
            remaining_partitions=[m.RemainingPartition(topic_name=t, partition_index=p)
                                  for t, p in remaining])

    return when_ready(controller.controlled_shutdown(request.broker_id, epoch), respond)
