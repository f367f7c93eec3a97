"""OffsetDelete (47): drop a group's committed offsets for partitions it no longer consumes.
The ACL checks are the handler's; the group's verdict and the removal are the group
service's (``remove_offsets``)."""

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
    error, errors = groups.remove_offsets(
        request.group_id, [(t.name, p.partition_index) for t in request.topics
                           if t.name in readable for p in t.partitions], ctx.now_ms)
    if error:
        return m.OffsetDeleteResponse(error_code=error, throttle_time_ms=0)
    for t in request.topics:
        if t.name not in readable:
            for p in t.partitions:
                errors[(t.name, p.partition_index)] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
    return m.OffsetDeleteResponse(
        error_code=ErrorCode.NONE, throttle_time_ms=0,
        topics=[m.OffsetDeleteResponseTopic(name=t.name, partitions=[
            m.OffsetDeleteResponsePartition(
                partition_index=p.partition_index,
                error_code=errors.get((t.name, p.partition_index), ErrorCode.NONE))
            for p in t.partitions]) for t in request.topics])
