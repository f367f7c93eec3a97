"""DeleteGroups (42): remove Empty groups with their committed offsets."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, delete_groups_request as req, delete_groups_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.DELETE_GROUPS, 0, 2)
def handle(ctx: RequestContext, request: req.DeleteGroupsRequest) -> m.DeleteGroupsResponse:
    names = list(dict.fromkeys(request.groups_names))
    deletable = ctx.services.acls.authorized(ctx, AclOperation.DELETE, ResourceType.GROUP, names)
    results = ctx.services.groups.delete_groups(
        [g for g in names if g in deletable], ctx.now_ms)
    results.update({g: ErrorCode.GROUP_AUTHORIZATION_FAILED for g in names
                    if g not in deletable})
    return m.DeleteGroupsResponse(throttle_time_ms=0, results=[
        m.DeletableGroupResult(group_id=g, error_code=e) for g, e in results.items()])
