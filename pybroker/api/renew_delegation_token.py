"""RenewDelegationToken (39): the owner or a renewer pushes a token's expiry out (Kafka 3.9's
``handleRenewTokenRequest``); the token is named by its HMAC."""

from __future__ import annotations

import asyncio
import logging

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    renew_delegation_token_request as req,
    renew_delegation_token_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.api.token_requests import token_requests_allowed
from pybroker.security.delegation_tokens import ERROR_TIMESTAMP

log = logging.getLogger(__name__)


@api(ApiKey.RENEW_DELEGATION_TOKEN, 0, 2)
def handle(ctx: RequestContext, request: req.RenewDelegationTokenRequest,
           ) -> Response[m.RenewDelegationTokenResponse]:
    if not token_requests_allowed(ctx):
        return m.RenewDelegationTokenResponse(
            error_code=ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED,
            expiry_timestamp_ms=ERROR_TIMESTAMP)
    tokens = ctx.services.tokens
    if tokens is None or not tokens.enabled:
        return m.RenewDelegationTokenResponse(
            error_code=ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED,
            expiry_timestamp_ms=ERROR_TIMESTAMP)

    async def renew() -> m.RenewDelegationTokenResponse:
        try:
            decision = await tokens.renew(ctx.principal, request.hmac, request.renew_period_ms)
        except Exception:  # ZooKeeper failed the write: Kafka's error response
            log.exception("could not renew a delegation token")
            return m.RenewDelegationTokenResponse(error_code=ErrorCode.UNKNOWN_SERVER_ERROR,
                                                 expiry_timestamp_ms=ERROR_TIMESTAMP)
        return m.RenewDelegationTokenResponse(error_code=decision.error_code,
                                              expiry_timestamp_ms=decision.expiry_timestamp)

    return asyncio.ensure_future(renew())
