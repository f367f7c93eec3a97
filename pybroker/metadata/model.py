"""Plain records of cluster metadata, independent of where they are stored."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field


@dataclass(slots=True)
class PartitionRecord:
    """One partition's replica assignment and leadership, as the controller decides it."""

    partition: int
    replicas: list[int]
    isr: list[int]
    leader: int
    leader_epoch: int = 0
    partition_epoch: int = 0

    def to_json(self) -> dict:
        return {
            "replicas": self.replicas,
            "isr": self.isr,
            "leader": self.leader,
            "leader_epoch": self.leader_epoch,
            "partition_epoch": self.partition_epoch,
        }

    @classmethod
    def from_json(cls, partition: int, data: dict) -> PartitionRecord:
        return cls(
            partition,
            list(data["replicas"]),
            list(data["isr"]),
            int(data["leader"]),
            int(data.get("leader_epoch", 0)),
            int(data.get("partition_epoch", 0)),
        )


@dataclass(slots=True)
class TopicRecord:
    name: str
    topic_id: uuid.UUID
    partitions: dict[int, PartitionRecord] = field(default_factory=dict)
    configs: dict[str, str] = field(default_factory=dict)  # per-topic overrides only

    def to_json(self) -> dict:
        return {
            "topic_id": str(self.topic_id),
            "partitions": {str(p): r.to_json() for p, r in sorted(self.partitions.items())},
            "configs": dict(sorted(self.configs.items())),
        }

    @classmethod
    def from_json(cls, name: str, data: dict) -> TopicRecord:
        return cls(
            name,
            uuid.UUID(data["topic_id"]),
            {int(p): PartitionRecord.from_json(int(p), r) for p, r in data["partitions"].items()},
            dict(data.get("configs", {})),
        )


@dataclass(slots=True)
class ClusterImage:
    """Everything a store holds, as loaded at start-up."""

    cluster_id: str
    topics: dict[str, TopicRecord] = field(default_factory=dict)
    next_producer_id: int = 0
