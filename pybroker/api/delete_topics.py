"""DeleteTopics (20): by name (v0-5) or by name or topic id (v6), through the admin seam."""

from __future__ import annotations

import uuid

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, delete_topics_request as req, delete_topics_response as m
from pybroker.api.context import RequestContext
from pybroker.api.quotas import mutation_quota, throttled
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.metadata.model import TopicRecord
from pybroker.security.acl import AclOperation, ResourceType

ZERO_UUID = uuid.UUID(int=0)


#: from v5 the controller mutation quota is strict (KIP-599)
STRICT_MUTATIONS_VERSION = 5


@api(ApiKey.DELETE_TOPICS, 0, 6)
def handle(ctx: RequestContext, request: req.DeleteTopicsRequest,
           ) -> Response[m.DeleteTopicsResponse]:
    services = ctx.services
    if ctx.api_version >= 6:
        wanted = [(t.name, t.topic_id) for t in request.topics]
    else:
        wanted = [(name, ZERO_UUID) for name in request.topic_names]
    acls = ctx.services.acls
    results = []
    deletable: list[m.DeletableTopicResult] = []
    names: list[str] = []  # the names of the deletable topics, in the same order
    for name, topic_id in wanted:
        result = m.DeletableTopicResult(name=name, topic_id=topic_id, error_code=ErrorCode.NONE,
                                        error_message=None)
        results.append(result)
        # as Kafka: no message with these errors
        if not services.config.get_bool("delete.topic.enable"):
            result.error_code = (ErrorCode.INVALID_REQUEST if ctx.api_version < 3
                                 else ErrorCode.TOPIC_DELETION_DISABLED)
            continue
        if name is None and topic_id != ZERO_UUID:
            name = services.metadata_cache.topic_name(topic_id)
            if name is None:
                result.error_code = ErrorCode.UNKNOWN_TOPIC_ID
                continue
            result.name = name
            if not acls.authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name):
                # named by id: the name of a topic the client may not describe stays hidden
                result.name = None
                result.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
                continue
        if name is not None and not acls.authorize(ctx, AclOperation.DELETE, ResourceType.TOPIC,
                                                   name):
            result.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            continue
        if name is None or services.metadata_cache.topic(name) is None \
                or any(r.name == name for r in deletable):  # (named twice: gone the 2nd time)
            result.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            continue
        deletable.append(result)
        names.append(name)
    mutations = mutation_quota(ctx, STRICT_MUTATIONS_VERSION)
    outcome = services.admin.delete_topics(names, timeout_ms=request.timeout_ms,
                                           now_ms=ctx.now_ms, mutations=mutations)

    def respond(deleted: list[TopicRecord | KafkaError]) -> m.DeleteTopicsResponse:
        for result, outcome in zip(deletable, deleted, strict=True):
            if isinstance(outcome, KafkaError):
                result.error_code, result.error_message = outcome.code, outcome.message
            else:
                result.topic_id = outcome.topic_id
        return m.DeleteTopicsResponse(throttle_time_ms=throttled(ctx, mutations),
                                      responses=results)

    return when_ready(outcome, respond)
