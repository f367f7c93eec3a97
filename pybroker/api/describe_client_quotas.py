"""DescribeClientQuotas (48): client quotas by user, client id and IP.

This broker enforces no client quotas and stores none, so every valid filter matches nothing;
the answer still checks the filter as Kafka does. ``kafka-configs --describe --entity-type
users`` asks for it before it describes the users' SCRAM credentials.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_client_quotas_request as req,
    describe_client_quotas_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation

ENTITY_TYPES = ("user", "client-id", "ip")


def _filter_error(components: list[req.ComponentData]) -> tuple[ErrorCode, str] | None:
    """Kafka's refusals of a filter: a custom entity type is UNSUPPORTED_VERSION, the others
    INVALID_REQUEST."""
    seen: set[str] = set()
    for c in components:
        if c.entity_type not in ENTITY_TYPES:
            return (ErrorCode.UNSUPPORTED_VERSION,
                    f"Custom entity type '{c.entity_type}' not supported")
        if c.entity_type in seen:
            return (ErrorCode.INVALID_REQUEST,
                    f"Duplicate {c.entity_type} filter component entity type")
        seen.add(c.entity_type)
    if "ip" in seen and len(seen) > 1:
        return (ErrorCode.INVALID_REQUEST,
                "Invalid entity filter component combination, IP filter component should not "
                "be used with user or clientId filter component.")
    return None


@api(ApiKey.DESCRIBE_CLIENT_QUOTAS, 0, 1)
def handle(ctx: RequestContext, request: req.DescribeClientQuotasRequest,
           ) -> m.DescribeClientQuotasResponse:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.DESCRIBE_CONFIGS):
        return m.DescribeClientQuotasResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None, entries=None)
    error = _filter_error(request.components)
    if error is not None:
        return m.DescribeClientQuotasResponse(error_code=error[0], error_message=error[1],
                                              entries=None)
    return m.DescribeClientQuotasResponse(error_code=ErrorCode.NONE, entries=[])
