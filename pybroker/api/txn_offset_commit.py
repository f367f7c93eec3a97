"""TxnOffsetCommit (28): a transactional producer's consumed offsets (``sendOffsetsToTransaction``),
written to the group's ``__consumer_offsets`` partition in one transactional batch and pending
until the transaction's marker (KIP-98; v3+ names the consumer's member, KIP-447).

As in Kafka 3.9, the coordinator's status for the group is checked first (an unknown group is
created), then the group's partition is verified with the transaction coordinator when the
producer's transaction is not open there yet (KIP-890: AddOffsetsToTxn must have added it), and
only then is the member checked and the batch written, with the verification's guard. A failed
verification answers every partition with the coordinator's error as an offset commit maps it
(TRANSACTION_ABORTABLE from v4, INVALID_TXN_STATE before). The ACL checks are the handler's;
the rest is the group service's (``commit_transactional_offsets``)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    txn_offset_commit_request as req,
    txn_offset_commit_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.cluster.txn_verification import TxnErrorMode
from pybroker.coordinator.group.offsets import OffsetToCommit, TxnProducer
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.TXN_OFFSET_COMMIT, 0, 4)
def handle(ctx: RequestContext, request: req.TxnOffsetCommitRequest,
           ) -> Response[m.TxnOffsetCommitResponse]:
    v = ctx.api_version
    groups = ctx.services.groups
    errors: dict[tuple[str, int], ErrorCode] = {}
    wanted: list[OffsetToCommit] = []
    acls = ctx.services.acls
    refusal = (ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
               if not acls.authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID,
                                     request.transactional_id)
               else ErrorCode.GROUP_AUTHORIZATION_FAILED
               if not acls.authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id)
               else None)
    readable = acls.authorized(ctx, AclOperation.READ, ResourceType.TOPIC,
                               (t.name for t in request.topics))
    for topic in request.topics:
        for p in topic.partitions:
            if refusal is not None:
                errors[(topic.name, p.partition_index)] = refusal
            elif topic.name not in readable:
                errors[(topic.name, p.partition_index)] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            else:
                wanted.append(OffsetToCommit(
                    topic.name, p.partition_index, p.committed_offset,
                    p.committed_leader_epoch if v >= 2 else -1, p.committed_metadata))

    def respond(stored: dict[tuple[str, int], ErrorCode]) -> m.TxnOffsetCommitResponse:
        errors.update(stored)
        if v < 2:
            # Producers before 2.0 treat COORDINATOR_LOAD_IN_PROGRESS as fatal (KAFKA-7296),
            # so Kafka tells them COORDINATOR_NOT_AVAILABLE instead.
            for tp, error in errors.items():
                if error == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
                    errors[tp] = ErrorCode.COORDINATOR_NOT_AVAILABLE
        return m.TxnOffsetCommitResponse(throttle_time_ms=0, topics=[
            m.TxnOffsetCommitResponseTopic(name=topic.name, partitions=[
                m.TxnOffsetCommitResponsePartition(
                    partition_index=p.partition_index,
                    error_code=errors.get((topic.name, p.partition_index), ErrorCode.NONE))
                for p in topic.partitions])
            for topic in request.topics])

    if not wanted:
        return respond({})
    # answered once the batch is replicated to the ISR (at once on a single node); its
    # offsets count only when the transaction's COMMIT marker follows
    return when_ready(groups.commit_transactional_offsets(
        request.group_id, request.transactional_id,
        TxnProducer(request.producer_id, request.producer_epoch),
        request.member_id if v >= 3 else "",
        request.group_instance_id if v >= 3 else None,
        request.generation_id if v >= 3 else -1,
        wanted, TxnErrorMode.for_txn_offset_commit(v), ctx.now_ms,
    ), respond)
