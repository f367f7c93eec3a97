"""LeaveGroup (13): one member (v0-2) or a batch with instance ids (v3+); classic members of
a consumer group (KIP-848) are answered once their removal is written."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, leave_group_request as req, leave_group_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.coordinator.group import LeaveGroupResult, LeavingMember
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.LEAVE_GROUP, 0, 5)
def handle(ctx: RequestContext, request: req.LeaveGroupRequest,
           ) -> Response[m.LeaveGroupResponse]:
    if not ctx.services.acls.authorize(ctx, AclOperation.READ, ResourceType.GROUP,
                                       request.group_id):
        return m.LeaveGroupResponse(throttle_time_ms=0,
                                    error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if ctx.api_version >= 3:
        leaving = [LeavingMember(x.member_id, x.group_instance_id,
                                 x.reason if ctx.api_version >= 5 else None)
                   for x in request.members]
    else:
        leaving = [LeavingMember(request.member_id)]
    outcome = ctx.services.groups.coordinator.handle_leave_group(request.group_id, leaving,
                                                               ctx.now_ms)

    def respond(result: LeaveGroupResult) -> m.LeaveGroupResponse:
        error = result.error_code
        if ctx.api_version < 3 and not error and result.members:
            error = result.members[0].error_code
        return m.LeaveGroupResponse(
            throttle_time_ms=0,
            error_code=error,
            members=[m.MemberResponse(member_id=x.member_id,
                                      group_instance_id=x.group_instance_id,
                                      error_code=x.error_code) for x in result.members],
        )

    return when_ready(outcome, respond)
