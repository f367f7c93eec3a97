"""DescribeAcls (29): the ACL bindings a filter selects (needs DESCRIBE on the cluster)."""

from __future__ import annotations

from itertools import groupby

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, describe_acls_request as req, describe_acls_response as m
from pybroker.api.acl_requests import binding_filter, check_codes, not_authorized, sort_key
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation


@api(ApiKey.DESCRIBE_ACLS, 0, 3)
def handle(ctx: RequestContext, request: req.DescribeAclsRequest) -> m.DescribeAclsResponse:
    r = request
    check_codes(r.resource_type_filter, r.pattern_type_filter, r.operation, r.permission_type,
                "DescribeAclsRequest")
    acls = ctx.services.acls
    if not acls.authorize_cluster(ctx, AclOperation.DESCRIBE):
        return m.DescribeAclsResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                                      error_message=not_authorized(ctx))
    if not acls.enabled:
        return m.DescribeAclsResponse(error_code=ErrorCode.SECURITY_DISABLED,
                                      error_message="No Authorizer is configured on the broker")
    found = sorted(acls.describe(binding_filter(
        r.resource_type_filter, r.resource_name_filter, r.pattern_type_filter,
        r.principal_filter, r.host_filter, r.operation, r.permission_type)), key=sort_key)
    return m.DescribeAclsResponse(
        error_code=ErrorCode.NONE, error_message="",
        resources=[m.DescribeAclsResource(
            resource_type=pattern.resource_type, resource_name=pattern.name,
            pattern_type=pattern.pattern_type,
            acls=[m.AclDescription(principal=b.entry.principal, host=b.entry.host,
                                   operation=b.entry.operation,
                                   permission_type=b.entry.permission_type) for b in group])
            for pattern, group in groupby(found, key=lambda b: b.pattern)])
