"""What the delegation token handlers share (Kafka's ``KafkaApis.allowTokenRequests``): tokens
are made, renewed, expired and described only over a connection that authenticated - SASL, or
TLS with a client certificate - and not with a token itself."""

from __future__ import annotations

from pybroker.api.context import RequestContext
from pybroker.security.principal import ANONYMOUS


def token_requests_allowed(ctx: RequestContext) -> bool:
    """False on a PLAINTEXT listener, on TLS without a client certificate, and on a
    connection that authenticated with a delegation token."""
    principal = ctx.principal
    if principal.token_authenticated:
        return False
    return ctx.sasl is not None or principal != ANONYMOUS
