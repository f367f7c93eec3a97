"""CreateAcls (30): add ACL bindings (needs ALTER on the cluster)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, create_acls_request as req, create_acls_response as m
from pybroker.api.acl_requests import NO_AUTHORIZER, binding, check_codes, not_authorized
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import CLUSTER_NAME, AclOperation, ResourceType, check_binding
from pybroker.security.authorizer import AclError


def _response(errors: list[AclError | None]) -> m.CreateAclsResponse:
    return m.CreateAclsResponse(throttle_time_ms=0, results=[
        m.AclCreationResult(error_code=ErrorCode.NONE, error_message="") if e is None
        else m.AclCreationResult(error_code=e.code, error_message=e.message) for e in errors])


@api(ApiKey.CREATE_ACLS, 0, 3)
def handle(ctx: RequestContext, request: req.CreateAclsRequest,
           ) -> Response[m.CreateAclsResponse]:
    creations = request.creations
    for c in creations:
        check_codes(c.resource_type, c.resource_pattern_type, c.operation, c.permission_type,
                    "CreateAclsRequest")
    acls = ctx.services.acls
    n = len(creations)
    if not acls.authorize_cluster(ctx, AclOperation.ALTER):
        return _response([AclError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                                   not_authorized(ctx))] * n)
    if not acls.enabled:
        return _response([AclError(ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER)] * n)
    bindings = [binding(c.resource_type, c.resource_name, c.resource_pattern_type, c.principal,
                        c.host, c.operation, c.permission_type) for c in creations]
    try:
        for b in bindings:
            check_binding(b)
    except ValueError:
        # Kafka fails the whole request on a binding with ANY or MATCH in it
        return _response([AclError(ErrorCode.UNKNOWN_SERVER_ERROR, None)] * n)
    errors: list[AclError | None] = [None] * n
    valid: list[int] = []
    for i, b in enumerate(bindings):
        if b.pattern.resource_type is ResourceType.CLUSTER and b.pattern.name != CLUSTER_NAME:
            errors[i] = AclError(ErrorCode.INVALID_REQUEST,
                                 f"The only valid name for the CLUSTER resource is {CLUSTER_NAME}")
        elif not b.pattern.name:
            errors[i] = AclError(ErrorCode.INVALID_REQUEST, "Invalid empty resource name")
        else:
            valid.append(i)

    def answer(created: list[AclError | None]) -> m.CreateAclsResponse:
        for i, e in zip(valid, created, strict=True):
            errors[i] = e
        return _response(errors)

    return when_ready(acls.create([bindings[i] for i in valid]), answer)
