"""CreatePartitions (37): grow a topic's partition count (the controller checks and decides)."""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    create_partitions_request as req,
    create_partitions_response as m,
)
from pybroker.admin import NewPartitions
from pybroker.api.context import RequestContext
from pybroker.api.quotas import mutation_quota, throttled
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation, ResourceType

#: from v3 the controller mutation quota is strict (KIP-599)
STRICT_MUTATIONS_VERSION = 3


@api(ApiKey.CREATE_PARTITIONS, 0, 3)
def handle(ctx: RequestContext, request: req.CreatePartitionsRequest,
           ) -> Response[m.CreatePartitionsResponse]:
    counts: dict[str, int] = {}
    for t in request.topics:
        counts[t.name] = counts.get(t.name, 0) + 1
    alterable = ctx.services.acls.authorized(ctx, AclOperation.ALTER, ResourceType.TOPIC, counts)
    results: list[m.CreatePartitionsTopicResult] = []
    asked: list[tuple[m.CreatePartitionsTopicResult, NewPartitions]] = []
    for t in request.topics:
        if any(r.name == t.name for r in results):
            continue  # one result per topic name, as Kafka answers from a map
        result = m.CreatePartitionsTopicResult(name=t.name, error_code=ErrorCode.NONE,
                                               error_message=None)
        results.append(result)
        if counts[t.name] > 1:
            result.error_code = ErrorCode.INVALID_REQUEST
            result.error_message = "Duplicate topic in request."
            continue
        if t.name not in alterable:
            result.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            result.error_message = "The topic authorization is failed."
            continue
        assignments = ([tuple(a.broker_ids) for a in t.assignments]
                       if t.assignments is not None else None)
        asked.append((result, NewPartitions(t.name, t.count, assignments)))
    mutations = mutation_quota(ctx, STRICT_MUTATIONS_VERSION)
    outcome = ctx.services.admin.create_partitions(
        [n for _, n in asked], validate_only=request.validate_only,
        timeout_ms=request.timeout_ms, now_ms=ctx.now_ms, mutations=mutations)

    def respond(errors: list[KafkaError | None]) -> m.CreatePartitionsResponse:
        for (result, _), error in zip(asked, errors, strict=True):
            if error is not None:
                result.error_code, result.error_message = error.code, error.message
        return m.CreatePartitionsResponse(throttle_time_ms=throttled(ctx, mutations),
                                          results=results)

    return when_ready(outcome, respond)
