"""DescribeTransactions (65): the state of transactional ids (``kafka-transactions describe``).

Each id is answered by the coordinator of its ``__transaction_state`` partition; another
broker's ids get NOT_COORDINATOR, unknown ones TRANSACTIONAL_ID_NOT_FOUND.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_transactions_request as req,
    describe_transactions_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.DESCRIBE_TRANSACTIONS, 0, 0)
def handle(ctx: RequestContext, request: req.DescribeTransactionsRequest,
           ) -> m.DescribeTransactionsResponse:
    transactions = ctx.services.transactions
    states: list[m.TransactionState] = []
    acls = ctx.services.acls
    for transactional_id in request.transactional_ids:
        if not acls.authorize(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID,
                              transactional_id):
            states.append(m.TransactionState(
                error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                transactional_id=transactional_id))
            continue
        if transactions is None:
            states.append(m.TransactionState(error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE,
                                             transactional_id=transactional_id))
            continue
        d = transactions.describe_transaction(transactional_id)
        states.append(m.TransactionState(
            error_code=d.error, transactional_id=transactional_id,
            transaction_state=d.state, transaction_timeout_ms=d.transaction_timeout_ms,
            transaction_start_time_ms=d.transaction_start_time_ms,
            producer_id=d.producer_id, producer_epoch=d.producer_epoch,
            # only the partitions of topics the client may describe
            topics=[m.TopicData(topic=t, partitions=ps) for t, ps in d.topics.items()
                    if acls.authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t)]))
    return m.DescribeTransactionsResponse(throttle_time_ms=0, transaction_states=states)
