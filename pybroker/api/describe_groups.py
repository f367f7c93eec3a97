"""DescribeGroups (15): state, protocol and members (metadata and assignment verbatim)."""

from __future__ import annotations

from protocol.messages import describe_groups_response as m
from pybroker.api.registry import api


@api(15, 0, 5)
def handle(ctx, request) -> m.DescribeGroupsResponse:
    coordinator = ctx.broker.groups.coordinator
    out = []
    for group_id in request.groups:
        r = coordinator.handle_describe_group(group_id)
        s = r.summary
        out.append(m.DescribedGroup(
            error_code=r.error_code, group_id=group_id, group_state=s.state,
            protocol_type=s.protocol_type, protocol_data=s.protocol,
            members=[m.DescribedGroupMember(
                member_id=x.member_id, group_instance_id=x.group_instance_id,
                client_id=x.client_id, client_host=x.client_host,
                member_metadata=x.metadata, member_assignment=x.assignment)
                for x in s.members]))
    return m.DescribeGroupsResponse(throttle_time_ms=0, groups=out)
