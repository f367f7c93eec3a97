"""Building a ZooKeeper-mode controller's context for the controller's unit tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence

from pybroker.controller.context import BrokerEndpoint, BrokerInfo, ControllerContext
from pybroker.controller.model import (
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    LeaderRecoveryState,
    ReplicaAssignment,
)
from pybroker.kernel.types import TopicPartition

CONTROLLER_ID = 1
CONTROLLER_EPOCH = 5


def broker_epoch(broker_id: int) -> int:
    return 4_294_967_296 + broker_id  # czxids are large numbers


def broker(broker_id: int, rack: str | None = None) -> BrokerInfo:
    port = 9090 + broker_id
    return BrokerInfo(
        broker_id, broker_epoch(broker_id), "127.0.0.1", port, rack,
        (BrokerEndpoint("PLAINTEXT", "127.0.0.1", port, "PLAINTEXT"),
         BrokerEndpoint("CONTROLLER_LINK", "127.0.0.1", port + 100, "SASL_SSL")))


def topic_id(topic: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_DNS, topic)


def make_context(brokers: Iterable[int] = (1, 2, 3),
                 topics: Mapping[str, Sequence[Sequence[int]]] | None = None,
                 shutting_down: Iterable[int] = ()) -> ControllerContext:
    """Registered ``brokers``, ``shutting_down`` among them, and ``topics`` as topic -> the
    replicas of each partition, no partition with a leader yet."""
    ctx = ControllerContext()
    ctx.epoch = CONTROLLER_EPOCH
    ctx.epoch_zk_version = CONTROLLER_EPOCH - 1
    ctx.set_live_brokers(broker(b) for b in brokers)
    ctx.shutting_down_broker_ids.update(shutting_down)
    for topic, partitions in (topics or {}).items():
        ctx.all_topics.add(topic)
        ctx.add_topic_id(topic, topic_id(topic))
        for p, replicas in enumerate(partitions):
            ctx.update_partition_full_replica_assignment((topic, p), ReplicaAssignment(replicas))
    return ctx


def lead(ctx: ControllerContext, tp: TopicPartition, leader: int, isr: Sequence[int],
         leader_epoch: int = 0, partition_epoch: int = 0, controller_epoch: int | None = None,
         recovery: LeaderRecoveryState = LeaderRecoveryState.RECOVERED) -> LeaderIsrAndControllerEpoch:
    info = LeaderIsrAndControllerEpoch(
        LeaderAndIsr(leader, leader_epoch, tuple(isr), recovery, partition_epoch),
        CONTROLLER_EPOCH if controller_epoch is None else controller_epoch)
    ctx.put_partition_leadership_info(tp, info)
    return info


def read(leader: int, isr: list[int], epoch: int, version: int,
         controller_epoch: int = CONTROLLER_EPOCH) -> LeaderIsrAndControllerEpoch:
    """A partition's state as the controller reads it back from its znode (``version``: the
    znode's, which becomes the partition epoch)."""
    return LeaderIsrAndControllerEpoch(
        LeaderAndIsr(leader, epoch, tuple(isr), partition_epoch=version), controller_epoch)
