"""DeleteTopics (20): by name (v0-5) or by name or topic id (v6)."""

from __future__ import annotations

import uuid

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import delete_topics_response as m
from pybroker.api.registry import api

ZERO_UUID = uuid.UUID(int=0)


@api(20, 0, 6)
def handle(ctx, request) -> m.DeleteTopicsResponse:
    broker = ctx.broker
    if ctx.api_version >= 6:
        wanted = [(t.name, t.topic_id) for t in request.topics]
    else:
        wanted = [(name, ZERO_UUID) for name in request.topic_names]
    results = []
    for name, topic_id in wanted:
        result = m.DeletableTopicResult(name=name, topic_id=topic_id, error_code=ErrorCode.NONE,
                                        error_message=None)
        results.append(result)
        # as Kafka: no message with these errors
        if not broker.config.get_bool("delete.topic.enable"):
            result.error_code = (ErrorCode.INVALID_REQUEST if ctx.api_version < 3
                                 else ErrorCode.TOPIC_DELETION_DISABLED)
            continue
        if name is None and topic_id != ZERO_UUID:
            name = broker.metadata_cache.topic_name(topic_id)
            if name is None:
                result.error_code = ErrorCode.UNKNOWN_TOPIC_ID
                continue
            result.name = name
        if name is None or broker.metadata_cache.topic(name) is None:
            result.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            continue
        try:
            record = broker.controller.delete_topic(name)
            result.topic_id = record.topic_id
        except KafkaError as e:
            result.error_code = e.code
            result.error_message = e.message
    return m.DeleteTopicsResponse(throttle_time_ms=0, responses=results)
