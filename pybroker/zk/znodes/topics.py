"""The topic and partition znodes of ``kafka.zk.ZkData``: ``/brokers/topics/<t>`` (the replica
assignment, with a reassignment's adding and removing replicas) and each partition's ``state``
(leader, leader epoch, ISR, controller epoch, KIP-704's leader recovery state)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pybroker.kernel.types import TopicPartition
from pybroker.zk.znodes.codec import (
    ZNodeDecodeError,
    _dumps,
    _field,
    _int,
    _ints,
    _object,
    uuid_from_string,
    uuid_to_string,
)


class TopicsZNode:
    PATH = "/brokers/topics"


@dataclass(frozen=True, slots=True)
class ReplicaAssignment:
    """A partition's replicas, with those being added or removed by a reassignment."""

    replicas: tuple[int, ...]
    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "replicas", tuple(self.replicas))
        object.__setattr__(self, "adding_replicas", tuple(self.adding_replicas))
        object.__setattr__(self, "removing_replicas", tuple(self.removing_replicas))


@dataclass(frozen=True)
class TopicAssignment:
    """The content of ``/brokers/topics/<t>``: the topic id (None if never given one) and
    partition -> replica assignment."""

    topic_id: uuid.UUID | None
    partitions: Mapping[int, ReplicaAssignment]

    def __post_init__(self) -> None:
        object.__setattr__(self, "partitions", dict(sorted(self.partitions.items())))

    @classmethod
    def of(cls, topic_id: uuid.UUID | None,
           replicas: Mapping[int, Sequence[int]]) -> TopicAssignment:
        """An assignment with no reassignment in progress."""
        return cls(topic_id, {p: ReplicaAssignment(tuple(r)) for p, r in replicas.items()})

    def replicas(self) -> dict[int, tuple[int, ...]]:
        return {p: a.replicas for p, a in self.partitions.items()}


class TopicZNode:
    """``/brokers/topics/<t>``: the replica assignment (version 3). Creating it creates the
    topic."""

    @staticmethod
    def path(topic: str) -> str:
        return f"{TopicsZNode.PATH}/{topic}"

    @staticmethod
    def encode(assignment: TopicAssignment) -> bytes:
        parts = assignment.partitions
        obj: dict[str, object] = {
            "version": 3,
            "partitions": {str(p): list(a.replicas) for p, a in parts.items()},
            "adding_replicas": {
                str(p): list(a.adding_replicas) for p, a in parts.items() if a.adding_replicas},
            "removing_replicas": {
                str(p): list(a.removing_replicas) for p, a in parts.items()
                if a.removing_replicas},
        }
        if assignment.topic_id is not None:
            obj["topic_id"] = uuid_to_string(assignment.topic_id)
        return _dumps(obj)

    @staticmethod
    def decode(topic: str, data: bytes | None) -> TopicAssignment:
        what = f"assignment of topic {topic}"
        obj = _object(data, what)
        if obj is None:
            return TopicAssignment(None, {})
        raw_id = obj.get("topic_id")
        topic_id = uuid_from_string(raw_id) if isinstance(raw_id, str) else None

        def table(key: str) -> Mapping[str, Any]:
            value = obj.get(key)
            if value is None:
                return {}
            if not isinstance(value, dict):
                raise ZNodeDecodeError(f"{what}: {key} {value!r}")
            return value

        adding, removing = table("adding_replicas"), table("removing_replicas")
        partitions: dict[int, ReplicaAssignment] = {}
        for p, replicas in table("partitions").items():
            try:
                partition = int(p)
            except ValueError as e:
                raise ZNodeDecodeError(f"{what}: partition {p!r}") from e
            partitions[partition] = ReplicaAssignment(
                _ints(replicas, what), _ints(adding.get(p, []), what),
                _ints(removing.get(p, []), what))
        return TopicAssignment(topic_id, partitions)


class TopicPartitionsZNode:
    @staticmethod
    def path(topic: str) -> str:
        return f"{TopicZNode.path(topic)}/partitions"


class TopicPartitionZNode:
    @staticmethod
    def path(tp: TopicPartition) -> str:
        return f"{TopicPartitionsZNode.path(tp[0])}/{tp[1]}"


#: KIP-704's leader recovery states (``org.apache.kafka.metadata.LeaderRecoveryState``)
RECOVERED = 0
RECOVERING = 1


@dataclass(frozen=True, slots=True)
class LeaderIsrAndControllerEpoch:
    """The content of a partition's ``state`` znode; its partition epoch is the znode's version,
    returned beside it."""

    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    controller_epoch: int
    leader_recovery_state: int = RECOVERED

    def __post_init__(self) -> None:
        object.__setattr__(self, "isr", tuple(self.isr))


class TopicPartitionStateZNode:
    """``/brokers/topics/<t>/partitions/<p>/state`` (version 1)."""

    @staticmethod
    def path(tp: TopicPartition) -> str:
        return f"{TopicPartitionZNode.path(tp)}/state"

    @staticmethod
    def encode(state: LeaderIsrAndControllerEpoch) -> bytes:
        obj: dict[str, object] = {
            "version": 1,
            "leader": state.leader,
            "leader_epoch": state.leader_epoch,
            "controller_epoch": state.controller_epoch,
            "isr": list(state.isr),
        }
        if state.leader_recovery_state != RECOVERED:
            obj["leader_recovery_state"] = state.leader_recovery_state
        return _dumps(obj)

    @staticmethod
    def decode(data: bytes | None) -> LeaderIsrAndControllerEpoch | None:
        """None for an empty znode, as Kafka reads one."""
        what = "partition state"
        obj = _object(data, what)
        if obj is None:
            return None
        recovery = obj.get("leader_recovery_state", RECOVERED)
        if recovery not in (RECOVERED, RECOVERING) or isinstance(recovery, bool):
            raise ZNodeDecodeError(f"{what}: leader_recovery_state {recovery!r}")
        return LeaderIsrAndControllerEpoch(
            _int(obj, "leader", what), _int(obj, "leader_epoch", what),
            _ints(_field(obj, "isr", list, what), what), _int(obj, "controller_epoch", what),
            recovery)
