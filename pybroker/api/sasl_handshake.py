"""SaslHandshake (17): the client names its SASL mechanism.

On a SASL listener the connection's authenticator (:mod:`pybroker.security.sasl`) answers:
the enabled mechanisms, or UNSUPPORTED_SASL_MECHANISM with them and the connection closed. v0
switches the connection to raw SASL tokens; v1 to SaslAuthenticate requests. An authenticated
connection (or one on a listener without SASL) is answered ILLEGAL_SASL_STATE, as Kafka's
KafkaApis answers, unless the handshake begins a re-authentication.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    sasl_handshake_request as req,
    sasl_handshake_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.api.sasl_authenticate import after_delay


@api(ApiKey.SASL_HANDSHAKE, 0, 1)
def handle(ctx: RequestContext, request: req.SaslHandshakeRequest,
           ) -> Response[m.SaslHandshakeResponse]:
    sasl = ctx.sasl
    if sasl is None:
        return m.SaslHandshakeResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE, mechanisms=[])
    answer = sasl.handshake(request.mechanism, ctx.api_version)
    response = m.SaslHandshakeResponse(error_code=answer.error_code,
                                       mechanisms=list(answer.mechanisms))
    if answer.close_after_ms is None:
        return response
    ctx.close_connection = True
    return after_delay(answer.close_after_ms, response)
