"""DeleteAcls (31): remove the ACL bindings each filter selects (needs ALTER on the cluster)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, delete_acls_request as req, delete_acls_response as m
from pybroker.api.acl_requests import (
    NO_AUTHORIZER,
    binding_filter,
    check_codes,
    not_authorized,
    sort_key,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclBinding, AclOperation


def _failed(n: int, code: ErrorCode, message: str) -> m.DeleteAclsResponse:
    return m.DeleteAclsResponse(throttle_time_ms=0, filter_results=[
        m.DeleteAclsFilterResult(error_code=code, error_message=message) for _ in range(n)])


def _response(deleted: list[list[AclBinding]]) -> m.DeleteAclsResponse:
    return m.DeleteAclsResponse(throttle_time_ms=0, filter_results=[
        m.DeleteAclsFilterResult(error_code=ErrorCode.NONE, error_message=None, matching_acls=[
            m.DeleteAclsMatchingAcl(
                error_code=ErrorCode.NONE, error_message=None,
                resource_type=b.pattern.resource_type, resource_name=b.pattern.name,
                pattern_type=b.pattern.pattern_type, principal=b.entry.principal,
                host=b.entry.host, operation=b.entry.operation,
                permission_type=b.entry.permission_type)
            for b in sorted(bindings, key=sort_key)])
        for bindings in deleted])


@api(ApiKey.DELETE_ACLS, 0, 3)
def handle(ctx: RequestContext, request: req.DeleteAclsRequest,
           ) -> Response[m.DeleteAclsResponse]:
    for f in request.filters:
        check_codes(f.resource_type_filter, f.pattern_type_filter, f.operation,
                    f.permission_type, "DeleteAclsRequest")
    acls = ctx.services.acls
    n = len(request.filters)
    if not acls.authorize_cluster(ctx, AclOperation.ALTER):
        return _failed(n, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, not_authorized(ctx))
    if not acls.enabled:
        return _failed(n, ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER)
    deleted = acls.delete([
        binding_filter(f.resource_type_filter, f.resource_name_filter, f.pattern_type_filter,
                       f.principal_filter, f.host_filter, f.operation, f.permission_type)
        for f in request.filters])
    return when_ready(deleted, _response)
