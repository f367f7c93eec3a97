"""Heartbeat (12): keeps a member alive and tells it when to rejoin."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, heartbeat_request as req, heartbeat_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.HEARTBEAT, 0, 4)
def handle(ctx: RequestContext, request: req.HeartbeatRequest) -> m.HeartbeatResponse:
    if not ctx.services.acls.authorize(ctx, AclOperation.READ, ResourceType.GROUP,
                                       request.group_id):
        return m.HeartbeatResponse(throttle_time_ms=0,
                                   error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    error = ctx.services.groups.coordinator.handle_heartbeat(
        request.group_id, request.member_id,
        request.group_instance_id if ctx.api_version >= 3 else None,
        request.generation_id, ctx.now_ms)
    return m.HeartbeatResponse(throttle_time_ms=0, error_code=error)
