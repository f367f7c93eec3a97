"""Plain records of cluster metadata, independent of where they are stored.

The records are immutable: a change builds a new record (``with_partitions``, ``with_configs``,
``dataclasses.replace``). The controller's view, the admin manager and the metadata cache can
therefore hold the same record without one of them changing what another sees.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True)
class PartitionRecord:
    """One partition's replica assignment and leadership, as the controller decides it."""

    partition: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int
    leader_epoch: int = 0
    partition_epoch: int = 0
    #: KIP-704: 1 (RECOVERING) after an unclean election, until the leader has recovered;
    #: carried by LeaderAndIsr, not stored
    leader_recovery_state: int = 0
    #: a reassignment's replicas being added and removed (LeaderAndIsr v3+); carried by
    #: LeaderAndIsr, not stored here (the assignment znode keeps them)
    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "replicas", tuple(self.replicas))
        object.__setattr__(self, "isr", tuple(self.isr))
        object.__setattr__(self, "adding_replicas", tuple(self.adding_replicas))
        object.__setattr__(self, "removing_replicas", tuple(self.removing_replicas))

    def to_json(self) -> dict:
        return {
            "replicas": list(self.replicas),
            "isr": list(self.isr),
            "leader": self.leader,
            "leader_epoch": self.leader_epoch,
            "partition_epoch": self.partition_epoch,
        }

    @classmethod
    def from_json(cls, partition: int, data: dict) -> PartitionRecord:
        return cls(
            partition,
            tuple(data["replicas"]),
            tuple(data["isr"]),
            int(data["leader"]),
            int(data.get("leader_epoch", 0)),
            int(data.get("partition_epoch", 0)),
        )


@dataclass(frozen=True, slots=True)
class TopicRecord:
    name: str
    topic_id: uuid.UUID
    partitions: Mapping[int, PartitionRecord] = field(default_factory=dict)
    configs: Mapping[str, str] = field(default_factory=dict)  # per-topic overrides only

    def __post_init__(self) -> None:
        object.__setattr__(self, "partitions", _frozen(dict(sorted(self.partitions.items()))))
        object.__setattr__(self, "configs", _frozen(self.configs))

    @property
    def replication_factor(self) -> int:
        first = next(iter(self.partitions.values()), None)
        return len(first.replicas) if first is not None else 0

    def with_partitions(self, partitions: Iterable[PartitionRecord]) -> TopicRecord:
        """This topic with ``partitions`` added or replaced."""
        merged = dict(self.partitions)
        merged.update((p.partition, p) for p in partitions)
        return replace(self, partitions=merged)

    def with_configs(self, configs: Mapping[str, str]) -> TopicRecord:
        return replace(self, configs=configs)

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
