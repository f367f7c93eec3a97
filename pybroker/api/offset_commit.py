"""OffsetCommit (8): a member's (or a simple consumer's) committed offsets, written to
``__consumer_offsets`` in one batch."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, offset_commit_request as req, offset_commit_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.coordinator.group.offsets import OffsetToCommit
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.OFFSET_COMMIT, 0, 9)
def handle(ctx: RequestContext, request: req.OffsetCommitRequest,
           ) -> Response[m.OffsetCommitResponse]:
    v = ctx.api_version
    groups = ctx.services.groups
    cache = ctx.services.metadata_cache
    errors: dict[tuple[str, int], ErrorCode] = {}
    acls = ctx.services.acls
    if not acls.authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return m.OffsetCommitResponse(throttle_time_ms=0, topics=[
            m.OffsetCommitResponseTopic(name=topic.name, partitions=[
                m.OffsetCommitResponsePartition(
                    partition_index=p.partition_index,
                    error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
                for p in topic.partitions])
            for topic in request.topics])
    readable = acls.authorized(ctx, AclOperation.READ, ResourceType.TOPIC,
                               (t.name for t in request.topics))
    known = []
    for topic in request.topics:
        for p in topic.partitions:
            if topic.name not in readable:
                errors[(topic.name, p.partition_index)] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            elif cache.partition(topic.name, p.partition_index) is None:
                errors[(topic.name, p.partition_index)] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            else:
                known.append((topic.name, p))
    # As in Kafka, unknown partitions are answered before the group is looked at: a request
    # naming none that exists reaches no group (and creates none).
    error = groups.coordinator.handle_commit_offsets(
        request.group_id,
        request.member_id if v >= 1 else "",
        request.group_instance_id if v >= 7 else None,
        request.generation_id_or_member_epoch if v >= 1 else -1,
        ctx.now_ms,
    ) if known else ErrorCode.NONE
    wanted = []
    for name, p in known:
        if error:
            errors[(name, p.partition_index)] = error
        else:
            wanted.append(OffsetToCommit(
                name, p.partition_index, p.committed_offset,
                p.committed_leader_epoch if v >= 6 else -1,
                p.committed_metadata,
                p.commit_timestamp if v == 1 else -1,
            ))
    def respond(stored: dict[tuple[str, int], ErrorCode]) -> m.OffsetCommitResponse:
        errors.update(stored)
        return m.OffsetCommitResponse(
            throttle_time_ms=0,
            topics=[
                m.OffsetCommitResponseTopic(name=topic.name, partitions=[
                    m.OffsetCommitResponsePartition(
                        partition_index=p.partition_index,
                        error_code=errors.get((topic.name, p.partition_index), ErrorCode.NONE))
                    for p in topic.partitions])
                for topic in request.topics
            ],
        )

    if not wanted:
        return respond({})
    retention = request.retention_time_ms if 2 <= v <= 4 else -1
    # answered once the commit is replicated to the ISR (at once on a single node)
    return when_ready(groups.offsets.commit(request.group_id, wanted, ctx.now_ms, retention),
                      respond)
