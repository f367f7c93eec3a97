"""CreatePartitions (37): grow a topic's partition count (the controller checks and decides)."""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import create_partitions_response as m
from pybroker.api.registry import api


@api(37, 0, 3)
def handle(ctx, request) -> m.CreatePartitionsResponse:
    results = []
    counts: dict[str, int] = {}
    for t in request.topics:
        counts[t.name] = counts.get(t.name, 0) + 1
    answered: set[str] = set()
    for t in request.topics:
        if t.name in answered:
            continue  # one result per topic name, as Kafka answers from a map
        answered.add(t.name)
        result = m.CreatePartitionsTopicResult(name=t.name, error_code=ErrorCode.NONE,
                                               error_message=None)
        try:
            if counts[t.name] > 1:
                raise KafkaError(ErrorCode.INVALID_REQUEST, "Duplicate topic in request.")
            assignments = ([list(a.broker_ids) for a in t.assignments]
                           if t.assignments is not None else None)
            ctx.broker.controller.create_partitions(
                t.name, t.count, assignments, validate_only=request.validate_only,
                now_ms=ctx.now_ms)
        except KafkaError as e:
            result.error_code = e.code
            result.error_message = e.message
        results.append(result)
    return m.CreatePartitionsResponse(throttle_time_ms=0, results=results)
