"""EndTxn (26): commit or abort a transaction.

The coordinator writes PrepareCommit or PrepareAbort, answers, and then has the markers written
(:mod:`pybroker.coordinator.transaction`). Before v2 PRODUCER_FENCED is answered as
INVALID_PRODUCER_EPOCH, which older clients understand.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, end_txn_request as req, end_txn_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.END_TXN, 0, 4)
def handle(ctx: RequestContext, request: req.EndTxnRequest) -> Response[m.EndTxnResponse]:
    if not ctx.services.acls.authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID,
                                       request.transactional_id):
        return m.EndTxnResponse(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    transactions = ctx.services.transactions
    if transactions is None:
        return m.EndTxnResponse(error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE)
    version = ctx.api_version

    def respond(error: ErrorCode) -> m.EndTxnResponse:
        if version < 2 and error == ErrorCode.PRODUCER_FENCED:
            error = ErrorCode.INVALID_PRODUCER_EPOCH
        return m.EndTxnResponse(error_code=error)

    return when_ready(transactions.end_transaction(
        request.transactional_id, request.producer_id, request.producer_epoch,
        request.committed, ctx.now_ms), respond)
