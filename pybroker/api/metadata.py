"""Metadata (3): brokers, controller, topics and their partitions; auto-creates topics."""

from __future__ import annotations

import uuid

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import metadata_response as m
from pybroker.api.registry import api
from pybroker.cluster.metadata_cache import TopicInfo
from pybroker.controller.local import validate_topic_name
from pybroker.coordinator.partitioning import OFFSETS_TOPIC

ZERO_UUID = uuid.UUID(int=0)


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


def _error_topic(name: str | None, code: ErrorCode, topic_id=ZERO_UUID) -> m.MetadataResponseTopic:
    return m.MetadataResponseTopic(error_code=code, name=name, topic_id=topic_id)


@api(3, 0, 12)
def handle(ctx, request) -> m.MetadataResponse:
    broker = ctx.broker
    cache = broker.metadata_cache
    version = ctx.api_version
    topics: list[m.MetadataResponseTopic] = []

    if request.topics is None or (version == 0 and not request.topics):
        topics = [_topic(t) for _, t in sorted(cache.topics.items())]
    else:
        # Before v4 every request may create topics; from v4 the client says so.
        allow_create = request.allow_auto_topic_creation if version >= 4 else True
        auto_create = allow_create and broker.config.get_bool("auto.create.topics.enable")
        for wanted in request.topics:
            name = wanted.name
            if name is None:
                name = cache.topic_name(wanted.topic_id)
                if name is None:
                    topics.append(_error_topic(None, ErrorCode.UNKNOWN_TOPIC_ID, wanted.topic_id))
                    continue
            info = cache.topic(name)
            if info is None and auto_create and name == OFFSETS_TOPIC:
                broker.groups.ensure_offsets_topic(ctx.now_ms)
                info = cache.topic(name)
            if info is None and auto_create:
                try:
                    broker.controller.create_topic(
                        name, -1, -1, assignments=None, configs={}, validate_only=False,
                        now_ms=ctx.now_ms,
                        defaults=(broker.config.get_int("num.partitions"),
                                  broker.config.get_int("default.replication.factor")),
                    )
                except KafkaError as e:
                    topics.append(_error_topic(name, e.code))
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

    return m.MetadataResponse(
        throttle_time_ms=0,
        brokers=[
            m.MetadataResponseBroker(node_id=b.node_id, host=b.host, port=b.port, rack=b.rack)
            for b in cache.brokers.values()
        ],
        cluster_id=cache.cluster_id,
        controller_id=cache.controller_id,
        topics=topics,
    )
