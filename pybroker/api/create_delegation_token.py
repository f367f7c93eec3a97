"""CreateDelegationToken (38): a token for the requester, or for another owner (KIP-373) when
the requester may CREATE_TOKENS on that user; its renewers must be users. Any broker makes it
(ZooKeeper mode forwards nothing), as Kafka 3.9's ``handleCreateTokenRequest`` does."""

from __future__ import annotations

import asyncio
import logging

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    create_delegation_token_request as req,
    create_delegation_token_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.api.services import TokenCreated
from pybroker.api.token_requests import token_requests_allowed
from pybroker.security.acl import AclOperation, ResourceType
from pybroker.security.principal import USER_TYPE, KafkaPrincipal

log = logging.getLogger(__name__)


def _answer(version: int, error: int, owner: KafkaPrincipal, requester: KafkaPrincipal,
            created: TokenCreated | None = None) -> m.CreateDelegationTokenResponse:
    """Kafka's ``CreateDelegationTokenResponse.prepareResponse``: the owner always, the
    requester from v3, -1 timestamps and an empty id and HMAC on an error."""
    token = created.token if created is not None else None
    response = m.CreateDelegationTokenResponse(
        error_code=error, principal_type=owner.principal_type, principal_name=owner.name,
        issue_timestamp_ms=-1, expiry_timestamp_ms=-1, max_timestamp_ms=-1)
    if token is not None and created is not None:
        response.issue_timestamp_ms = token.issue_timestamp
        response.expiry_timestamp_ms = token.expiry_timestamp
        response.max_timestamp_ms = token.max_timestamp
        response.token_id = token.token_id
        response.hmac = created.hmac
    if version > 2:
        response.token_requester_principal_type = requester.principal_type
        response.token_requester_principal_name = requester.name
    return response


@api(ApiKey.CREATE_DELEGATION_TOKEN, 0, 3)
def handle(ctx: RequestContext, request: req.CreateDelegationTokenRequest,
           ) -> Response[m.CreateDelegationTokenResponse]:
    requester = ctx.principal
    owner = KafkaPrincipal(request.owner_principal_type or "", request.owner_principal_name) \
        if request.owner_principal_name else requester
    renewers = [KafkaPrincipal(r.principal_type, r.principal_name) for r in request.renewers]
    version = ctx.api_version
    if not token_requests_allowed(ctx):
        return _answer(version, ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, owner, requester)
    if owner != requester and not ctx.services.acls.authorize(
            ctx, AclOperation.CREATE_TOKENS, ResourceType.USER, str(owner)):
        return _answer(version, ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED, owner,
                       requester)
    if any(r.principal_type != USER_TYPE for r in renewers):
        return _answer(version, ErrorCode.INVALID_PRINCIPAL_TYPE, owner, requester)
    tokens = ctx.services.tokens
    if tokens is None or not tokens.enabled:
        return _answer(version, ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, owner, requester)

    async def create() -> m.CreateDelegationTokenResponse:
        try:
            created = await tokens.create(owner, requester, renewers, request.max_lifetime_ms)
        except Exception:  # ZooKeeper failed the write: Kafka's error response
            log.exception("could not create a delegation token for %s", owner)
            return _answer(version, ErrorCode.UNKNOWN_SERVER_ERROR, owner, requester)
        return _answer(version, created.error_code, owner, requester, created)

    return asyncio.ensure_future(create())
