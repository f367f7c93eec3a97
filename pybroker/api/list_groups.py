"""ListGroups (16): groups with their protocol type, state (v4+) and type (v5+)."""

from __future__ import annotations

from protocol.messages import ApiKey, list_groups_request as req, list_groups_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.LIST_GROUPS, 0, 5)
def handle(ctx: RequestContext, request: req.ListGroupsRequest) -> m.ListGroupsResponse:
    v = ctx.api_version
    error, listed = ctx.services.groups.list_groups(
        request.states_filter if v >= 4 else (), request.types_filter if v >= 5 else ())
    # DESCRIBE on the cluster lists every group; otherwise those the client may describe
    acls = ctx.services.acls
    if not acls.authorize_cluster(ctx, AclOperation.DESCRIBE):
        visible = acls.authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP,
                                  (g.group_id for g in listed))
        listed = [g for g in listed if g.group_id in visible]
    return m.ListGroupsResponse(
        throttle_time_ms=0, error_code=error,
        groups=[m.ListedGroup(group_id=g.group_id, protocol_type=g.protocol_type,
                              group_state=g.state, group_type=g.group_type)
                for g in listed])
