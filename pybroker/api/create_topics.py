"""CreateTopics (19): new topics through the admin seam, answered with each topic's configs."""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, create_topics_request as req, create_topics_response as m
from pybroker.admin import NewTopic
from pybroker.admin.config_helper import topic_config_entries
from pybroker.api.context import RequestContext
from pybroker.api.quotas import mutation_quota, throttled
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.metadata.model import TopicRecord
from pybroker.security.acl import AclOperation, ResourceType


def _check(ctx: RequestContext, t: req.CreatableTopic, count: int,
           creatable: set[str]) -> KafkaError | None:
    """What Kafka refuses before the topic reaches the admin manager."""
    if count > 1:
        return KafkaError(ErrorCode.INVALID_REQUEST,
                          f"Create topics request from client `{ctx.client_id}` contains "
                          f"multiple entries for the following topics: {t.name}")
    if t.name not in creatable:
        return KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.")
    if ctx.api_version < 4 and (t.num_partitions == -1 or t.replication_factor == -1) \
            and not t.assignments:
        return KafkaError(ErrorCode.INVALID_REQUEST,
                          "numPartitions and replicationFactor are required before v4")
    nulls = [c.name for c in t.configs if c.value is None]
    if nulls:
        return KafkaError(ErrorCode.INVALID_CONFIG,
                          f"Null value not supported for topic configs: {','.join(nulls)}")
    return None


#: from v6 the controller mutation quota is strict (KIP-599)
STRICT_MUTATIONS_VERSION = 6


@api(ApiKey.CREATE_TOPICS, 0, 7)
def handle(ctx: RequestContext, request: req.CreateTopicsRequest,
           ) -> Response[m.CreateTopicsResponse]:
    seen: dict[str, int] = {}
    for t in request.topics:
        seen[t.name] = seen.get(t.name, 0) + 1
    # CREATE on the cluster, or on each topic; their configs are answered only with
    # DESCRIBE_CONFIGS on the topic
    acls = ctx.services.acls
    creatable = (set(seen) if acls.authorize_cluster(ctx, AclOperation.CREATE)
                 else acls.authorized(ctx, AclOperation.CREATE, ResourceType.TOPIC, seen))
    describable = acls.authorized(ctx, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, seen)
    refused = {i: e for i, t in enumerate(request.topics)
               if (e := _check(ctx, t, seen[t.name], creatable)) is not None}
    wanted = [(i, t) for i, t in enumerate(request.topics) if i not in refused]
    outcome = ctx.services.admin.create_topics(
        [NewTopic(t.name, t.num_partitions, t.replication_factor,
                  {a.partition_index: tuple(a.broker_ids) for a in t.assignments} or None,
                  # (null values were refused by _check)
                  {c.name: c.value for c in t.configs if c.value is not None}) for _, t in wanted],
        validate_only=request.validate_only, timeout_ms=request.timeout_ms, now_ms=ctx.now_ms,
        mutations=(mutations := mutation_quota(ctx, STRICT_MUTATIONS_VERSION)))

    def respond(created: list[TopicRecord | KafkaError]) -> m.CreateTopicsResponse:
        outcomes: dict[int, TopicRecord | KafkaError] = dict(refused)
        outcomes.update((i, r) for (i, _), r in zip(wanted, created, strict=True))
        return m.CreateTopicsResponse(throttle_time_ms=throttled(ctx, mutations), topics=[
            _result(ctx, t.name, outcomes[i], t.name in describable)
            for i, t in enumerate(request.topics)])

    return when_ready(outcome, respond)


def _result(ctx: RequestContext, name: str, outcome: TopicRecord | KafkaError,
            describable: bool = True) -> m.CreatableTopicResult:
    result = m.CreatableTopicResult(name=name)
    if not describable:
        result.topic_config_error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
    if isinstance(outcome, KafkaError):
        result.error_code = outcome.code
        result.error_message = outcome.message
        result.num_partitions = -1
        result.replication_factor = -1
        result.configs = []
        return result
    result.error_code = ErrorCode.NONE
    result.error_message = None
    if not describable:
        return result
    result.topic_id = outcome.topic_id
    result.num_partitions = len(outcome.partitions)
    result.replication_factor = outcome.replication_factor
    result.configs = [
        m.CreatableTopicConfigs(name=e.name, value=e.value, read_only=e.read_only,
                                config_source=e.source, is_sensitive=e.is_sensitive)
        for e in topic_config_entries(ctx.services.dynamic_config, ctx.services.configs,
                                      outcome.configs)
    ]
    return result
