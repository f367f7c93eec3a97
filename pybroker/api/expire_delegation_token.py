"""ExpireDelegationToken (40): the owner or a renewer brings a token's expiry forward, or
removes it at once with a negative period (Kafka 3.9's ``handleExpireTokenRequest``)."""

from __future__ import annotations

import asyncio
import logging

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    expire_delegation_token_request as req,
    expire_delegation_token_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.api.token_requests import token_requests_allowed
from pybroker.security.delegation_tokens import ERROR_TIMESTAMP

log = logging.getLogger(__name__)


@api(ApiKey.EXPIRE_DELEGATION_TOKEN, 0, 2)
def handle(ctx: RequestContext, request: req.ExpireDelegationTokenRequest,
           ) -> Response[m.ExpireDelegationTokenResponse]:
    if not token_requests_allowed(ctx):
        return m.ExpireDelegationTokenResponse(
            error_code=ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED,
            expiry_timestamp_ms=ERROR_TIMESTAMP)
    tokens = ctx.services.tokens
    if tokens is None or not tokens.enabled:
        return m.ExpireDelegationTokenResponse(
            error_code=ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED,
            expiry_timestamp_ms=ERROR_TIMESTAMP)

    async def expire() -> m.ExpireDelegationTokenResponse:
        try:
            decision = await tokens.expire(ctx.principal, request.hmac, request.expiry_time_period_ms)
        except Exception:  # ZooKeeper failed the write: Kafka's error response
            log.exception("could not expire a delegation token")
            return m.ExpireDelegationTokenResponse(error_code=ErrorCode.UNKNOWN_SERVER_ERROR,
                                                 expiry_timestamp_ms=ERROR_TIMESTAMP)
        return m.ExpireDelegationTokenResponse(error_code=decision.error_code,
                                               expiry_timestamp_ms=decision.expiry_timestamp)

    return asyncio.ensure_future(expire())
