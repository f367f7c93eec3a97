"""InitProducerId (22): producer ids for idempotent and transactional producers.

Without a transactional id, like Kafka's coordinator, every call hands out a new producer id at
epoch 0 (also for a KIP-360 epoch-bump request, which then starts afresh). With one, the
transaction coordinator answers (:mod:`pybroker.coordinator.transaction`): epoch bumps, the
fencing of an older producer, KIP-360's bump of its own epoch. Before v4 PRODUCER_FENCED is
answered as INVALID_PRODUCER_EPOCH, which older clients understand.
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
from pybroker.coordinator.transaction import InitProducerIdResult
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation, ResourceType

NO_PRODUCER_ID, NO_PRODUCER_EPOCH = -1, -1


def _error(error: ErrorCode) -> m.InitProducerIdResponse:
    return m.InitProducerIdResponse(error_code=error, producer_id=NO_PRODUCER_ID,
                                    producer_epoch=NO_PRODUCER_EPOCH)


@api(ApiKey.INIT_PRODUCER_ID, 0, 5)
def handle(ctx: RequestContext, request: req.InitProducerIdRequest,
           ) -> Response[m.InitProducerIdResponse]:
    if (request.producer_id == NO_PRODUCER_ID) != (request.producer_epoch == NO_PRODUCER_EPOCH):
        # an epoch bump (KIP-360) names both the producer id and its epoch, or neither
        return _error(ErrorCode.INVALID_REQUEST)
    acls = ctx.services.acls
    if request.transactional_id is not None:
        if not acls.authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID,
                              request.transactional_id):
            return _error(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    elif not acls.authorize_cluster(ctx, AclOperation.IDEMPOTENT_WRITE) and \
            not acls.authorize_by_resource_type(ctx, AclOperation.WRITE, ResourceType.TOPIC):
        return _error(ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if request.transactional_id is None:
        return when_ready(ctx.services.producer_ids.generate_producer_id(),
                          lambda pid: m.InitProducerIdResponse(error_code=ErrorCode.NONE,
                                                               producer_id=pid,
                                                               producer_epoch=0))
    transactions = ctx.services.transactions
    if transactions is None:
        return _error(ErrorCode.COORDINATOR_NOT_AVAILABLE)
    expected = (None if request.producer_id == NO_PRODUCER_ID
                else (request.producer_id, request.producer_epoch))
    version = ctx.api_version

    def respond(result: InitProducerIdResult) -> m.InitProducerIdResponse:
        error = result.error
        if version < 4 and error == ErrorCode.PRODUCER_FENCED:
            error = ErrorCode.INVALID_PRODUCER_EPOCH
        if error:
            return _error(error)
        return m.InitProducerIdResponse(error_code=ErrorCode.NONE,
                                        producer_id=result.producer_id,
                                        producer_epoch=result.producer_epoch)

    return when_ready(transactions.init_producer_id(
        request.transactional_id, request.transaction_timeout_ms, expected, ctx.now_ms), respond)
