"""DescribeClientQuotas (48): the quotas of users, client ids and IPs that match a filter.

The filter's components name an entity type each, matched EXACT (a name), DEFAULT or ANY
(Kafka's SPECIFIED); ``strict`` leaves out entities with parts the filter does not name. Like
Kafka in ZooKeeper mode, the answer reads the store itself, not this broker's copy of it.
``kafka-configs --describe --entity-type users|clients|ips`` asks for it (and, for users,
before it describes their SCRAM credentials).
"""

from __future__ import annotations

from collections.abc import Awaitable

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_client_quotas_request as req,
    describe_client_quotas_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.quota.entities import Component, QuotaError, QuotaFilter
from pybroker.security.acl import AclOperation


def _error(code: int, message: str | None) -> m.DescribeClientQuotasResponse:
    return m.DescribeClientQuotasResponse(error_code=code, error_message=message, entries=None)


@api(ApiKey.DESCRIBE_CLIENT_QUOTAS, 0, 1)
def handle(ctx: RequestContext, request: req.DescribeClientQuotasRequest,
           ) -> m.DescribeClientQuotasResponse | Awaitable[m.DescribeClientQuotasResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.DESCRIBE_CONFIGS):
        return _error(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, None)
    try:
        quota_filter = QuotaFilter(tuple(Component(c.entity_type, c.match_type, c.match)
                                         for c in request.components), request.strict)
    except QuotaError as e:
        return _error(e.code, e.message)
    store = ctx.services.client_quotas
    if store is None:
        return m.DescribeClientQuotasResponse(error_code=ErrorCode.NONE, entries=[])

    async def describe() -> m.DescribeClientQuotasResponse:
        try:
            found = await store.describe(quota_filter)
        except Exception as e:  # ZooKeeper unreachable: Kafka's generic error response
            return _error(ErrorCode.UNKNOWN_SERVER_ERROR, str(e) or None)
        return m.DescribeClientQuotasResponse(error_code=ErrorCode.NONE, entries=[
            m.EntryData(entity=[m.EntityData(entity_type=t, entity_name=n)
                                for t, n in entity.wire()],
                        values=[m.ValueData(key=k, value=v) for k, v in values.items()])
            for entity, values in found])

    return describe()
