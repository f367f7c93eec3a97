"""The topic and partition side of :class:`~pybroker.zk.kafka_zk.KafkaZkClient`: replica
assignments and topic ids, partition states (leader, ISR and their partition epoch) read and
written in batches, and the topic deletions asked for under ``/admin/delete_topics``."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pybroker.kernel.types import TopicPartition
from pybroker.zk.client import (
    ANY_VERSION,
    BadVersionError,
    CreateOp,
    DeleteOp,
    NodeExistsError,
    NoNodeError,
    SetDataOp,
    Watch,
    ZkError,
    ZnodeStat,
)
from pybroker.zk.kafka_zk_base import _raise_unexpected
from pybroker.zk.kafka_zk_configs import ConfigZkOps
from pybroker.zk.znodes import (
    CONFIG_TOPIC,
    DeleteTopicsTopicZNode,
    DeleteTopicsZNode,
    LeaderIsrAndControllerEpoch,
    TopicAssignment,
    TopicPartitionStateZNode,
    TopicPartitionsZNode,
    TopicPartitionZNode,
    TopicsZNode,
    TopicZNode,
)


class TopicExistsError(NodeExistsError):
    """The topic exists, or is marked for deletion (Kafka's TopicExistsException)."""


@dataclass(frozen=True)
class PartitionStateUpdates:
    """The outcome of :meth:`KafkaZkClient.update_partition_states`: the new partition epoch
    (znode version) of each partition written, the error of each that failed otherwise, and
    those whose version had moved (BADVERSION: read again and retry), as Kafka's
    ``UpdateLeaderAndIsrResult``."""

    succeeded: dict[TopicPartition, int] = field(default_factory=dict)
    failed: dict[TopicPartition, ZkError] = field(default_factory=dict)
    to_retry: tuple[TopicPartition, ...] = ()


class TopicZkOps(ConfigZkOps):
    """Topics and partitions in ZooKeeper (a part of :class:`KafkaZkClient`); a topic's
    assignment is created with its configs, so this part stands on the config part."""

    # -- topics -------------------------------------------------------------------------------

    async def get_all_topics(self, watch: Watch | None = None) -> set[str]:
        """Every topic; ``watch`` fires once when ``/brokers/topics``'s children change."""
        return set(await self._children(TopicsZNode.PATH, watch))

    async def topic_exists(self, topic: str) -> bool:
        return await self.path_exists(TopicZNode.path(topic))

    async def get_replica_assignment_and_topic_ids(
            self, topics: Iterable[str], watch: Watch | None = None,
    ) -> dict[str, tuple[TopicAssignment, int]]:
        """topic -> (its assignment and id, the topic znode's version) for each that exists;
        ``watch`` is set on each topic znode (it fires once per topic changed or deleted)."""
        names = sorted(set(topics))
        found = await asyncio.gather(*(self._get(TopicZNode.path(t), watch) for t in names))
        return {t: (TopicZNode.decode(t, f[0]), f[1].version)
                for t, f in zip(names, found, strict=True) if f is not None}

    async def create_topic_assignment(
            self, topic: str, topic_id: uuid.UUID | None,
            assignment: Mapping[int, Sequence[int]],
            configs: Mapping[str, str] | None = None) -> None:
        """Create a topic as Kafka's ``AdminZkClient.createTopicWithAssignment`` does: refuse
        a topic that exists or is marked for deletion (:class:`TopicExistsError`), write its
        configs to ``/config/topics/<t>`` (not atomically with what follows), then create
        ``/brokers/topics/<t>``, which the controller sees."""
        if await self.is_topic_marked_for_deletion(topic):
            raise TopicExistsError(f"Topic '{topic}' is marked for deletion.",
                                   TopicZNode.path(topic))
        if await self.topic_exists(topic):
            raise TopicExistsError(f"Topic '{topic}' already exists.", TopicZNode.path(topic))
        await self.set_or_create_entity_configs(CONFIG_TOPIC, topic, configs or {})
        data = TopicZNode.encode(TopicAssignment.of(topic_id, assignment))
        try:
            await self._create_recursive(TopicZNode.path(topic), data)
        except NodeExistsError:
            raise TopicExistsError(f"Topic '{topic}' already exists.",
                                   TopicZNode.path(topic)) from None

    async def set_topic_assignment(self, topic: str, assignment: TopicAssignment, *,
                                   version: int = ANY_VERSION,
                                   epoch_zk_version: int = ANY_VERSION) -> int:
        """Rewrite the topic znode (if its version is ``version``), fenced by
        ``epoch_zk_version`` when the controller writes; the new znode version."""
        stat = await self._write(SetDataOp(TopicZNode.path(topic), TopicZNode.encode(assignment),
                                           version), epoch_zk_version)
        assert isinstance(stat, ZnodeStat)
        return stat.version

    async def delete_topic_znode(self, topic: str, epoch_zk_version: int) -> None:
        """Delete ``/brokers/topics/<t>`` with its partitions, fenced."""
        await self._delete_recursive(TopicZNode.path(topic), epoch_zk_version)

    # -- partition states ---------------------------------------------------------------------

    async def get_partition_states(
            self, partitions: Iterable[TopicPartition], watch: Watch | None = None,
    ) -> dict[TopicPartition, tuple[LeaderIsrAndControllerEpoch, int]]:
        """tp -> (its state, the state znode's version = partition epoch), for those that
        have one."""
        tps = sorted(set(partitions))
        found = await asyncio.gather(
            *(self._get(TopicPartitionStateZNode.path(tp), watch) for tp in tps))
        out: dict[TopicPartition, tuple[LeaderIsrAndControllerEpoch, int]] = {}
        for tp, f in zip(tps, found, strict=True):
            state = TopicPartitionStateZNode.decode(f[0]) if f is not None else None
            if f is not None and state is not None:
                out[tp] = (state, f[1].version)
        return out

    async def create_partition_states(
            self, states: Mapping[TopicPartition, LeaderIsrAndControllerEpoch],
            epoch_zk_version: int) -> dict[TopicPartition, ZkError | None]:
        """Create each partition's ``state`` znode (and its parents), fenced: None where it
        was created (partition epoch 0), the error where not (NodeExistsError: it was there)."""
        topics = sorted({tp[0] for tp in states})
        await self._writes({t: CreateOp(TopicPartitionsZNode.path(t)) for t in topics},
                           epoch_zk_version)
        await self._writes({tp: CreateOp(TopicPartitionZNode.path(tp)) for tp in states},
                           epoch_zk_version)
        results = await self._writes(
            {tp: CreateOp(TopicPartitionStateZNode.path(tp), TopicPartitionStateZNode.encode(s))
             for tp, s in states.items()}, epoch_zk_version)
        return {tp: r if isinstance(r, ZkError) else None for tp, r in results.items()}

    async def update_partition_states(
            self, updates: Mapping[TopicPartition, tuple[LeaderIsrAndControllerEpoch, int]],
            epoch_zk_version: int) -> PartitionStateUpdates:
        """Write each partition's new state if its znode is still at the expected version
        (the partition epoch the caller read), fenced (Kafka's ``updateLeaderAndIsr``)."""
        results = await self._writes(
            {tp: SetDataOp(TopicPartitionStateZNode.path(tp),
                           TopicPartitionStateZNode.encode(state), expected)
             for tp, (state, expected) in updates.items()}, epoch_zk_version)
        out = PartitionStateUpdates()
        retry: list[TopicPartition] = []
        for tp, r in results.items():
            if isinstance(r, BadVersionError):
                retry.append(tp)
            elif isinstance(r, ZkError):
                out.failed[tp] = r
            else:
                assert isinstance(r, ZnodeStat)
                out.succeeded[tp] = r.version
        return PartitionStateUpdates(out.succeeded, out.failed, tuple(sorted(retry)))

    # -- topic deletion -----------------------------------------------------------------------

    async def create_delete_topic_path(self, topic: str) -> None:
        """Ask the controller to delete ``topic``; NodeExistsError if already asked."""
        await self._create_recursive(DeleteTopicsTopicZNode.path(topic))

    async def is_topic_marked_for_deletion(self, topic: str) -> bool:
        return await self.path_exists(DeleteTopicsTopicZNode.path(topic))

    async def get_topic_deletions(self, watch: Watch | None = None) -> list[str]:
        return await self._children(DeleteTopicsZNode.PATH, watch)

    async def delete_topic_deletions(self, topics: Iterable[str], epoch_zk_version: int) -> None:
        results = await self._writes(
            {t: DeleteOp(DeleteTopicsTopicZNode.path(t)) for t in topics}, epoch_zk_version)
        _raise_unexpected(results, NoNodeError)
