"""DescribeUserScramCredentials (50): which SCRAM mechanisms each user has, with iterations."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_user_scram_credentials_request as req,
    describe_user_scram_credentials_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation


@api(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0)
def handle(ctx: RequestContext, request: req.DescribeUserScramCredentialsRequest,
           ) -> m.DescribeUserScramCredentialsResponse:
    credentials = ctx.services.credentials
    if credentials is None:
        return m.DescribeUserScramCredentialsResponse(
            error_code=ErrorCode.UNSUPPORTED_VERSION,
            error_message="This broker keeps no SCRAM credentials")
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.DESCRIBE):
        # Kafka's error response: one result per user asked for, without its name
        return m.DescribeUserScramCredentialsResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None,
            results=[m.DescribeUserScramCredentialsResult(
                user="", error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
                for _ in request.users or ()])
    users = None if request.users is None else [u.name for u in request.users]
    return m.DescribeUserScramCredentialsResponse(
        error_code=ErrorCode.NONE,
        results=[m.DescribeUserScramCredentialsResult(
            user=r.user, error_code=r.error_code, error_message=r.error_message or "",
            credential_infos=[m.CredentialInfo(mechanism=mech, iterations=iterations)
                              for mech, iterations in r.credentials])
            for r in credentials.describe(users)])
