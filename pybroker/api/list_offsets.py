"""ListOffsets (2): earliest, latest, or the first offset at or after a timestamp.

The partition answers (:meth:`pybroker.cluster.partition.Partition.fetch_offset_for_timestamp`);
this handler only decides which special timestamps each version may ask for. A request from a
replica (``replica_id`` >= 0: a follower asking where its leader's log ends) reads up to the log
end, a consumer's up to the high watermark, or the last stable offset with ``isolation_level``
1 (read_committed, v2+), as on Kafka.

v0 is the old lookup Kafka still answers it with: up to ``max_num_offsets`` offsets before a
time, by segment file (:mod:`pybroker.cluster.legacy_offsets`), in ``old_style_offsets``.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, list_offsets_request as req, list_offsets_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.cluster.partition import (
    EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    LATEST_TIERED_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
)
from pybroker.security.acl import AclOperation, ResourceType

#: the special timestamps each version introduced (KIP-734, KIP-405, KIP-1005)
SPECIAL_FROM_VERSION = {
    LATEST_TIMESTAMP: 0,
    EARLIEST_TIMESTAMP: 0,
    MAX_TIMESTAMP: 7,
    EARLIEST_LOCAL_TIMESTAMP: 8,
    LATEST_TIERED_TIMESTAMP: 9,
}


def _lookup(ctx: RequestContext, topic: str, p: req.ListOffsetsPartition, replica_id: int,
            isolation_level: int) -> m.ListOffsetsPartitionResponse:
    version = ctx.api_version
    resp = m.ListOffsetsPartitionResponse(partition_index=p.partition_index)
    epoch = p.current_leader_epoch if version >= 4 else -1
    replicas = ctx.services.replica_manager
    try:
        if p.timestamp < 0 and version < SPECIAL_FROM_VERSION.get(p.timestamp, 1 << 15):
            # the replica's checks come first: an unknown, not-led or fenced partition says so
            replicas.fetch_offset_for_timestamp(topic, p.partition_index, LATEST_TIMESTAMP, epoch,
                                                replica_id, isolation_level)
            raise KafkaError(ErrorCode.UNSUPPORTED_VERSION,
                             f"timestamp spec {p.timestamp} needs a newer ListOffsets version")
        found = replicas.fetch_offset_for_timestamp(topic, p.partition_index, p.timestamp, epoch,
                                                    replica_id, isolation_level)
    except KafkaError as e:
        resp.error_code = e.code
        if e.code == ErrorCode.OFFSET_NOT_AVAILABLE and version < 5:
            resp.error_code = ErrorCode.LEADER_NOT_AVAILABLE  # as Kafka answers older clients
        return resp
    resp.error_code = ErrorCode.NONE
    resp.offset = found.offset
    resp.timestamp = found.timestamp
    resp.leader_epoch = found.leader_epoch
    return resp


def _lookup_v0(ctx: RequestContext, topic: str, p: req.ListOffsetsPartition, replica_id: int,
               ) -> m.ListOffsetsPartitionResponse:
    """Kafka's ``handleListOffsetRequestV0``: LATEST and EARLIEST are the only special
    timestamps, asked of no partition before being refused."""
    resp = m.ListOffsetsPartitionResponse(partition_index=p.partition_index,
                                          old_style_offsets=[])
    if p.timestamp < EARLIEST_TIMESTAMP:
        resp.error_code = ErrorCode.UNSUPPORTED_VERSION
        return resp
    try:
        resp.old_style_offsets = ctx.services.replica_manager.legacy_fetch_offsets_before(
            topic, p.partition_index, p.timestamp, p.max_num_offsets, replica_id, ctx.now_ms)
    except KafkaError as e:
        resp.error_code = e.code
    return resp


@api(ApiKey.LIST_OFFSETS, 0, 9)
def handle(ctx: RequestContext, request: req.ListOffsetsRequest) -> m.ListOffsetsResponse:
    topics = []
    seen: set[tuple[str, int]] = set()
    describable = ctx.services.acls.authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                               (t.name for t in request.topics))
    denied = []
    for topic in request.topics:
        if topic.name not in describable:
            denied.append(m.ListOffsetsTopicResponse(name=topic.name, partitions=[
                m.ListOffsetsPartitionResponse(partition_index=p.partition_index,
                                               error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                for p in topic.partitions]))
            continue
        partitions = []
        for p in topic.partitions:
            key = (topic.name, p.partition_index)
            if key in seen and ctx.api_version >= 1:
                partitions.append(m.ListOffsetsPartitionResponse(
                    partition_index=p.partition_index, error_code=ErrorCode.INVALID_REQUEST))
                continue
            seen.add(key)
            if ctx.api_version == 0:
                partitions.append(_lookup_v0(ctx, topic.name, p, request.replica_id))
            else:
                partitions.append(_lookup(ctx, topic.name, p, request.replica_id,
                                          request.isolation_level))
        topics.append(m.ListOffsetsTopicResponse(name=topic.name, partitions=partitions))
    return m.ListOffsetsResponse(throttle_time_ms=0, topics=topics + denied)
