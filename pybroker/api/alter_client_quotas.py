"""AlterClientQuotas (49): set or remove the quotas of users, client ids and IPs.

Each entry is answered on its own, as Kafka's ``ZkAdminManager.alterClientQuotas`` answers it:
a bad entity or op fails that entry (INVALID_REQUEST with Kafka's message), the others are
written. Any broker takes the request; the quotas reach every broker through the store's
change notifications. ``kafka-configs --alter --entity-type users|clients|ips`` sends it.
"""

from __future__ import annotations

from collections.abc import Awaitable

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    alter_client_quotas_request as req,
    alter_client_quotas_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.quota.entities import Op, QuotaEntity, QuotaError, parse_entity
from pybroker.security.acl import AclOperation

#: Kafka's Errors.CLUSTER_AUTHORIZATION_FAILED.message()
CLUSTER_AUTHORIZATION_FAILED_MESSAGE = "Cluster authorization failed."
UNKNOWN_SERVER_ERROR_MESSAGE = ("The server experienced an unexpected error when processing "
                                "the request.")


def _entities(entry: req.EntryData) -> list[m.EntityData]:
    return [m.EntityData(entity_type=e.entity_type, entity_name=e.entity_name)
            for e in entry.entity]


def _error_response(request: req.AlterClientQuotasRequest, code: int,
                    message: str) -> m.AlterClientQuotasResponse:
    return m.AlterClientQuotasResponse(entries=[
        m.EntryData(error_code=code, error_message=message, entity=_entities(e))
        for e in request.entries])


def _parsed(entry: req.EntryData) -> tuple[QuotaEntity | QuotaError, list[Op]]:
    try:
        entity: QuotaEntity | QuotaError = parse_entity(
            [(e.entity_type, e.entity_name) for e in entry.entity])
    except QuotaError as e:
        entity = e
    return entity, [Op(o.key, o.value, o.remove) for o in entry.ops]


@api(ApiKey.ALTER_CLIENT_QUOTAS, 0, 1)
def handle(ctx: RequestContext, request: req.AlterClientQuotasRequest,
           ) -> m.AlterClientQuotasResponse | Awaitable[m.AlterClientQuotasResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.ALTER_CONFIGS):
        return _error_response(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                               CLUSTER_AUTHORIZATION_FAILED_MESSAGE)
    store = ctx.services.client_quotas
    if store is None:
        return _error_response(request, ErrorCode.UNKNOWN_SERVER_ERROR,
                               UNKNOWN_SERVER_ERROR_MESSAGE)
    entries = [_parsed(e) for e in request.entries]

    async def alter() -> m.AlterClientQuotasResponse:
        outcomes = await store.alter(entries, request.validate_only)
        return m.AlterClientQuotasResponse(entries=[
            m.EntryData(error_code=ErrorCode.NONE if error is None else error.code,
                        error_message=None if error is None else error.message,
                        entity=_entities(entry))
            for entry, error in zip(request.entries, outcomes, strict=True)])

    return alter()
