"""WriteTxnMarkers (27): a transaction coordinator asks the leaders of a transaction's
partitions to write its COMMIT or ABORT marker.

As Kafka 3.9's ``KafkaApis.handleWriteTxnMarkersRequest``: for each marker, a partition this
broker does not host (or hosts offline) is answered UNKNOWN_TOPIC_OR_PARTITION; the others get
one control batch each (:func:`protocol.records.control.build_end_txn_marker_batch`), appended
through the replica manager as the coordinator's append (the only way a control batch reaches
a log) with acks=all, within ``request.timeout.ms``. A partition this broker only follows is
answered NOT_LEADER_OR_FOLLOWER by the append; a stale producer or coordinator epoch
INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED by the producer state. Each marker is
answered once it is replicated to the ISR (the produce purgatory), the whole request once
every marker is. After a marker is written to partitions of ``__consumer_offsets``, the group
coordinator applies or drops the transaction's pending offsets there (Kafka's
``onTransactionCompleted``) before the answer goes.

Results are grouped by producer id, markers of the same producer merged, as Kafka's map of
errors does; the order follows the request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    write_txn_markers_request as req,
    write_txn_markers_response as m,
)
from protocol.records.control import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.cluster.replica_append import ProduceResult
from pybroker.cluster.replica_manager import AppendOrigin
from pybroker.kernel.outcome import is_pending, then
from pybroker.kernel.types import TopicPartition
from pybroker.metadata.topics import OFFSETS_TOPIC
from pybroker.security.acl import AclOperation

log = logging.getLogger(__name__)

ACKS_ALL = -1

Errors = dict[int, dict[TopicPartition, ErrorCode]]


def _complete_offsets(ctx: RequestContext, marker: req.WritableTxnMarker,
                      results: Mapping[TopicPartition, ProduceResult],
                      errors: dict[TopicPartition, ErrorCode]) -> None:
    """Tell the group coordinator of the marker written to partitions of
    ``__consumer_offsets``; if it fails, those partitions answer its error."""
    written = sorted(p for (topic, p), r in results.items()
                     if topic == OFFSETS_TOPIC and r.error == ErrorCode.NONE)
    if not written:
        return
    try:
        ctx.services.groups.complete_transaction(marker.producer_id, written,
                                                 marker.transaction_result)
    except Exception:
        log.exception("Completing the transaction of producer %d in %s partitions %s failed",
                      marker.producer_id, OFFSETS_TOPIC, written)
        for p in written:
            errors[(OFFSETS_TOPIC, p)] = ErrorCode.UNKNOWN_SERVER_ERROR


def _append_marker(ctx: RequestContext, marker: req.WritableTxnMarker,
                   ) -> tuple[dict[TopicPartition, ErrorCode],
                              asyncio.Future[dict[TopicPartition, ErrorCode]] | None]:
    """Append one marker to its partitions: the errors known at once, and a future of the
    others when the append waits for the ISR."""
    replicas = ctx.services.replica_manager
    control_type = ControlRecordType.COMMIT if marker.transaction_result \
        else ControlRecordType.ABORT
    end_marker = EndTransactionMarker(control_type, marker.coordinator_epoch)
    errors: dict[TopicPartition, ErrorCode] = {}
    batches: dict[TopicPartition, bytearray] = {}
    for topic in marker.topics:
        for index in topic.partition_indexes:
            key = (topic.name, index)
            partition = replicas.get_partition(topic.name, index)
            if partition is None or partition.log is None:
                errors[key] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            batches[key] = build_end_txn_marker_batch(
                marker.producer_id, marker.producer_epoch, end_marker, timestamp=ctx.now_ms)
    if not batches:
        return errors, None
    outcome = replicas.append_records(
        batches, required_acks=ACKS_ALL,
        timeout_ms=ctx.services.config.get_int("request.timeout.ms"), now_ms=ctx.now_ms,
        origin=AppendOrigin.COORDINATOR)

    def finish(results: dict[TopicPartition, ProduceResult]) -> dict[TopicPartition, ErrorCode]:
        done = {key: r.error for key, r in results.items()}
        _complete_offsets(ctx, marker, results, done)
        return done

    if is_pending(outcome):
        return errors, then(outcome, finish)
    errors.update(finish(outcome))
    return errors, None


def _response(errors: Errors) -> m.WriteTxnMarkersResponse:
    markers = []
    for producer_id, by_partition in errors.items():
        topics: dict[str, list[m.WritableTxnMarkerPartitionResult]] = {}
        for (topic, index), error in by_partition.items():
            topics.setdefault(topic, []).append(
                m.WritableTxnMarkerPartitionResult(partition_index=index, error_code=error))
        markers.append(m.WritableTxnMarkerResult(
            producer_id=producer_id,
            topics=[m.WritableTxnMarkerTopicResult(name=name, partitions=partitions)
                    for name, partitions in topics.items()]))
    return m.WriteTxnMarkersResponse(markers=markers)


@api(ApiKey.WRITE_TXN_MARKERS, 0, 1)
def handle(ctx: RequestContext, request: req.WriteTxnMarkersRequest,
           ) -> Response[m.WriteTxnMarkersResponse]:
    errors: Errors = {}
    acls = ctx.services.acls
    if not acls.authorize_cluster(ctx, AclOperation.ALTER) and not ctx.services.acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION):
        for marker in request.markers:
            errors.setdefault(marker.producer_id, {}).update(
                ((t.name, p), ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
                for t in marker.topics for p in t.partition_indexes)
        return _response(errors)
    waiting: list[tuple[int, asyncio.Future[dict[TopicPartition, ErrorCode]]]] = []
    for marker in request.markers:
        now, later = _append_marker(ctx, marker)
        errors.setdefault(marker.producer_id, {}).update(now)
        if later is not None:
            waiting.append((marker.producer_id, later))
    if not waiting:
        return _response(errors)

    def merge(answers: list[dict[TopicPartition, ErrorCode]]) -> m.WriteTxnMarkersResponse:
        for (producer_id, _), answer in zip(waiting, answers, strict=True):
            errors[producer_id].update(answer)
        return _response(errors)

    return then(asyncio.gather(*(f for _, f in waiting)), merge)
