"""AllocateProducerIds (67): a broker asks the controller for a block of producer ids
(KIP-730), as Kafka 3.9's brokers do in ZooKeeper mode. The active controller reserves the
next block in ``/latest_producer_id_block`` for a registered broker of the current epoch;
NOT_CONTROLLER elsewhere, BROKER_ID_NOT_REGISTERED or STALE_BROKER_EPOCH as Kafka refuses.
pybroker's own brokers reserve their blocks in ZooKeeper themselves; a Kafka broker of a
mixed cluster asks a pybroker controller with this request."""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    allocate_producer_ids_request as req,
    allocate_producer_ids_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import ZOOKEEPER, Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation


@api(ApiKey.ALLOCATE_PRODUCER_IDS, 0, 0, modes=frozenset({ZOOKEEPER}))
def handle(ctx: RequestContext, request: req.AllocateProducerIdsRequest,
           ) -> Response[m.AllocateProducerIdsResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION):
        return m.AllocateProducerIdsResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    controller = ctx.services.controller
    if controller is None or not controller.is_active:
        return m.AllocateProducerIdsResponse(error_code=ErrorCode.NOT_CONTROLLER)

    def respond(result: tuple[ErrorCode, int, int] | KafkaError) -> m.AllocateProducerIdsResponse:
        if isinstance(result, KafkaError):  # the controller failed it (moved, ZooKeeper)
            return m.AllocateProducerIdsResponse(error_code=result.code)
        error, first, size = result
        return m.AllocateProducerIdsResponse(error_code=error, producer_id_start=first,
                                             producer_id_len=size)

    return when_ready(controller.allocate_producer_ids(request.broker_id, request.broker_epoch),
                      respond)
