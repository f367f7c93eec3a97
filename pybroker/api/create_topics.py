"""CreateTopics (19)."""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import create_topics_response as m
from pybroker.api.describe_configs import topic_config_entries
from pybroker.api.registry import api


@api(19, 0, 7)
def handle(ctx, request) -> m.CreateTopicsResponse:
    broker = ctx.broker
    defaults = (broker.config.get_int("num.partitions"),
                broker.config.get_int("default.replication.factor"))
    seen: dict[str, int] = {}
    for t in request.topics:
        seen[t.name] = seen.get(t.name, 0) + 1
    results = []
    for t in request.topics:
        result = m.CreatableTopicResult(name=t.name)
        try:
            if seen[t.name] > 1:
                raise KafkaError(ErrorCode.INVALID_REQUEST,
                                 f"Create topics request from client `{ctx.client_id}` contains "
                                 f"multiple entries for the following topics: {t.name}")
            if ctx.api_version < 4 and (t.num_partitions == -1 or t.replication_factor == -1) \
                    and not t.assignments:
                raise KafkaError(ErrorCode.INVALID_REQUEST,
                                 "numPartitions and replicationFactor are required before v4")
            nulls = [c.name for c in t.configs if c.value is None]
            if nulls:
                raise KafkaError(ErrorCode.INVALID_CONFIG,
                                 f"Null value not supported for topic configs: {','.join(nulls)}")
            configs = {c.name: c.value for c in t.configs}
            assignments = {a.partition_index: list(a.broker_ids) for a in t.assignments}
            record = broker.controller.create_topic(
                t.name, t.num_partitions, t.replication_factor, assignments=assignments or None,
                configs=configs, validate_only=request.validate_only, now_ms=ctx.now_ms,
                defaults=defaults,
            )
        except KafkaError as e:
            result.error_code = e.code
            result.error_message = e.message
            result.num_partitions = -1
            result.replication_factor = -1
            result.configs = []
            results.append(result)
            continue
        result.error_code = ErrorCode.NONE
        result.error_message = None
        result.topic_id = record.topic_id
        result.num_partitions = len(record.partitions)
        result.replication_factor = len(next(iter(record.partitions.values())).replicas)
        result.configs = [
            m.CreatableTopicConfigs(name=e.name, value=e.value, read_only=e.read_only,
                                    config_source=e.source, is_sensitive=e.is_sensitive)
            for e in topic_config_entries(broker, record.configs)
        ]
        results.append(result)
    return m.CreateTopicsResponse(throttle_time_ms=0, topics=results)
