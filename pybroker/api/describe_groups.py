"""DescribeGroups (15): state, protocol and members (metadata and assignment verbatim)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, describe_groups_request as req, describe_groups_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType

#: "not asked for" (Kafka's default)
NO_OPERATIONS = -(2**31)


@api(ApiKey.DESCRIBE_GROUPS, 0, 5)
def handle(ctx: RequestContext, request: req.DescribeGroupsRequest) -> m.DescribeGroupsResponse:
    coordinator = ctx.services.groups.coordinator
    with_operations = ctx.api_version >= 3 and request.include_authorized_operations
    acls = ctx.services.acls
    out = []
    described = []
    for group_id in request.groups:
        if acls.authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            described.append(group_id)
        else:
            out.append(m.DescribedGroup(
                error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED, group_id=group_id,
                group_state="", protocol_type="", protocol_data="", members=[],
                authorized_operations=NO_OPERATIONS))
    for group_id in described:
        r = coordinator.handle_describe_group(group_id)
        s = r.summary
        out.append(m.DescribedGroup(
            error_code=r.error_code, group_id=group_id, group_state=s.state,
            protocol_type=s.protocol_type, protocol_data=s.protocol,
            members=[m.DescribedGroupMember(
                member_id=x.member_id, group_instance_id=x.group_instance_id,
                client_id=x.client_id, client_host=x.client_host,
                member_metadata=x.metadata, member_assignment=x.assignment)
                for x in s.members],
            authorized_operations=acls.authorized_operations(ctx, ResourceType.GROUP, group_id)
            if with_operations and r.error_code == ErrorCode.NONE else NO_OPERATIONS))
    return m.DescribeGroupsResponse(throttle_time_ms=0, groups=out)
