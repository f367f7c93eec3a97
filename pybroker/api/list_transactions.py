"""ListTransactions (66): the transactional ids this broker coordinates
(``kafka-transactions list``), filtered by state, producer id and, from v1, by how long the
transaction has been running (``DurationFilter``, -1: any). State filters that name no state
come back in ``UnknownStateFilters``.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    list_transactions_request as req,
    list_transactions_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.LIST_TRANSACTIONS, 0, 1)
def handle(ctx: RequestContext, request: req.ListTransactionsRequest,
           ) -> m.ListTransactionsResponse:
    transactions = ctx.services.transactions
    if transactions is None:
        return m.ListTransactionsResponse(error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE)
    duration = request.duration_filter if ctx.api_version >= 1 else -1
    result = transactions.list_transactions(set(request.producer_id_filters),
                                            set(request.state_filters), duration, ctx.now_ms)
    return m.ListTransactionsResponse(
        throttle_time_ms=0, error_code=result.error,
        unknown_state_filters=result.unknown_state_filters,
        transaction_states=[m.TransactionState(transactional_id=t.transactional_id,
                                               producer_id=t.producer_id,
                                               transaction_state=t.state.value)
                            for t in result.transactions
                            if ctx.services.acls.authorize(ctx, AclOperation.DESCRIBE,
                                                           ResourceType.TRANSACTIONAL_ID,
                                                           t.transactional_id)])
