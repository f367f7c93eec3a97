"""Produce (0): append each partition's record batch to the leader's log.

From v3 a partition's records are one v2 batch, appended without being decoded. Versions 0-2
carry the message sets of old clients (magic 0 and 1), which are validated and converted to one
v2 batch first, as Kafka 3.9 does (:mod:`pybroker.api.produce_legacy`). Version 13 (topic ids
only) is not offered.

Transactional records (a partition's first batch has the transactional attribute) need the
request's transactional id: without one, every partition is answered
TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as Kafka answers a producer not authorized to write for
a transactional id. With one, the replica manager verifies the producer's transaction with its
coordinator before the first batch of the transaction goes into a partition (KIP-890); batches
of more than one producer fail the whole request (INVALID_PRODUCER_ID_MAPPING).
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, produce_request as req, produce_response as m
from protocol.records.batch import (
    LOG_OVERHEAD,
    BatchHeader,
    peek_offset_and_length,
    transactional_producer,
)
from protocol.records.compression import CompressionType
from pybroker.api import produce_legacy
from pybroker.api.context import RequestContext
from pybroker.api.leader_hints import current_leader, leader_endpoint
from pybroker.api.registry import Response, api
from pybroker.cluster.replica_append import ProduceResult
from pybroker.cluster.txn_verification import TxnErrorMode
from pybroker.kernel.outcome import when_ready
from pybroker.kernel.types import TopicPartition
from pybroker.metadata.topics import INTERNAL_TOPICS
from pybroker.security.acl import AclOperation, ResourceType

#: the first version whose records must be one v2 batch; below it, old message sets
V2_ONLY_VERSION = 3
#: Kafka sends an error message only for record-level validation failures (its
#: RecordValidationException); batch-level refusals carry the code alone
ERRORS_WITH_MESSAGE = frozenset({ErrorCode.INVALID_TIMESTAMP})
ZSTD_MIN_VERSION = 7
#: a v10+ NOT_LEADER_OR_FOLLOWER names the current leader and its endpoint (KIP-951)
CURRENT_LEADER_MIN_VERSION = 10


def validate_records(records: bytes | bytearray | memoryview | None, version: int) -> BatchHeader:
    """The checks Kafka makes on the request itself before the log sees it."""
    if records is None or len(records) == 0:
        raise KafkaError(ErrorCode.INVALID_RECORD, "Produce request carried no records")
    if len(records) < LOG_OVERHEAD:
        raise KafkaError(ErrorCode.CORRUPT_MESSAGE, "record batch is truncated")
    _, batch_length = peek_offset_and_length(records)
    if batch_length + LOG_OVERHEAD != len(records):
        if batch_length + LOG_OVERHEAD < len(records):
            raise KafkaError(ErrorCode.INVALID_RECORD,
                             "Produce requests with version 3 and above must have exactly one "
                             "record batch per partition")
        raise KafkaError(ErrorCode.CORRUPT_MESSAGE, "record batch is truncated")
    header = BatchHeader.parse(records)
    if header.compression == CompressionType.ZSTD and version < ZSTD_MIN_VERSION:
        raise KafkaError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
                         "Produce requests with version below 7 cannot use zstd compression")
    if header.compression > CompressionType.ZSTD:
        raise KafkaError(ErrorCode.CORRUPT_MESSAGE, f"unknown compression codec {header.compression}")
    return header


def read_headers(request: req.ProduceRequest, version: int,
                 ) -> tuple[dict[TopicPartition, BatchHeader | KafkaError],
                            dict[TopicPartition, tuple[int, int, int]]]:
    """Each partition's batch header, read once per request (or why its records are refused:
    :func:`validate_records`), and ``(producer id, producer epoch, base sequence)`` of each
    partition whose batch is transactional (Kafka's ``RequestUtils.hasTransactionalRecords``
    asks whether there is one, before anything else is checked). The replica manager and the
    log take the headers as they are."""
    headers: dict[TopicPartition, BatchHeader | KafkaError] = {}
    producers: dict[TopicPartition, tuple[int, int, int]] = {}
    for topic in request.topic_data:
        for pdata in topic.partition_data:
            key = (topic.name, pdata.index)
            # (typed, not cast: typing.cast is a call, once per partition of every request)
            records: bytes | bytearray | memoryview | None = pdata.records  # type: ignore[assignment]
            found: tuple[int, int, int] | None = None
            try:
                header = headers[key] = validate_records(records, version)
            except KafkaError as e:
                headers[key] = e
                if isinstance(records, (bytes, bytearray, memoryview)):
                    found = transactional_producer(records)  # as Kafka reads any first batch
            else:
                if header.is_transactional and header.has_producer_id:
                    found = (header.producer_id, header.producer_epoch, header.base_sequence)
            if found is not None:
                producers[key] = found
    return headers, producers


def error_response(ctx: RequestContext, request: req.ProduceRequest, error: ErrorCode,
                   message: str | None = None) -> m.ProduceResponse | None:
    """The whole request refused (Kafka's ``getErrorResponse``): every partition with
    ``error``; an acks=0 producer has its connection closed instead."""
    if request.acks == 0:
        ctx.close_connection = True
        return None
    return m.ProduceResponse(throttle_time_ms=0, responses=[
        m.TopicProduceResponse(name=topic.name, partition_responses=[
            m.PartitionProduceResponse(index=p.index, error_code=error, base_offset=-1,
                                       log_append_time_ms=-1, log_start_offset=-1,
                                       error_message=message)
            for p in topic.partition_data])
        for topic in request.topic_data])


def writable_batch(records: bytes | bytearray | memoryview) -> bytearray | memoryview:
    """The batch to append, which the log rewrites in place (base offset, leader epoch): the
    request's own bytes when they are writable (the network layer reads every request into a
    buffer of its own, so nothing else sees them), else a copy."""
    if isinstance(records, memoryview) and not records.readonly:
        return records
    return bytearray(records)


def _throttle(ctx: RequestContext) -> int:
    """Charge the request's size to the producer's byte-rate quota once it is answered (as
    Kafka does, after the append): the throttle time, which also mutes the connection (an
    acks=0 producer's too, though it reads no response). Nothing while no quota exists."""
    produce = ctx.services.quotas.produce
    if not produce.enabled:
        return 0
    user, client_id, now_ms = ctx.principal.name, ctx.client_id or "", produce.clock.milliseconds()
    throttle_ms = produce.record(user, client_id, ctx.request_size, now_ms)
    if throttle_ms:
        produce.throttled(user, client_id, throttle_ms, now_ms)
        ctx.throttle_ms = max(ctx.throttle_ms, throttle_ms)
    return throttle_ms


@api(ApiKey.PRODUCE, 0, 11)
def handle(ctx: RequestContext, request: req.ProduceRequest) -> Response[m.ProduceResponse | None]:
    acks = request.acks
    version = ctx.api_version
    replica_manager = ctx.services.replica_manager
    acls = ctx.services.acls
    headers, producers = (read_headers(request, version) if version >= V2_ONLY_VERSION
                          else ({}, {}))
    if producers and (
            request.transactional_id is None or not acls.authorize(
                ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id)):
        return error_response(ctx, request, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    writable = acls.authorized(ctx, AclOperation.WRITE, ResourceType.TOPIC,
                               (t.name for t in request.topic_data))
    # (topic, partition) -> the answer decided here, before the replica manager sees it (a
    # refusal, or NONE for an old request's empty message set, of which nothing is appended)
    refused: dict[tuple[str, int], tuple[ErrorCode, str | None]] = {}
    batches: dict[tuple[str, int], bytearray | memoryview] = {}
    batch_headers: dict[tuple[str, int], BatchHeader] = {}
    for topic in request.topic_data:
        for pdata in topic.partition_data:
            key = (topic.name, pdata.index)
            if topic.name not in writable:
                refused[key] = (ErrorCode.TOPIC_AUTHORIZATION_FAILED, None)
            elif topic.name in INTERNAL_TOPICS:
                refused[key] = (ErrorCode.INVALID_TOPIC_EXCEPTION,
                                f"Cannot append to internal topic {topic.name}")
            elif acks not in (0, 1, -1):
                refused[key] = (ErrorCode.INVALID_REQUIRED_ACKS, None)
            elif (error := replica_manager.partition_error(topic.name, pdata.index)):
                refused[key] = (error, None)  # not hosted, or in an offline log dir
            elif version < V2_ONLY_VERSION:
                records = pdata.records
                # a decoded request's records are a memoryview, or None
                assert records is None or isinstance(records, (bytes, bytearray, memoryview))
                try:
                    converted = produce_legacy.to_v2_batch(
                        records, ctx.services.configs.log_config(topic.name), ctx.now_ms)
                except KafkaError as e:
                    refused[key] = (e.code, e.message)
                    continue
                if converted is None:
                    refused[key] = (ErrorCode.NONE, None)
                else:
                    batches[key] = converted
            else:
                checked = headers[key]
                if isinstance(checked, KafkaError):
                    refused[key] = (checked.code, checked.message)
                    continue
                # a decoded request's records are a view of the frame (never a splice), not
                # None (refused above)
                batches[key] = writable_batch(pdata.records)  # type: ignore[arg-type]
                batch_headers[key] = checked
    try:
        outcome = replica_manager.handle_produce_append(
            batches, transactional_id=request.transactional_id if version >= V2_ONLY_VERSION
            else None, required_acks=acks, timeout_ms=request.timeout_ms, now_ms=ctx.now_ms,
            mode=TxnErrorMode.for_produce(version), producers=producers,
            headers=batch_headers)
    except KafkaError as e:  # transactional batches of more than one producer
        return error_response(ctx, request, e.code, e.message)

    def respond(results: dict[tuple[str, int], ProduceResult]) -> m.ProduceResponse | None:
        responses = []
        failed = False
        nodes: dict[int, m.NodeEndpoint] = {}
        for topic in request.topic_data:
            partition_responses = []
            for pdata in topic.partition_data:
                key = (topic.name, pdata.index)
                result = results.get(key)
                if result is None:
                    error, message = refused[key]
                    result = ProduceResult(error=error, error_message=message)
                failed |= result.error != ErrorCode.NONE
                answer = m.PartitionProduceResponse(
                    index=pdata.index,
                    error_code=result.error,
                    base_offset=result.base_offset,
                    log_append_time_ms=result.log_append_time,
                    log_start_offset=result.log_start_offset,
                    # Kafka words a refusal that names records (a RecordValidationException)
                    error_message=(result.error_message
                                   if result.error in ERRORS_WITH_MESSAGE or result.record_errors
                                   or result.has_custom_message else None),
                    record_errors=[m.BatchIndexAndErrorMessage(batch_index=i,
                                                               batch_index_error_message=text)
                                   for i, text in result.record_errors],
                )
                partition_responses.append(answer)
                if version >= CURRENT_LEADER_MIN_VERSION \
                        and result.error == ErrorCode.NOT_LEADER_OR_FOLLOWER:
                    leader, epoch = current_leader(ctx, topic.name, pdata.index)
                    answer.current_leader = m.LeaderIdAndEpoch(leader_id=leader,
                                                               leader_epoch=epoch)
                    node = leader_endpoint(ctx, leader)
                    if node is not None:
                        nodes[leader] = m.NodeEndpoint(node_id=node.node_id, host=node.host,
                                                       port=node.port, rack=node.rack)
            responses.append(m.TopicProduceResponse(name=topic.name,
                                                    partition_responses=partition_responses))
        throttle_ms = _throttle(ctx)
        if acks == 0:
            # An acks=0 producer reads no response; Kafka closes its connection on failure so
            # the client notices, refreshes metadata and carries on.
            if failed:
                ctx.close_connection = True
            return None
        return m.ProduceResponse(responses=responses, throttle_time_ms=throttle_ms,
                                 node_endpoints=[nodes[n] for n in sorted(nodes)])

    return when_ready(outcome, respond)
