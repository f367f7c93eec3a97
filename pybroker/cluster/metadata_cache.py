"""The broker's view of the cluster, from which Metadata and DescribeCluster are answered.

In the embedded mode the local controller updates it directly; in ZooKeeper mode it is what
UpdateMetadata requests update. Readers get copies of nothing: treat the objects as immutable.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from pybroker.metadata.model import PartitionRecord, TopicRecord

INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})


@dataclass(frozen=True, slots=True)
class BrokerEndpoint:
    node_id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    partition: int
    leader: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TopicInfo:
    name: str
    topic_id: uuid.UUID
    partitions: dict[int, PartitionInfo] = field(default_factory=dict)

    @property
    def is_internal(self) -> bool:
        return self.name in INTERNAL_TOPICS


def _partition_info(p: PartitionRecord) -> PartitionInfo:
    return PartitionInfo(p.partition, p.leader, p.leader_epoch, tuple(p.replicas), tuple(p.isr))


class MetadataCache:
    def __init__(self, cluster_id: str, controller_id: int) -> None:
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        self.brokers: dict[int, BrokerEndpoint] = {}
        self.topics: dict[str, TopicInfo] = {}
        self._by_id: dict[uuid.UUID, str] = {}

    def set_brokers(self, brokers: list[BrokerEndpoint]) -> None:
        self.brokers = {b.node_id: b for b in brokers}

    def put_topic(self, record: TopicRecord) -> TopicInfo:
        info = TopicInfo(record.name, record.topic_id,
                         {p: _partition_info(r) for p, r in sorted(record.partitions.items())})
        self.topics[record.name] = info
        self._by_id[record.topic_id] = record.name
        return info

    def remove_topic(self, name: str) -> None:
        info = self.topics.pop(name, None)
        if info is not None:
            self._by_id.pop(info.topic_id, None)

    def topic(self, name: str) -> TopicInfo | None:
        return self.topics.get(name)

    def topic_name(self, topic_id: uuid.UUID) -> str | None:
        return self._by_id.get(topic_id)

    def partition(self, topic: str, partition: int) -> PartitionInfo | None:
        info = self.topics.get(topic)
        return info.partitions.get(partition) if info else None
