"""JoinGroup (11): join a classic group; answered when the rebalance completes."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, join_group_request as req, join_group_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.coordinator.group import JoinGroupResult, JoinRequest
from pybroker.coordinator.group_service import responder
from pybroker.kernel.outcome import then
from pybroker.security.acl import AclOperation, ResourceType


def _response(result: JoinGroupResult, version: int) -> m.JoinGroupResponse:
    return m.JoinGroupResponse(
        throttle_time_ms=0,
        error_code=result.error_code,
        generation_id=result.generation_id,
        protocol_type=result.protocol_type,
        # Before v7 the name is not nullable: an empty string stands for "none".
        protocol_name=result.protocol_name if version >= 7 else (result.protocol_name or ""),
        leader=result.leader_id,
        skip_assignment=result.skip_assignment,
        member_id=result.member_id,
        members=[m.JoinGroupResponseMember(member_id=x.member_id,
                                           group_instance_id=x.group_instance_id,
                                           metadata=x.metadata) for x in result.members],
    )


@api(ApiKey.JOIN_GROUP, 0, 9)
def handle(ctx: RequestContext, request: req.JoinGroupRequest) -> Response[m.JoinGroupResponse]:
    version = ctx.api_version
    if not ctx.services.acls.authorize(ctx, AclOperation.READ, ResourceType.GROUP,
                                       request.group_id):
        return m.JoinGroupResponse(throttle_time_ms=0,
                                   error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED,
                                   generation_id=-1, protocol_name=None if version >= 7 else "",
                                   leader="", member_id="")
    fut, respond = responder()
    ctx.services.groups.coordinator.handle_join_group(JoinRequest(
        group_id=request.group_id,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id if version >= 5 else None,
        client_id=ctx.client_id or "",
        client_host="/" + ctx.peer.rsplit(":", 1)[0],
        rebalance_timeout_ms=request.rebalance_timeout_ms if version >= 1
        else request.session_timeout_ms,
        session_timeout_ms=request.session_timeout_ms,
        protocol_type=request.protocol_type,
        protocols=[(p.name, p.metadata) for p in request.protocols],
        require_known_member_id=version >= 4,
        supports_skipping_assignment=version >= 9,
        reason=request.reason if version >= 8 else None,
    ), ctx.now_ms, respond)
    return then(fut, lambda result: _response(result, version))
