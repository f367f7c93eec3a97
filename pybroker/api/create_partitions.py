"""CreatePartitions (37): grow a topic's partition count.

The checks and their messages are a Kafka 3.9 broker's: the topic, then the count, then the
explicit assignments (unknown brokers, how many, then each one's replicas).
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import create_partitions_response as m
from pybroker.api.registry import api


def _check(ctx, name: str, count: int, assignments: list[list[int]] | None) -> None:
    info = ctx.broker.metadata_cache.topic(name)
    if info is None:
        raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                         f"The topic '{name}' does not exist.")
    current = len(info.partitions)
    if count < current:
        raise KafkaError(ErrorCode.INVALID_PARTITIONS,
                         f"Topic currently has {current} partitions, which is higher than the "
                         f"requested {count}.")
    if count == current:
        raise KafkaError(ErrorCode.INVALID_PARTITIONS, f"Topic already has {current} partitions.")
    if assignments is None:
        return
    live = set(ctx.broker.controller.live_brokers)
    unknown = sorted({b for replicas in assignments for b in replicas} - live)
    if unknown:
        raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         f"Unknown broker(s) in replica assignment: "
                         f"{', '.join(map(str, unknown))}.")
    if len(assignments) != count - current:
        raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         f"Increasing the number of partitions by {count - current} but "
                         f"{len(assignments)} assignments provided.")
    for i, replicas in enumerate(assignments):
        partition = current + i
        if not replicas:
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             f"Cannot have replication factor of 0 for partition id {partition}.")
        if len(set(replicas)) != len(replicas):
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             f"Duplicate brokers not allowed in replica assignment: "
                             f"{', '.join(map(str, replicas))} for partition id {partition}.")
    rf = len(next(iter(info.partitions.values())).replicas)
    bad = [(current + i, len(r)) for i, r in enumerate(assignments) if len(r) != rf]
    if bad:
        raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         f"Inconsistent replication factor between partitions, partition 0 has "
                         f"{rf} while partitions [{', '.join(str(p) for p, _ in bad)}] have "
                         f"replication factors [{', '.join(str(n) for _, n in bad)}], "
                         f"respectively.")


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
            _check(ctx, t.name, t.count, assignments)
            ctx.broker.controller.create_partitions(
                t.name, t.count, assignments, validate_only=request.validate_only,
                now_ms=ctx.now_ms)
        except KafkaError as e:
            result.error_code = e.code
            result.error_message = e.message
        results.append(result)
    return m.CreatePartitionsResponse(throttle_time_ms=0, results=results)
