"""AlterUserScramCredentials (51): add, replace or delete users' SCRAM credentials.

Clients send the salted password, never the password; the broker stores the salt, stored key,
server key and iterations, as Kafka does (``kafka-configs --alter --add-config
'SCRAM-SHA-256=[iterations=8192,password=...]' --entity-type users``).
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    alter_user_scram_credentials_request as req,
    alter_user_scram_credentials_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation
from pybroker.security.credentials import Deletion, Upsertion, UserResult


def _response(results: list[UserResult]) -> m.AlterUserScramCredentialsResponse:
    return m.AlterUserScramCredentialsResponse(results=[
        m.AlterUserScramCredentialsResult(user=r.user, error_code=r.error_code,
                                          error_message=r.error_message or "")
        for r in results])


@api(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, 0, 0)
def handle(ctx: RequestContext, request: req.AlterUserScramCredentialsRequest,
           ) -> Response[m.AlterUserScramCredentialsResponse]:
    credentials = ctx.services.credentials
    if credentials is None:
        names = dict.fromkeys([u.name for u in request.upsertions]
                              + [d.name for d in request.deletions])
        return _response([UserResult(n, ErrorCode.UNSUPPORTED_VERSION,
                                     "This broker keeps no SCRAM credentials") for n in names])
    controller = ctx.services.controller
    if controller is not None and not controller.is_active:
        # ZooKeeper mode: only the controller alters credentials (Kafka's KafkaApis)
        users = sorted({u.name for u in request.upsertions} | {d.name for d in request.deletions})
        return _response([UserResult(n, ErrorCode.NOT_CONTROLLER,
                                     "This is not the correct controller for this cluster.")
                          for n in users])
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.ALTER):
        users = sorted({u.name for u in request.upsertions} | {d.name for d in request.deletions})
        # Kafka's error response carries no message
        return m.AlterUserScramCredentialsResponse(results=[
            m.AlterUserScramCredentialsResult(
                user=n, error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
            for n in users])
    upsertions = [Upsertion(u.name, u.mechanism, u.iterations, u.salt, u.salted_password)
                  for u in request.upsertions]
    deletions = [Deletion(d.name, d.mechanism) for d in request.deletions]
    return when_ready(credentials.alter(upsertions, deletions), _response)
