"""SyncGroup (14): the leader hands out assignments; every member gets its own."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, sync_group_request as req, sync_group_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.coordinator.group import SyncRequest
from pybroker.coordinator.group_service import responder
from pybroker.kernel.outcome import then
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.SYNC_GROUP, 0, 5)
def handle(ctx: RequestContext, request: req.SyncGroupRequest) -> Response[m.SyncGroupResponse]:
    version = ctx.api_version
    if version >= 5 and (request.protocol_type is None or request.protocol_name is None):
        # From v5 both are mandatory: Kafka refuses the request before the coordinator sees it.
        return m.SyncGroupResponse(throttle_time_ms=0,
                                   error_code=ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
    if not ctx.services.acls.authorize(ctx, AclOperation.READ, ResourceType.GROUP,
                                       request.group_id):
        return m.SyncGroupResponse(throttle_time_ms=0,
                                   error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED,
                                   protocol_type=None, protocol_name=None, assignment=b"")
    fut, respond = responder()
    ctx.services.groups.coordinator.handle_sync_group(SyncRequest(
        group_id=request.group_id,
        generation_id=request.generation_id,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id if version >= 3 else None,
        assignments={a.member_id: a.assignment for a in request.assignments},
        protocol_type=request.protocol_type if version >= 5 else None,
        protocol_name=request.protocol_name if version >= 5 else None,
    ), ctx.now_ms, respond)
    return then(fut, lambda r: m.SyncGroupResponse(
        throttle_time_ms=0, error_code=r.error_code, protocol_type=r.protocol_type,
        protocol_name=r.protocol_name, assignment=r.assignment))
