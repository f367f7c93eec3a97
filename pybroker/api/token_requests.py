"""What the delegation token handlers share (Kafka's ``KafkaApis.allowTokenRequests``): tokens
are made, renewed, expired and described only over a connection that authenticated - SASL, or
TLS with a client certificate - and not with a token itself; and Renew and Expire differ only
in the change they ask of the token service."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from protocol.errors import ErrorCode
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response
from pybroker.api.services import DelegationTokenService
from pybroker.security.delegation_tokens import ERROR_TIMESTAMP, Decision
from pybroker.security.principal import ANONYMOUS

log = logging.getLogger(__name__)

R = TypeVar("R")


def token_requests_allowed(ctx: RequestContext) -> bool:
    """False on a PLAINTEXT listener, on TLS without a client certificate, and on a
    connection that authenticated with a delegation token."""
    principal = ctx.principal
    if principal.token_authenticated:
        return False
    return ctx.sasl is not None or principal != ANONYMOUS


def change_token(ctx: RequestContext, answer: Callable[[int, int], R],
                 change: Callable[[DelegationTokenService], Awaitable[Decision]],
                 what: str) -> Response[R]:
    """RenewDelegationToken's and ExpireDelegationToken's handling: refused where token
    requests are not allowed or tokens are off, else ``change`` made by the token service;
    ``answer(error code, expiry timestamp)`` builds the response."""
    if not token_requests_allowed(ctx):
        return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, ERROR_TIMESTAMP)
    tokens = ctx.services.tokens
    if tokens is None or not tokens.enabled:
        return answer(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, ERROR_TIMESTAMP)

    async def run(service: DelegationTokenService) -> R:
        try:
            decision = await change(service)
        except Exception:  # ZooKeeper failed the write: Kafka's error response
            log.exception("could not %s a delegation token", what)
            return answer(ErrorCode.UNKNOWN_SERVER_ERROR, ERROR_TIMESTAMP)
        return answer(decision.error_code, decision.expiry_timestamp)

    return asyncio.ensure_future(run(tokens))
