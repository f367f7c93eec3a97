"""DescribeDelegationToken (41): the tokens of the owners asked for (all of them for a null
list, none for an empty one) that the requester owns, requested or renews, or may describe
(DESCRIBE on the token, DESCRIBE_TOKENS on its owner), as Kafka 3.9's
``handleDescribeTokensRequest`` filters them."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_delegation_token_request as req,
    describe_delegation_token_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.api.token_requests import token_requests_allowed
from pybroker.security.acl import AclOperation, ResourceType
from pybroker.security.delegation_tokens import describable
from pybroker.security.principal import KafkaPrincipal


@api(ApiKey.DESCRIBE_DELEGATION_TOKEN, 0, 3)
def handle(ctx: RequestContext, request: req.DescribeDelegationTokenRequest,
           ) -> m.DescribeDelegationTokenResponse:
    if not token_requests_allowed(ctx):
        return m.DescribeDelegationTokenResponse(
            error_code=ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED)
    tokens = ctx.services.tokens
    if tokens is None or not tokens.enabled:
        return m.DescribeDelegationTokenResponse(
            error_code=ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED)
    if request.owners is not None and not request.owners:
        return m.DescribeDelegationTokenResponse(error_code=ErrorCode.NONE)
    owners = None if request.owners is None else \
        [KafkaPrincipal(o.principal_type, o.principal_name) for o in request.owners]
    acls = ctx.services.acls

    def may_describe_token(token_id: str) -> bool:
        return acls.authorize(ctx, AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN,
                              token_id)

    def may_describe_owner(owner: KafkaPrincipal) -> bool:
        return acls.authorize(ctx, AclOperation.DESCRIBE_TOKENS, ResourceType.USER, str(owner))

    described = []
    for info, mac in tokens.tokens():
        if not describable(info, ctx.principal, owners, may_describe_token, may_describe_owner):
            continue
        token = m.DescribedDelegationToken(
            principal_type=info.owner.principal_type, principal_name=info.owner.name,
            issue_timestamp=info.issue_timestamp, expiry_timestamp=info.expiry_timestamp,
            max_timestamp=info.max_timestamp, token_id=info.token_id, hmac=mac,
            renewers=[m.DescribedDelegationTokenRenewer(principal_type=r.principal_type,
                                                        principal_name=r.name)
                      for r in info.renewers])
        if ctx.api_version > 2:
            token.token_requester_principal_type = info.token_requester.principal_type
            token.token_requester_principal_name = info.token_requester.name
        described.append(token)
    return m.DescribeDelegationTokenResponse(error_code=ErrorCode.NONE, tokens=described)
