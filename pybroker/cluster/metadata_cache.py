"""The broker's view of the cluster, from which Metadata, DescribeCluster and FindCoordinator
are answered (Kafka's ``ZkMetadataCache``).

It is what the controller's UpdateMetadata requests update (on the embedded node too, through
its loopback channel) (:meth:`MetadataCache.update_metadata`): the live brokers with
their endpoints, the controller id, and partition states (a leader of -2 removes a partition
being deleted). Readers get copies of nothing: treat the objects as immutable.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from pybroker.metadata.model import PartitionRecord, TopicRecord
from pybroker.metadata.topics import INTERNAL_TOPICS

__all__ = ["INTERNAL_TOPICS", "BrokerEndpoint", "MetadataCache", "PartitionInfo", "TopicInfo"]

#: UpdateMetadata's leader for a partition whose topic is being deleted
LEADER_DURING_DELETE = -2


@dataclass(frozen=True, slots=True)
class BrokerEndpoint:
    node_id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class BrokerNode:
    """A live broker as UpdateMetadata describes it: an endpoint per listener."""

    node_id: int
    endpoints: tuple[tuple[str, str, int], ...]  # (listener, host, port)
    rack: str | None = None

    def endpoint(self, listener: str) -> BrokerEndpoint | None:
        for name, host, port in self.endpoints:
            if name == listener:
                return BrokerEndpoint(self.node_id, host, port, self.rack)
        return None


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    partition: int
    leader: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()
    partition_epoch: int = 0


@dataclass(frozen=True, slots=True)
class PartitionUpdate:
    """One partition of an UpdateMetadata request."""

    topic: str
    topic_id: uuid.UUID
    info: PartitionInfo


@dataclass(frozen=True, slots=True)
class TopicInfo:
    name: str
    topic_id: uuid.UUID
    partitions: dict[int, PartitionInfo] = field(default_factory=dict)

    @property
    def is_internal(self) -> bool:
        return self.name in INTERNAL_TOPICS


def _partition_info(p: PartitionRecord) -> PartitionInfo:
    return PartitionInfo(p.partition, p.leader, p.leader_epoch, tuple(p.replicas), tuple(p.isr),
                         partition_epoch=p.partition_epoch)


class MetadataCache:
    def __init__(self, cluster_id: str, controller_id: int, listener: str = "PLAINTEXT") -> None:
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        #: the listener whose endpoints clients are told about
        self.listener = listener
        self.brokers: dict[int, BrokerEndpoint] = {}
        #: the live brokers with every listener's endpoint (UpdateMetadata)
        self.live_nodes: dict[int, BrokerNode] = {}
        self.topics: dict[str, TopicInfo] = {}
        self._by_id: dict[uuid.UUID, str] = {}

    def set_brokers(self, brokers: list[BrokerEndpoint],
                    nodes: list[BrokerNode] | None = None) -> None:
        """The live brokers on this cache's listener, and (``nodes``) with every listener's
        endpoint (the embedded node's own)."""
        self.brokers = {b.node_id: b for b in brokers}
        if nodes is not None:
            self.live_nodes = {node.node_id: node for node in nodes}

    def brokers_for(self, listener: str) -> dict[int, BrokerEndpoint]:
        """The live brokers' endpoints on ``listener``, the one a client's request came in on:
        what Metadata, DescribeCluster and FindCoordinator answer it with, as Kafka answers
        each listener with its own endpoints. A broker without that listener is left out;
        ``""`` (a caller that knows no listener) is this cache's listener."""
        if not listener or listener == self.listener:
            return self.brokers
        out = {}
        for node_id, node in self.live_nodes.items():
            endpoint = node.endpoint(listener)
            if endpoint is not None:
                out[node_id] = endpoint
        return out

    @property
    def alive_broker_ids(self) -> list[int]:
        return sorted(self.brokers)

    def update_metadata(self, controller_id: int, live_brokers: list[BrokerNode],
                        partitions: list[PartitionUpdate]) -> list[tuple[str, int]]:
        """Apply an UpdateMetadata request: the live brokers (endpoints of this cache's
        listener; a broker without one is left out, as Kafka leaves it out of Metadata), the
        controller id, and each partition's state, a leader of -2 removing it. Returns the
        partitions removed."""
        self.controller_id = controller_id
        self.brokers = {}
        self.live_nodes = {node.node_id: node for node in live_brokers}
        for node in live_brokers:
            endpoint = node.endpoint(self.listener)
            if endpoint is not None:
                self.brokers[node.node_id] = endpoint
        removed: list[tuple[str, int]] = []
        changed: dict[str, dict[int, PartitionInfo | None]] = {}
        ids: dict[str, uuid.UUID] = {}
        for update in partitions:
            ids[update.topic] = update.topic_id
            deleted = update.info.leader == LEADER_DURING_DELETE
            changed.setdefault(update.topic, {})[update.info.partition] = (
                None if deleted else update.info)
        for topic, parts in changed.items():
            old = self.topics.get(topic)
            merged = dict(old.partitions) if old is not None else {}
            for index, info in parts.items():
                if info is None:
                    if merged.pop(index, None) is not None:
                        removed.append((topic, index))
                else:
                    merged[index] = info
            if not merged:
                self.remove_topic(topic)
                continue
            topic_id = ids[topic] if ids[topic].int else (old.topic_id if old else ids[topic])
            if old is not None and old.topic_id != topic_id:
                self._by_id.pop(old.topic_id, None)
            self.topics[topic] = TopicInfo(topic, topic_id, dict(sorted(merged.items())))
            self._by_id[topic_id] = topic
        return removed

    def alive_endpoint(self, broker_id: int, listener: str) -> BrokerEndpoint | None:
        """A live broker's endpoint on ``listener`` (the inter-broker listener, for a replica
        fetcher), as Kafka's ``getAliveBrokerNode``; None when it is not alive or has no such
        listener."""
        node = self.live_nodes.get(broker_id)
        return node.endpoint(listener) if node is not None else None

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
