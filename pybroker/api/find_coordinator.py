"""FindCoordinator (10): where a group's coordinator is (batched keys from v4).

A group's coordinator is the leader of its ``__consumer_offsets`` partition, computed as Kafka
does; like Kafka, the first FindCoordinator creates ``__consumer_offsets``.
Transaction coordinators are not run: key type 1 is answered with COORDINATOR_NOT_AVAILABLE.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import find_coordinator_response as m
from pybroker.api.registry import api
from pybroker.coordinator.partitioning import OFFSETS_TOPIC, partition_for

GROUP = 0
TRANSACTION = 1


def _lookup(ctx, key: str, key_type: int) -> tuple[ErrorCode, str | None, int, str, int]:
    broker = ctx.broker
    if key_type != GROUP:
        if key_type == TRANSACTION:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, "transactions are not supported", -1, "", -1
        return ErrorCode.INVALID_REQUEST, f"unknown key type {key_type}", -1, "", -1
    if not key:
        return ErrorCode.INVALID_REQUEST, "empty group id", -1, "", -1
    if broker.groups.ensure_offsets_topic(ctx.now_ms):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE, None, -1, "", -1
    cache = broker.metadata_cache
    topic = cache.topic(OFFSETS_TOPIC)
    leader = topic.partitions[partition_for(key, len(topic.partitions))].leader
    node = cache.brokers.get(leader)
    if node is None:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE, None, -1, "", -1
    return ErrorCode.NONE, None, node.node_id, node.host, node.port


@api(10, 0, 4)
def handle(ctx, request) -> m.FindCoordinatorResponse:
    if ctx.api_version >= 4:
        coordinators = []
        for key in request.coordinator_keys:
            error, message, node_id, host, port = _lookup(ctx, key, request.key_type)
            coordinators.append(m.Coordinator(key=key, node_id=node_id, host=host, port=port,
                                              error_code=error, error_message=message))
        return m.FindCoordinatorResponse(throttle_time_ms=0, coordinators=coordinators)
    error, message, node_id, host, port = _lookup(ctx, request.key, request.key_type)
    return m.FindCoordinatorResponse(throttle_time_ms=0, error_code=error, error_message=message,
                                     node_id=node_id, host=host, port=port)
