"""ExpireDelegationToken (40): the owner or a renewer brings a token's expiry forward, or
removes it at once with a negative period (Kafka 3.9's ``handleExpireTokenRequest``)."""

from __future__ import annotations

from protocol.messages import (
    ApiKey,
    expire_delegation_token_request as req,
    expire_delegation_token_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.api.token_requests import change_token


def _answer(error_code: int, expiry_timestamp: int) -> m.ExpireDelegationTokenResponse:
    return m.ExpireDelegationTokenResponse(error_code=error_code,
                                           expiry_timestamp_ms=expiry_timestamp)


@api(ApiKey.EXPIRE_DELEGATION_TOKEN, 0, 2)
def handle(ctx: RequestContext, request: req.ExpireDelegationTokenRequest,
           ) -> Response[m.ExpireDelegationTokenResponse]:
    return change_token(ctx, _answer, lambda tokens: tokens.expire(
        ctx.principal, request.hmac, request.expiry_time_period_ms), "expire")
