"""Metadata (3): brokers, controller, topics and their partitions; auto-creates topics.

Answered from the metadata cache. A topic auto-created through the admin seam is answered, as
Kafka answers while the controller creates it, with LEADER_NOT_AVAILABLE; the embedded node,
whose controller is its own, answers once the topic is led (``auto_create_timeout_ms``).
"""

from __future__ import annotations

import uuid

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, metadata_request as req, metadata_response as m
from pybroker.admin import NewTopic
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.cluster.metadata_cache import TopicInfo
from pybroker.kernel.outcome import Outcome, gather, is_pending, when_ready
from pybroker.metadata.model import TopicRecord
from pybroker.metadata.topics import OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC, validate_topic_name
from pybroker.security.acl import CLUSTER_NAME, AclOperation, ResourceType

ZERO_UUID = uuid.UUID(int=0)
#: "not asked for" (Kafka's default)
UNKNOWN_OPERATIONS = -2147483648


def _topic(info: TopicInfo) -> m.MetadataResponseTopic:
    return m.MetadataResponseTopic(
        error_code=ErrorCode.NONE,
        name=info.name,
        topic_id=info.topic_id,
        is_internal=info.is_internal,
        partitions=[
            m.MetadataResponsePartition(
                error_code=ErrorCode.NONE,
                partition_index=p.partition,
                leader_id=p.leader,
                leader_epoch=p.leader_epoch,
                replica_nodes=list(p.replicas),
                isr_nodes=list(p.isr),
                offline_replicas=list(p.offline_replicas),
            )
            for p in info.partitions.values()
        ],
    )


def _error_topic(name: str | None, code: ErrorCode,
                 topic_id: uuid.UUID = ZERO_UUID) -> m.MetadataResponseTopic:
    return m.MetadataResponseTopic(error_code=code, name=name, topic_id=topic_id)


def _auto_create(ctx: RequestContext, name: str, wait: bool,
                 ) -> ErrorCode | Outcome[list[TopicRecord | KafkaError]]:
    """Create ``name`` with the broker's defaults; NONE once it exists, or (``wait``, on a
    broker whose admin waits for auto-created topics) the future of the creation."""
    services = ctx.services
    if name == OFFSETS_TOPIC:
        services.groups.ensure_offsets_topic(ctx.now_ms)
        return ErrorCode.NONE
    if name == TRANSACTION_STATE_TOPIC and services.transactions is not None:
        services.transactions.ensure_topic(ctx.now_ms)
        return ErrorCode.NONE
    try:
        validate_topic_name(name)  # refused at once, as Kafka's auto-creation refuses it
    except KafkaError as e:
        return e.code
    timeout_ms = services.admin.auto_create_timeout_ms if wait else 0
    outcome = services.admin.create_topics([NewTopic(name)], validate_only=False,
                                           timeout_ms=timeout_ms, now_ms=ctx.now_ms)
    if is_pending(outcome):
        if timeout_ms > 0:
            return outcome
        return ErrorCode.LEADER_NOT_AVAILABLE  # the controller creates it; ask again soon
    [created] = outcome
    return created.code if isinstance(created, KafkaError) else ErrorCode.NONE


@api(ApiKey.METADATA, 0, 12)
def handle(ctx: RequestContext, request: req.MetadataRequest) -> Response[m.MetadataResponse]:
    answer, creating = _answer(ctx, request, wait=True)
    if not creating:
        return answer
    # the admin waits for the topics it auto-creates: answer again once they are led
    return when_ready(gather(creating), lambda _created: _answer(ctx, request, wait=False)[0])


def _answer(ctx: RequestContext, request: req.MetadataRequest, wait: bool,
            ) -> tuple[m.MetadataResponse, list[Outcome[list[TopicRecord | KafkaError]]]]:
    """The answer, and the auto-creations it waits for (``wait``: when the admin waits for
    auto-created topics)."""
    services = ctx.services
    cache = services.metadata_cache
    version = ctx.api_version
    topics: list[m.MetadataResponseTopic] = []
    creating: list[Outcome[list[TopicRecord | KafkaError]]] = []

    acls = services.acls
    if request.topics is None or (version == 0 and not request.topics):
        # every topic: those the client may not describe are left out, silently
        visible = acls.authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, cache.topics)
        topics = [_topic(t) for name, t in sorted(cache.topics.items()) if name in visible]
    else:
        # Before v4 every request may create topics; from v4 the client says so.
        allow_create = request.allow_auto_topic_creation if version >= 4 else True
        auto_create = allow_create and services.config.get_bool("auto.create.topics.enable")
        named = [w.name if w.name is not None else cache.topic_name(w.topic_id)
                 for w in request.topics]
        describable = acls.authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                      (n for n in named if n is not None))
        may_create_any = (not auto_create
                          or acls.authorize_cluster(ctx, AclOperation.CREATE))
        # answered after the topics described: those the client may not create, then those
        # it may not describe (Kafka's order)
        create_denied: list[m.MetadataResponseTopic] = []
        describe_denied: list[m.MetadataResponseTopic] = []
        for wanted, name in zip(request.topics, named, strict=True):
            if name is None:
                topics.append(_error_topic(None, ErrorCode.UNKNOWN_TOPIC_ID, wanted.topic_id))
                continue
            if name not in describable:
                describe_denied.append(
                    _error_topic(None, ErrorCode.TOPIC_AUTHORIZATION_FAILED, wanted.topic_id)
                    if wanted.name is None
                    else _error_topic(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED))
                continue
            info = cache.topic(name)
            if info is None and auto_create and not may_create_any and not acls.authorize(
                    ctx, AclOperation.CREATE, ResourceType.TOPIC, name):
                denied = _error_topic(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                denied.is_internal = name in (OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC)
                create_denied.append(denied)
                continue
            if info is None and auto_create:
                error = _auto_create(ctx, name, wait)
                if not isinstance(error, ErrorCode):
                    creating.append(error)
                    continue
                if error:
                    topics.append(_error_topic(name, error))
                    continue
                info = cache.topic(name)
            if info is None:
                try:
                    validate_topic_name(name)
                except KafkaError as e:
                    topics.append(_error_topic(name, e.code))
                    continue
                topics.append(_error_topic(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
            else:
                topics.append(_topic(info))
        topics += create_denied + describe_denied

    if version >= 8 and request.include_topic_authorized_operations:
        for t in topics:
            if t.name is not None and t.error_code != ErrorCode.TOPIC_AUTHORIZATION_FAILED:
                t.topic_authorized_operations = acls.authorized_operations(
                    ctx, ResourceType.TOPIC, t.name)
    cluster_operations = UNKNOWN_OPERATIONS
    if 8 <= version <= 10 and request.include_cluster_authorized_operations:
        cluster_operations = (acls.authorized_operations(ctx, ResourceType.CLUSTER, CLUSTER_NAME)
                              if acls.authorize_cluster(ctx, AclOperation.DESCRIBE) else 0)
    answer = m.MetadataResponse(
        throttle_time_ms=0,
        cluster_authorized_operations=cluster_operations,
        brokers=[
            m.MetadataResponseBroker(node_id=b.node_id, host=b.host, port=b.port, rack=b.rack)
            for b in cache.brokers_for(ctx.listener).values()
        ],
        cluster_id=cache.cluster_id,
        controller_id=cache.controller_id,
        topics=topics,
    )
    return answer, creating
