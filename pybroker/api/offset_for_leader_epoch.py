"""OffsetForLeaderEpoch (23): where a leader epoch ends in the leader's log.

Followers ask it to find where their log parts from their leader's (KIP-101, KIP-279) when the
divergence does not ride on Fetch; consumers ask it after a leader change to check that the
position they hold still exists (KIP-320). The leader answers from its leader epoch cache: the
largest epoch not above the one asked and the offset where it ended (the log end offset for
the current epoch), or -1/-1 when the epoch is undefined. A ``current_leader_epoch`` (v2+)
older than the partition's is FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH; a broker
that is not the leader answers NOT_LEADER_OR_FOLLOWER, and one that does not host the partition
UNKNOWN_TOPIC_OR_PARTITION unless its metadata knows the partition (then NOT_LEADER_OR_FOLLOWER),
as Kafka's ``ReplicaManager.lastOffsetForLeaderEpoch``.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    offset_for_leader_epoch_request as req,
    offset_for_leader_epoch_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType

CURRENT_LEADER_EPOCH_MIN_VERSION = 2
NO_EPOCH = -1


def _end_offset(ctx: RequestContext, topic: str, p: req.OffsetForLeaderPartition,
                ) -> m.EpochEndOffset:
    current = p.current_leader_epoch \
        if ctx.api_version >= CURRENT_LEADER_EPOCH_MIN_VERSION else NO_EPOCH
    error, epoch, end_offset = ctx.services.replica_manager.last_offset_for_leader_epoch(
        topic, p.partition, current, p.leader_epoch)
    if error == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION \
            and ctx.services.metadata_cache.partition(topic, p.partition) is not None:
        error = ErrorCode.NOT_LEADER_OR_FOLLOWER
    return m.EpochEndOffset(error_code=error, partition=p.partition, leader_epoch=epoch,
                            end_offset=end_offset)


@api(ApiKey.OFFSET_FOR_LEADER_EPOCH, 0, 4)
def handle(ctx: RequestContext, request: req.OffsetForLeaderEpochRequest,
           ) -> m.OffsetForLeaderEpochResponse:
    # followers need CLUSTER_ACTION, consumers (KIP-320) DESCRIBE on each topic
    acls = ctx.services.acls
    describable = ({t.topic for t in request.topics}
                   if acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION)
                   else acls.authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                        (t.topic for t in request.topics)))
    return m.OffsetForLeaderEpochResponse(throttle_time_ms=0, topics=[
        m.OffsetForLeaderTopicResult(topic=t.topic, partitions=[
            _end_offset(ctx, t.topic, p) for p in t.partitions])
        for t in request.topics if t.topic in describable] + [
        m.OffsetForLeaderTopicResult(topic=t.topic, partitions=[
            m.EpochEndOffset(partition=p.partition,
                             error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED,
                             leader_epoch=-1, end_offset=-1) for p in t.partitions])
        for t in request.topics if t.topic not in describable])
