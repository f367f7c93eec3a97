"""OffsetDelete (47): drop a group's committed offsets for partitions it no longer consumes."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, offset_delete_request as req, offset_delete_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.OFFSET_DELETE, 0, 0)
def handle(ctx: RequestContext, request: req.OffsetDeleteRequest) -> m.OffsetDeleteResponse:
    groups = ctx.services.groups
    acls = ctx.services.acls
    if not acls.authorize(ctx, AclOperation.DELETE, ResourceType.GROUP, request.group_id):
        return m.OffsetDeleteResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED,
                                      throttle_time_ms=0)
    readable = acls.authorized(ctx, AclOperation.READ, ResourceType.TOPIC,
                               (t.name for t in request.topics))
    topics = [t.name for t in request.topics if t.name in readable]
    error, subscribed = groups.coordinator.validate_delete_offsets(request.group_id, topics)
    if error:
        return m.OffsetDeleteResponse(error_code=error, throttle_time_ms=0)
    errors: dict[tuple[str, int], ErrorCode] = {}
    deletable = []
    for t in request.topics:
        for p in t.partitions:
            key = (t.name, p.partition_index)
            if t.name not in readable:
                errors[key] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            elif t.name in subscribed:
                errors[key] = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
            elif ctx.services.metadata_cache.partition(t.name, p.partition_index) is None:
                errors[key] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            else:
                deletable.append(key)
    if deletable:
        groups.delete_offsets(request.group_id, deletable, ctx.now_ms)
    return m.OffsetDeleteResponse(
        error_code=ErrorCode.NONE, throttle_time_ms=0,
        topics=[m.OffsetDeleteResponseTopic(name=t.name, partitions=[
            m.OffsetDeleteResponsePartition(
                partition_index=p.partition_index,
                error_code=errors.get((t.name, p.partition_index), ErrorCode.NONE))
            for p in t.partitions]) for t in request.topics])
