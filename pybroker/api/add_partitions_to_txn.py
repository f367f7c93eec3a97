"""AddPartitionsToTxn (24): partitions join a transaction before the producer writes to them.

Two forms, as Kafka 3.9 serves them: v0-v3 come from producers and carry one transaction (the
``V3AndBelow`` fields); v4+ come from partition leaders and batch several, each of which may be
``VerifyOnly`` - KIP-890's check that a partition is already in the transaction before a leader
appends transactional records to it (TRANSACTION_ABORTABLE when it is not).

A transaction with a partition this broker does not know (UNKNOWN_TOPIC_OR_PARTITION) is not
attempted: its other partitions answer OPERATION_NOT_ATTEMPTED. Producers may not add internal
topics directly (before v4 Kafka authorizes only non-internal topics, so those answer
TOPIC_AUTHORIZATION_FAILED); a group's offsets join through AddOffsetsToTxn. Every partition of
a transaction gets the transaction's outcome; before v2 PRODUCER_FENCED is answered as
INVALID_PRODUCER_EPOCH.
"""

from __future__ import annotations

from collections.abc import Mapping

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    add_partitions_to_txn_request as req,
    add_partitions_to_txn_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import Outcome, gather, when_ready
from pybroker.kernel.types import TopicPartition
from pybroker.metadata.topics import INTERNAL_TOPICS
from pybroker.security.acl import AclOperation, ResourceType

Results = Mapping[TopicPartition, ErrorCode]


def _partitions(topics: list[req.AddPartitionsToTxnTopic]) -> list[TopicPartition]:
    return [(t.name, p) for t in topics for p in t.partitions]


def _topic_results(results: Results) -> list[m.AddPartitionsToTxnTopicResult]:
    by_topic: dict[str, list[m.AddPartitionsToTxnPartitionResult]] = {}
    for (topic, partition), error in results.items():
        by_topic.setdefault(topic, []).append(m.AddPartitionsToTxnPartitionResult(
            partition_index=partition, partition_error_code=error))
    return [m.AddPartitionsToTxnTopicResult(name=t, results_by_partition=rs)
            for t, rs in by_topic.items()]


def _transaction(ctx: RequestContext, txn: req.AddPartitionsToTxnTransaction,
                 ) -> Outcome[Results]:
    """One transaction's per-partition results, now or later."""
    services = ctx.services
    version = ctx.api_version
    partitions = _partitions(txn.topics)
    # clients' versions need WRITE on the transactional id and on each topic (never granted
    # on the internal topics); brokers' (v4+) were checked for CLUSTER_ACTION
    acls = services.acls
    if version < 4 and not acls.authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID,
                                          txn.transactional_id):
        return dict.fromkeys(partitions, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    writable = (acls.authorized(ctx, AclOperation.WRITE, ResourceType.TOPIC,
                                (t for t, _ in partitions if t not in INTERNAL_TOPICS))
                if version < 4 else {t for t, _ in partitions})
    transactions = services.transactions
    if transactions is None:
        return dict.fromkeys(partitions, ErrorCode.COORDINATOR_NOT_AVAILABLE)
    failed: dict[TopicPartition, ErrorCode] = {}
    for tp in partitions:
        if tp[0] not in writable:
            failed[tp] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        elif services.metadata_cache.partition(*tp) is None:
            failed[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    if failed:
        return {tp: failed.get(tp, ErrorCode.OPERATION_NOT_ATTEMPTED) for tp in partitions}
    if txn.verify_only:
        return dict(transactions.verify_partitions_in_transaction(
            txn.transactional_id, txn.producer_id, txn.producer_epoch, frozenset(partitions)))

    def every_partition(error: ErrorCode) -> Results:
        if version < 2 and error == ErrorCode.PRODUCER_FENCED:
            error = ErrorCode.INVALID_PRODUCER_EPOCH
        return dict.fromkeys(partitions, error)

    return when_ready(transactions.add_partitions_to_transaction(
        txn.transactional_id, txn.producer_id, txn.producer_epoch, frozenset(partitions),
        ctx.now_ms), every_partition)


@api(ApiKey.ADD_PARTITIONS_TO_TXN, 0, 5)
def handle(ctx: RequestContext, request: req.AddPartitionsToTxnRequest,
           ) -> Response[m.AddPartitionsToTxnResponse]:
    if ctx.api_version < 4:
        transactions = [req.AddPartitionsToTxnTransaction(
            transactional_id=request.v3_and_below_transactional_id,
            producer_id=request.v3_and_below_producer_id,
            producer_epoch=request.v3_and_below_producer_epoch,
            topics=request.v3_and_below_topics)]
    else:
        if not ctx.services.acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION):
            return m.AddPartitionsToTxnResponse(
                throttle_time_ms=0, error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
        transactions = request.transactions
    outcomes = [_transaction(ctx, txn) for txn in transactions]

    def respond(all_results: list[Results]) -> m.AddPartitionsToTxnResponse:
        if ctx.api_version < 4:
            return m.AddPartitionsToTxnResponse(
                throttle_time_ms=0, results_by_topic_v3_and_below=_topic_results(all_results[0]))
        return m.AddPartitionsToTxnResponse(throttle_time_ms=0, results_by_transaction=[
            m.AddPartitionsToTxnResult(transactional_id=txn.transactional_id,
                                       topic_results=_topic_results(results))
            for txn, results in zip(transactions, all_results, strict=True)])

    return when_ready(gather(outcomes), respond)
