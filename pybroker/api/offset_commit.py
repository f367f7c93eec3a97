"""OffsetCommit (8): a member's (or a simple consumer's) committed offsets, written to
``__consumer_offsets`` in one batch. The ACL checks are the handler's; validation, the
group's verdict and the write are the group service's (``commit_offsets``)."""

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
    wanted = []
    for topic in request.topics:
        for p in topic.partitions:
            if topic.name not in readable:
                errors[(topic.name, p.partition_index)] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            else:
                wanted.append(OffsetToCommit(
                    topic.name, p.partition_index, p.committed_offset,
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
    # answered once the commit is replicated to the ISR (at once on a single node)
    return when_ready(groups.commit_offsets(
        request.group_id,
        request.member_id if v >= 1 else "",
        request.group_instance_id if v >= 7 else None,
        request.generation_id_or_member_epoch if v >= 1 else -1,
        wanted, ctx.now_ms,
        request.retention_time_ms if 2 <= v <= 4 else -1,
        api_version=v,
    ), respond)
