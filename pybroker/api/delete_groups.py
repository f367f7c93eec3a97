"""DeleteGroups (42): remove Empty groups with their committed offsets."""

from __future__ import annotations

from protocol.messages import ApiKey, delete_groups_request as req, delete_groups_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api


@api(ApiKey.DELETE_GROUPS, 0, 2)
def handle(ctx: RequestContext, request: req.DeleteGroupsRequest) -> m.DeleteGroupsResponse:
    results = ctx.services.groups.coordinator.handle_delete_groups(request.groups_names,
                                                                 ctx.now_ms)
    return m.DeleteGroupsResponse(throttle_time_ms=0, results=[
        m.DeletableGroupResult(group_id=g, error_code=e) for g, e in results.items()])
