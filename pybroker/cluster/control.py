"""What a broker does with the controller's requests in ZooKeeper mode: LeaderAndIsr,
UpdateMetadata and StopReplica (Kafka's ``KafkaApis`` control-plane handling,
``ReplicaManager.becomeLeaderOrFollower`` / ``stopReplicas`` and ``ZkMetadataCache``).

Every control request carries the controller epoch and the epoch the controller knows this
broker by. A request from an older controller epoch than one already seen is stale
(STALE_CONTROLLER_EPOCH); one naming an older incarnation of this broker (a broker epoch below
its own; -1 skips the check) is stale too (STALE_BROKER_EPOCH): a quickly restarted broker must
not apply decisions meant for the process before it (KIP-380). A request that passes adopts its
controller epoch. Each request is logged with its controller and epoch, applied or ignored, so
that a broker's log shows which controller it obeyed when (the chaos proof reads it: no request
of a deposed controller's epoch is applied once its successor has spoken).

Then, per partition of a LeaderAndIsr: a topic id different from the one already known is
INCONSISTENT_TOPIC_ID; a leader epoch not above the partition's current one is
STALE_CONTROLLER_EPOCH (a new controller resends current states, which brokers already up to
date answer so, harmlessly); a partition whose replicas leave this broker out is
UNKNOWN_TOPIC_OR_PARTITION; the rest become leader or follower through the replica manager,
whose leadership listeners hear of it. StopReplica applies when its leader epoch is -2 (the topic
is being deleted), -1 (none given) or at least the partition's; otherwise FENCED_LEADER_EPOCH.

A topic this broker hosts no partition of yet has its config overrides read first
(:attr:`ControlRequestHandler.topic_config_loader`, ZooKeeper's ``/config/topics/<t>``), as
Kafka reads them when it creates a log: its logs open with the topic's ``min.insync.replicas``,
retention and the rest rather than the broker defaults.

Concurrency notes: everything runs on the event loop; each request is applied whole, and the
controller sends a broker its next request only once the previous one is answered.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode
from pybroker.cluster.metadata_cache import BrokerNode, MetadataCache, PartitionUpdate
from pybroker.kernel.outcome import Outcome
from pybroker.kernel.types import TopicPartition

if TYPE_CHECKING:
    from pybroker.cluster.replica_manager import ReplicaManager
    from pybroker.metadata.model import PartitionRecord

log = logging.getLogger(__name__)


#: the controller epoch a broker knows before any controller has spoken to it
INITIAL_CONTROLLER_EPOCH = 0
NO_EPOCH = -1
EPOCH_DURING_DELETE = -2


@dataclass(frozen=True, slots=True)
class LeaderAndIsrPartition:
    topic: str
    topic_id: uuid.UUID
    record: PartitionRecord
    is_new: bool = False


@dataclass(frozen=True, slots=True)
class StopReplicaPartition:
    topic: str
    partition: int
    leader_epoch: int
    delete: bool


class ControlRequestHandler:
    """Applies the controller's requests to this broker's replica manager and metadata cache.

    ``broker_epoch`` gives this broker's current epoch (its registration's czxid)."""

    def __init__(self, broker_id: int, replica_manager: ReplicaManager,
                 metadata_cache: MetadataCache, broker_epoch: Callable[[], int]) -> None:
        self.broker_id = broker_id
        self.replica_manager = replica_manager
        self.metadata_cache = metadata_cache
        self.broker_epoch = broker_epoch
        self.controller_epoch = INITIAL_CONTROLLER_EPOCH
        #: called with the topics each applied UpdateMetadata named (the admin manager's
        #: waiting CreateTopics/DeleteTopics answers)
        self.metadata_listeners: list[Callable[[list[str]], None]] = []
        #: called with the partitions an applied UpdateMetadata removed (their topic deleted;
        #: the group coordinator drops their offsets)
        self.deleted_partition_listeners: list[Callable[[list[tuple[str, int]]], None]] = []
        #: reads the config overrides of topics new to this broker into the config repository
        #: (ZooKeeper mode); None: the repository already knows every topic
        self.topic_config_loader: Callable[[list[str]], Awaitable[None]] | None = None

    def check_epochs(self, controller_epoch: int, broker_epoch: int) -> ErrorCode:
        """The request-wide fencing every control request goes through first."""
        if broker_epoch != NO_EPOCH and broker_epoch < self.broker_epoch():
            return ErrorCode.STALE_BROKER_EPOCH
        if controller_epoch < self.controller_epoch:
            return ErrorCode.STALE_CONTROLLER_EPOCH
        self.controller_epoch = controller_epoch
        return ErrorCode.NONE

    # -- LeaderAndIsr ----------------------------------------------------------------------
    def topics_to_load(self, partitions: Sequence[LeaderAndIsrPartition]) -> list[str]:
        """The topics of a LeaderAndIsr whose configs must be read before it is applied: those
        this broker hosts no partition of yet."""
        hosted = {topic for topic, _ in self.replica_manager.partitions}
        return sorted({p.topic for p in partitions} - hosted)

    def load_topic_configs(self, topics: list[str]) -> Outcome[None]:
        """Read ``topics``' config overrides (a future), or None when there is nothing to read.
        A read that fails is logged and the request goes on with what is known."""
        loader = self.topic_config_loader
        if loader is None or not topics:
            return None

        async def load() -> None:
            try:
                await loader(topics)
            except Exception as e:  # noqa: BLE001 - apply the request all the same
                log.warning("Could not read the configs of %s: %s; their logs open with the "
                            "configs known here", topics, e)

        return asyncio.ensure_future(load())

    def leader_and_isr(self, controller_id: int, controller_epoch: int, broker_epoch: int,
                       partitions: Sequence[LeaderAndIsrPartition], now_ms: int,
                       ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        error = self.check_epochs(controller_epoch, broker_epoch)
        if error:
            log.warning("Ignoring LeaderAndIsr from controller %d epoch %d: %s", controller_id,
                        controller_epoch, error.name)
            return error, {}
        results: dict[TopicPartition, ErrorCode] = {}
        accepted: dict[str, list[PartitionRecord]] = {}
        new_partitions: dict[str, set[int]] = defaultdict(set)
        topic_ids: dict[str, uuid.UUID] = {}
        for p in partitions:
            tp = (p.topic, p.record.partition)
            results[tp] = self._classify(p)
            if results[tp] == ErrorCode.NONE:
                accepted.setdefault(p.topic, []).append(p.record)
                if p.is_new:
                    new_partitions[p.topic].add(p.record.partition)
                if p.topic_id.int:
                    topic_ids[p.topic] = p.topic_id
        for topic, records in accepted.items():
            refused = self.replica_manager.become_leader_or_follower(
                topic, records, now_ms, is_new=new_partitions[topic])
            for partition, error in refused.items():
                results[(topic, partition)] = error
            for record in records:
                hosted = self.replica_manager.get_partition(topic, record.partition)
                if hosted is not None and topic in topic_ids:
                    hosted.topic_id = topic_ids[topic]
        log.info("LeaderAndIsr from controller %d epoch %d: %d partition(s), %d applied",
                 controller_id, controller_epoch, len(results),
                 sum(1 for e in results.values() if e == ErrorCode.NONE))
        return ErrorCode.NONE, results

    def _classify(self, p: LeaderAndIsrPartition) -> ErrorCode:
        if (p.topic, p.record.partition) in self.replica_manager.offline_partitions:
            return ErrorCode.KAFKA_STORAGE_ERROR  # its log dir failed
        hosted = self.replica_manager.get_partition(p.topic, p.record.partition)
        if hosted is not None and hosted.topic_id is not None and p.topic_id.int \
                and hosted.topic_id != p.topic_id:
            return ErrorCode.INCONSISTENT_TOPIC_ID
        if hosted is not None and hosted.log is not None \
                and p.record.leader_epoch <= hosted.leader_epoch:
            return ErrorCode.STALE_CONTROLLER_EPOCH
        if self.broker_id not in p.record.replicas:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        return ErrorCode.NONE

    # -- UpdateMetadata ----------------------------------------------------------------------
    def update_metadata(self, controller_id: int, controller_epoch: int, broker_epoch: int,
                        live_brokers: list[BrokerNode], partitions: list[PartitionUpdate],
                        ) -> ErrorCode:
        error = self.check_epochs(controller_epoch, broker_epoch)
        if error:
            log.warning("Ignoring UpdateMetadata from controller %d epoch %d: %s", controller_id,
                        controller_epoch, error.name)
            return error
        removed = self.metadata_cache.update_metadata(controller_id, live_brokers, partitions)
        log.info("UpdateMetadata from controller %d epoch %d: %d partition(s), %d live "
                 "broker(s)", controller_id, controller_epoch, len(partitions), len(live_brokers))
        topics = sorted({p.topic for p in partitions})
        for listener in self.metadata_listeners:
            listener(topics)
        if removed:
            for deleted in self.deleted_partition_listeners:
                deleted(removed)
        return ErrorCode.NONE

    # -- StopReplica -------------------------------------------------------------------------
    def stop_replica(self, controller_id: int, controller_epoch: int, broker_epoch: int,
                     partitions: Sequence[StopReplicaPartition], now_ms: int,
                     ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        error = self.check_epochs(controller_epoch, broker_epoch)
        if error:
            log.warning("Ignoring StopReplica from controller %d epoch %d: %s", controller_id,
                        controller_epoch, error.name)
            return error, {}
        log.info("StopReplica from controller %d epoch %d: %d partition(s)", controller_id,
                 controller_epoch, len(partitions))
        results: dict[TopicPartition, ErrorCode] = {}
        for p in partitions:
            if (p.topic, p.partition) in self.replica_manager.offline_partitions:
                results[(p.topic, p.partition)] = ErrorCode.KAFKA_STORAGE_ERROR
                continue
            hosted = self.replica_manager.get_partition(p.topic, p.partition)
            if hosted is not None and p.leader_epoch not in (NO_EPOCH, EPOCH_DURING_DELETE) \
                    and p.leader_epoch < hosted.leader_epoch:
                results[(p.topic, p.partition)] = ErrorCode.FENCED_LEADER_EPOCH
                continue
            self.replica_manager.stop_replicas(p.topic, [p.partition], delete=p.delete,
                                               now_ms=now_ms)
            results[(p.topic, p.partition)] = ErrorCode.NONE
        return ErrorCode.NONE, results
