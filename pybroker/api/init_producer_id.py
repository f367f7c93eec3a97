"""InitProducerId (22): producer ids for idempotent producers.

Like Kafka's coordinator for a producer without a transactional id, every call hands out a new
producer id at epoch 0 (also for a KIP-360 epoch-bump request, which then starts afresh).
Transactional producers need the transaction coordinator, which this broker does not run.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    init_producer_id_request as req,
    init_producer_id_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.purgatory import when_ready

NO_PRODUCER_ID, NO_PRODUCER_EPOCH = -1, -1


@api(ApiKey.INIT_PRODUCER_ID, 0, 5)
def handle(ctx: RequestContext, request: req.InitProducerIdRequest,
           ) -> Response[m.InitProducerIdResponse]:
    if (request.producer_id == NO_PRODUCER_ID) != (request.producer_epoch == NO_PRODUCER_EPOCH):
        # an epoch bump (KIP-360) names both the producer id and its epoch, or neither
        return m.InitProducerIdResponse(error_code=ErrorCode.INVALID_REQUEST,
                                        producer_id=NO_PRODUCER_ID,
                                        producer_epoch=NO_PRODUCER_EPOCH)
    if request.transactional_id is not None:
        return m.InitProducerIdResponse(error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE,
                                        producer_id=-1, producer_epoch=-1)
    return when_ready(ctx.services.producer_ids.generate_producer_id(),
                      lambda pid: m.InitProducerIdResponse(error_code=ErrorCode.NONE,
                                                           producer_id=pid, producer_epoch=0))
