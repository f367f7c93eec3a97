"""SaslAuthenticate (36): one SASL token each way, after SaslHandshake v1.

The connection's authenticator (:mod:`pybroker.security.sasl`) evaluates the token. A failure
answers SASL_AUTHENTICATION_FAILED with Kafka's message, held back
``connection.failed.authentication.delay.ms``, and the connection closes after it; success
from v1 on tells the client when its session ends (KIP-368).
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    sasl_authenticate_request as req,
    sasl_authenticate_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import settle

T = TypeVar("T")


def after_delay(delay_ms: int, response: T) -> Response[T]:
    """``response``, sent ``delay_ms`` later (a failed authentication's answer)."""
    if delay_ms <= 0:
        return response
    fut: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(delay_ms / 1000, settle, fut, response)
    return fut


@api(ApiKey.SASL_AUTHENTICATE, 0, 2)
def handle(ctx: RequestContext, request: req.SaslAuthenticateRequest,
           ) -> Response[m.SaslAuthenticateResponse] | None:
    sasl = ctx.sasl
    if sasl is None:
        return m.SaslAuthenticateResponse(
            error_code=ErrorCode.ILLEGAL_SASL_STATE,
            error_message="SaslAuthenticate request received after successful authentication")
    answer = sasl.authenticate(bytes(request.auth_bytes), ctx.api_version, ctx.now_ms)
    if answer.unanswered:
        ctx.close_connection = True
        return None
    response = m.SaslAuthenticateResponse(
        error_code=answer.error_code, error_message=answer.error_message or "",
        auth_bytes=answer.auth_bytes, session_lifetime_ms=answer.session_lifetime_ms)
    if answer.close_after_ms is None:
        return response
    ctx.close_connection = True
    return after_delay(answer.close_after_ms, response)
