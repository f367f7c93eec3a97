"""RenewDelegationToken (39): the owner or a renewer pushes a token's expiry out (Kafka 3.9's
``handleRenewTokenRequest``); the token is named by its HMAC."""

from __future__ import annotations

from protocol.messages import (
    ApiKey,
    renew_delegation_token_request as req,
    renew_delegation_token_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.api.token_requests import change_token


def _answer(error_code: int, expiry_timestamp: int) -> m.RenewDelegationTokenResponse:
    return m.RenewDelegationTokenResponse(error_code=error_code,
                                          expiry_timestamp_ms=expiry_timestamp)


@api(ApiKey.RENEW_DELEGATION_TOKEN, 0, 2)
def handle(ctx: RequestContext, request: req.RenewDelegationTokenRequest,
           ) -> Response[m.RenewDelegationTokenResponse]:
    return change_token(ctx, _answer, lambda tokens: tokens.renew(
        ctx.principal, request.hmac, request.renew_period_ms), "renew")
