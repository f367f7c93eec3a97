"""AlterPartitionReassignments (45): move partitions to new replica sets, or cancel moves.

Decided by :func:`pybroker.controller.replicas.reassign_partition` with Kafka's checks and
messages. On one broker a valid target is the partition's current replica set, so an accepted
reassignment is complete when the answer leaves, and a cancellation finds nothing to cancel
(NO_REASSIGNMENT_IN_PROGRESS).
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import alter_partition_reassignments_response as m
from pybroker.api.registry import api
from pybroker.controller.replicas import reassign_partition


@api(45, 0, 0)
def handle(ctx, request) -> m.AlterPartitionReassignmentsResponse:
    # A partition named twice counts once, with its last target (Kafka builds a map).
    targets: dict[tuple[str, int], list[int] | None] = {}
    for t in request.topics:
        for p in t.partitions:
            targets[(t.name, p.partition_index)] = p.replicas
    by_topic: dict[str, list[m.ReassignablePartitionResponse]] = {}
    for (topic, partition), replicas in targets.items():
        result = m.ReassignablePartitionResponse(partition_index=partition,
                                                 error_code=ErrorCode.NONE, error_message=None)
        try:
            reassign_partition(ctx.broker.controller, topic, partition, replicas)
        except KafkaError as e:
            result.error_code, result.error_message = e.code, e.message
        by_topic.setdefault(topic, []).append(result)
    return m.AlterPartitionReassignmentsResponse(
        throttle_time_ms=0,
        error_code=ErrorCode.NONE,
        error_message="",  # Kafka leaves the field at its default, the empty string
        responses=[m.ReassignableTopicResponse(name=t, partitions=ps) for t, ps in by_topic.items()],
    )
