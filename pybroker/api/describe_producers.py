"""DescribeProducers (61): the producers a partition's log keeps state for.

As Kafka's ``KafkaApis.handleDescribeProducersRequest``: a topic name that is not legal answers
INVALID_TOPIC_EXCEPTION and one that does not exist UNKNOWN_TOPIC_OR_PARTITION, for each of its
partitions; otherwise each partition answers from its local log, or with
UNKNOWN_TOPIC_OR_PARTITION / NOT_LEADER_OR_FOLLOWER when there is none and KAFKA_STORAGE_ERROR
when its log dir is offline. Each producer comes with the epoch of the coordinator that wrote
its last transaction marker here and the first offset of its open transaction (-1 for none),
which ``kafka-transactions.sh find-hanging`` compares with the transaction coordinators' state.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    describe_producers_request as req,
    describe_producers_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.metadata.topics import validate_topic_name
from pybroker.security.acl import AclOperation, ResourceType


def _topic_error(ctx: RequestContext, name: str) -> KafkaError | None:
    if not ctx.services.acls.authorize(ctx, AclOperation.READ, ResourceType.TOPIC, name):
        return KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed.")
    try:
        validate_topic_name(name)
    except KafkaError as e:
        return e
    if ctx.services.metadata_cache.topic(name) is None:
        return KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                          "This server does not host this topic-partition.")
    return None


def _active_producers(ctx: RequestContext, topic: str, partition_index: int
                      ) -> m.PartitionResponse:
    out = m.PartitionResponse(partition_index=partition_index, error_code=ErrorCode.NONE)
    try:
        producers = ctx.services.replica_manager.active_producers(topic, partition_index)
    except KafkaError as e:
        out.error_code = e.code
        if e.code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and \
                ctx.services.metadata_cache.partition(topic, partition_index) is not None:
            out.error_code = ErrorCode.NOT_LEADER_OR_FOLLOWER  # a partition hosted elsewhere
        return out
    out.active_producers = [
        m.ProducerState(
            producer_id=pid,
            producer_epoch=entry.epoch,
            last_sequence=entry.last_seq,
            # the timestamp of the producer's last batch, which Kafka reports
            last_timestamp=entry.batches[-1].timestamp if entry.batches else entry.last_timestamp,
            coordinator_epoch=entry.coordinator_epoch,
            current_txn_start_offset=entry.current_txn_first_offset,
        )
        for pid, entry in sorted(producers.items())
    ]
    return out


@api(ApiKey.DESCRIBE_PRODUCERS, 0, 0)
def handle(ctx: RequestContext, request: req.DescribeProducersRequest,
           ) -> m.DescribeProducersResponse:
    topics = []
    for t in request.topics:
        error = _topic_error(ctx, t.name)
        if error is not None:
            partitions = [m.PartitionResponse(partition_index=p, error_code=error.code,
                                              error_message=error.message)
                          for p in t.partition_indexes]
        else:
            partitions = [_active_producers(ctx, t.name, p) for p in t.partition_indexes]
        topics.append(m.TopicResponse(name=t.name, partitions=partitions))
    return m.DescribeProducersResponse(throttle_time_ms=0, topics=topics)
