"""AddOffsetsToTxn (25): a consumer group's offsets join a transaction (KIP-98, KIP-447).

The group's ``__consumer_offsets`` partition is added to the transaction like any partition,
so that the transaction's markers reach the offsets the producer commits with
TxnOffsetCommit. Before v2 PRODUCER_FENCED is answered as INVALID_PRODUCER_EPOCH.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    add_offsets_to_txn_request as req,
    add_offsets_to_txn_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.metadata.topics import OFFSETS_TOPIC
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.ADD_OFFSETS_TO_TXN, 0, 4)
def handle(ctx: RequestContext, request: req.AddOffsetsToTxnRequest,
           ) -> Response[m.AddOffsetsToTxnResponse]:
    services = ctx.services
    acls = services.acls
    if not acls.authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID,
                          request.transactional_id):
        return m.AddOffsetsToTxnResponse(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    if not acls.authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return m.AddOffsetsToTxnResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    transactions = services.transactions
    if transactions is None:
        return m.AddOffsetsToTxnResponse(error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE)
    offsets_partition = (OFFSETS_TOPIC, services.groups.topic.partition_for(request.group_id))
    version = ctx.api_version

    def respond(error: ErrorCode) -> m.AddOffsetsToTxnResponse:
        if version < 2 and error == ErrorCode.PRODUCER_FENCED:
            error = ErrorCode.INVALID_PRODUCER_EPOCH
        return m.AddOffsetsToTxnResponse(error_code=error)

    return when_ready(transactions.add_partitions_to_transaction(
        request.transactional_id, request.producer_id, request.producer_epoch,
        frozenset({offsets_partition}), ctx.now_ms), respond)
