"""The legacy admin requests of :class:`~pybroker.zk.kafka_zk.KafkaZkClient`: partition
reassignments under ``/admin/reassign_partitions`` and preferred replica elections under
``/admin/preferred_replica_election``, read with a watch the controller sets."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence

from pybroker.kernel.types import TopicPartition
from pybroker.zk.client import (
    DeleteOp,
    NoNodeError,
    SetDataOp,
    Watch,
)
from pybroker.zk.kafka_zk_base import KafkaZkBase
from pybroker.zk.znodes import (
    PreferredReplicaElectionZNode,
    ReassignPartitionsZNode,
    ZNodeDecodeError,
)

# KafkaZkClient logs under one name, whichever of its parts speaks
log = logging.getLogger("pybroker.zk.kafka_zk")


class AdminZkOps(KafkaZkBase):
    """The legacy admin znodes in ZooKeeper (a part of :class:`KafkaZkClient`)."""

    # -- reassignments and preferred-replica elections (the legacy admin znodes) -------------

    async def get_partition_reassignment(self, watch: Watch | None = None
                                         ) -> dict[TopicPartition, tuple[int, ...]]:
        """The reassignment asked for in ``/admin/reassign_partitions`` (none if absent or
        unreadable, as Kafka ignores invalid JSON); ``watch`` is an existence watch."""
        data = await self._read_watched(ReassignPartitionsZNode.PATH, watch)
        if data is None:
            return {}
        try:
            return ReassignPartitionsZNode.decode(data)
        except ZNodeDecodeError as e:
            log.warning("Ignoring partition reassignment due to invalid json: %s", e)
            return {}

    async def create_partition_reassignment(
            self, reassignment: Mapping[TopicPartition, Sequence[int]]) -> None:
        await self._create_recursive(ReassignPartitionsZNode.PATH,
                                     ReassignPartitionsZNode.encode(reassignment))

    async def delete_partition_reassignment(self, epoch_zk_version: int) -> None:
        await self._delete_recursive(ReassignPartitionsZNode.PATH, epoch_zk_version)

    async def set_partition_reassignment(self, reassignment: Mapping[TopicPartition,
                                                                   Sequence[int]],
                                         epoch_zk_version: int) -> None:
        """Rewrite ``/admin/reassign_partitions`` with what is left of it, or delete it when
        nothing is (Kafka's ``setOrCreatePartitionReassignment`` and its deletion), fenced."""
        if not reassignment:
            await self.delete_partition_reassignment(epoch_zk_version)
            return
        try:
            await self._write(SetDataOp(ReassignPartitionsZNode.PATH,
                                        ReassignPartitionsZNode.encode(reassignment)),
                              epoch_zk_version)
        except NoNodeError:
            pass  # gone meanwhile: nothing left to keep

    async def get_preferred_replica_election(self, watch: Watch | None = None
                                             ) -> frozenset[TopicPartition]:
        """The partitions in ``/admin/preferred_replica_election``; ``watch`` is an existence
        watch."""
        data = await self._read_watched(PreferredReplicaElectionZNode.PATH, watch)
        return PreferredReplicaElectionZNode.decode(data) if data is not None else frozenset()

    async def create_preferred_replica_election(self,
                                                partitions: Iterable[TopicPartition]) -> None:
        await self._create_recursive(PreferredReplicaElectionZNode.PATH,
                                     PreferredReplicaElectionZNode.encode(partitions))

    async def delete_preferred_replica_election(self, epoch_zk_version: int) -> None:
        try:
            await self._write(DeleteOp(PreferredReplicaElectionZNode.PATH), epoch_zk_version)
        except NoNodeError:
            pass
