"""The controller's ZooKeeper operations (:class:`~pybroker.controller.kafka_controller.
ControllerStore`) over :class:`~pybroker.zk.kafka_zk.KafkaZkClient`: znode values turned into
the controller's own (:mod:`pybroker.controller.model`, :class:`BrokerInfo`) and back, and
ZooKeeper's failures into the outcomes the state machines take (:class:`ZkError`) or into the
controller's own :class:`~pybroker.controller.core.ControllerMovedError` when a write was
fenced off (the controller knows nothing of ZooKeeper's exceptions)."""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from pybroker.controller.context import BrokerEndpoint, BrokerInfo
from pybroker.controller.core import ControllerMovedError
from pybroker.controller.model import (
    BAD_VERSION,
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    LeaderRecoveryState,
    ReadOutcome,
    ReplicaAssignment,
    WriteOutcome,
    ZkError,
)
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.types import TopicPartition
from pybroker.zk import znodes
from pybroker.zk.client import NodeExistsError, ZkError as ZkClientError
from pybroker.zk.kafka_zk import KafkaZkClient
from pybroker.zk.kafka_zk_base import ControllerMovedError as ZkControllerMovedError
from pybroker.zk.znodes import CONFIG_TOPIC

Watch = Callable[[], None]
P = ParamSpec("P")
R = TypeVar("R")

_CODES = {"NoNodeError": "NONODE", "NodeExistsError": "NODEEXISTS", "BadVersionError": BAD_VERSION,
          "NotEmptyError": "NOTEMPTY", "ConnectionLossError": "CONNECTIONLOSS",
          "SessionExpiredError": "SESSIONEXPIRED"}


def _zk_error(e: BaseException) -> ZkError:
    return ZkError(_CODES.get(type(e).__name__, type(e).__name__), str(e))


def broker_info(registration: znodes.BrokerRegistration, epoch: int) -> BrokerInfo:
    endpoints = tuple(BrokerEndpoint(e.listener_name, e.host or "", e.port, e.security_protocol)
                      for e in registration.endpoints)
    first = endpoints[0] if endpoints else BrokerEndpoint("PLAINTEXT", "", -1)
    return BrokerInfo(registration.broker_id, epoch, first.host, first.port,
                      registration.rack, endpoints)


def _state(state: znodes.LeaderIsrAndControllerEpoch, version: int,
           ) -> LeaderIsrAndControllerEpoch:
    return LeaderIsrAndControllerEpoch(
        LeaderAndIsr(state.leader, state.leader_epoch, state.isr,
                     LeaderRecoveryState(state.leader_recovery_state), version),
        state.controller_epoch)


def _znode(lai: LeaderAndIsr, controller_epoch: int) -> znodes.LeaderIsrAndControllerEpoch:
    return znodes.LeaderIsrAndControllerEpoch(lai.leader, lai.leader_epoch, lai.isr,
                                              controller_epoch, int(lai.leader_recovery_state))


def _fenced(method: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """ZooKeeper's fencing failure raised as the controller's own ControllerMovedError."""
    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except ZkControllerMovedError as e:
            raise ControllerMovedError(str(e)) from e
    return call


class ZkControllerStore:
    """The :class:`~pybroker.controller.core.ControllerStore` of a ZooKeeper-mode broker."""

    def __init__(self, zk: KafkaZkClient, *, unclean_default: bool = False,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.zk = zk
        self.clock = clock
        #: the broker's ``unclean.leader.election.enable``, which a topic override replaces
        self.unclean_default = unclean_default

    @_fenced
    async def register_controller(self, broker_id: int) -> tuple[int, int] | None:
        try:
            return await self.zk.register_controller_and_increment_epoch(
                broker_id, self.clock.milliseconds())
        except ZkControllerMovedError:
            return None

    @_fenced
    async def controller_id(self, watch: Watch) -> int | None:
        return await self.zk.get_controller_id(lambda _event: watch())

    @_fenced
    async def resign(self, epoch_zk_version: int) -> None:
        await self.zk.delete_controller(epoch_zk_version)

    @_fenced
    async def brokers(self, watch: Watch) -> dict[int, BrokerInfo]:
        found = await self.zk.get_all_brokers(lambda _event: watch())
        return {b: broker_info(reg, epoch) for b, (reg, epoch) in found.items()}

    @_fenced
    async def broker(self, broker_id: int, watch: Watch) -> BrokerInfo | None:
        found = await self.zk.get_broker(broker_id, lambda _event: watch())
        return broker_info(*found) if found is not None else None

    @_fenced
    async def topics(self, watch: Watch) -> set[str]:
        return await self.zk.get_all_topics(lambda _event: watch())

    @_fenced
    async def assignments(self, topics: Iterable[str], watch: Callable[[str], Watch],
                          ) -> dict[str, tuple[uuid.UUID | None, dict[int, ReplicaAssignment]]]:
        names = sorted(set(topics))

        async def one(topic: str) -> tuple[str, tuple[znodes.TopicAssignment, int] | None]:
            fire = watch(topic)
            found = await self.zk.get_replica_assignment_and_topic_ids(
                [topic], lambda _event: fire())
            return topic, found.get(topic)

        out: dict[str, tuple[uuid.UUID | None, dict[int, ReplicaAssignment]]] = {}
        for topic, found in await asyncio.gather(*(one(t) for t in names)):
            if found is None:
                continue
            assignment, _version = found
            out[topic] = (assignment.topic_id, {
                p: ReplicaAssignment(a.replicas, a.adding_replicas, a.removing_replicas)
                for p, a in assignment.partitions.items()})
        return out

    @_fenced
    async def set_assignment(self, topic: str, topic_id: uuid.UUID | None,
                             partitions: Mapping[int, ReplicaAssignment],
                             epoch_zk_version: int) -> None:
        await self.zk.set_topic_assignment(topic, znodes.TopicAssignment(topic_id, {
            p: znodes.ReplicaAssignment(a.replicas, a.adding_replicas, a.removing_replicas)
            for p, a in partitions.items()}), epoch_zk_version=epoch_zk_version)

    @_fenced
    async def set_topic_id(self, topic: str, topic_id: uuid.UUID,
                           assignment: Mapping[int, ReplicaAssignment]) -> None:
        await self.zk.set_topic_assignment(topic, znodes.TopicAssignment(topic_id, {
            p: znodes.ReplicaAssignment(a.replicas, a.adding_replicas, a.removing_replicas)
            for p, a in assignment.items()}))

    @_fenced
    async def read_states(self, partitions: Iterable[TopicPartition],
                          ) -> dict[TopicPartition, ReadOutcome]:
        tps = list(partitions)
        try:
            found = await self.zk.get_partition_states(tps)
        except ZkClientError as e:
            return {tp: _zk_error(e) for tp in tps}
        return {tp: _state(*found[tp]) if tp in found else None for tp in tps}

    @_fenced
    async def create_states(self, states: Mapping[TopicPartition, LeaderIsrAndControllerEpoch],
                            epoch_zk_version: int) -> dict[TopicPartition, WriteOutcome]:
        results = await self.zk.create_partition_states(
            {tp: _znode(s.leader_and_isr, s.controller_epoch) for tp, s in states.items()},
            epoch_zk_version)
        out: dict[TopicPartition, WriteOutcome] = {}
        for tp, error in results.items():
            if error is None:
                out[tp] = 0
            elif isinstance(error, NodeExistsError):
                out[tp] = ZkError("NODEEXISTS", str(error))
            else:
                out[tp] = _zk_error(error)
        return out

    @_fenced
    async def update_states(self, states: Mapping[TopicPartition, LeaderAndIsr],
                            controller_epoch: int, epoch_zk_version: int,
                            ) -> dict[TopicPartition, WriteOutcome]:
        result = await self.zk.update_partition_states(
            {tp: (_znode(lai, controller_epoch), lai.partition_epoch)
             for tp, lai in states.items()}, epoch_zk_version)
        out: dict[TopicPartition, WriteOutcome] = dict(result.succeeded)
        out.update({tp: _zk_error(e) for tp, e in result.failed.items()})
        out.update({tp: ZkError(BAD_VERSION) for tp in result.to_retry})
        return out

    @_fenced
    async def unclean_enabled(self, topic: str) -> bool:
        configs = await self.zk.get_entity_configs(CONFIG_TOPIC, topic)
        value = configs.get("unclean.leader.election.enable")
        return self.unclean_default if value is None else value.strip().lower() == "true"

    @_fenced
    async def topic_deletions(self, watch: Watch) -> set[str]:
        return set(await self.zk.get_topic_deletions(lambda _event: watch()))

    @_fenced
    async def delete_topic(self, topic: str, epoch_zk_version: int) -> None:
        await self.zk.delete_topic_znode(topic, epoch_zk_version)
        await self.zk.delete_topic_configs([topic], epoch_zk_version)
        await self.zk.delete_topic_deletions([topic], epoch_zk_version)

    @_fenced
    async def delete_deletion_requests(self, topics: Iterable[str],
                                       epoch_zk_version: int) -> None:
        await self.zk.delete_topic_deletions(list(topics), epoch_zk_version)

    # -- the legacy admin znodes and ISR change notifications ----------------------------------
    @_fenced
    async def reassignment_requests(self, watch: Watch | None,
                                    ) -> dict[TopicPartition, tuple[int, ...]]:
        return await self.zk.get_partition_reassignment(
            None if watch is None else (lambda _event: watch()))

    @_fenced
    async def set_reassignment_requests(self, remaining: Mapping[TopicPartition, Sequence[int]],
                                        epoch_zk_version: int) -> None:
        await self.zk.set_partition_reassignment(remaining, epoch_zk_version)

    @_fenced
    async def preferred_election_requests(self, watch: Watch) -> frozenset[TopicPartition]:
        return await self.zk.get_preferred_replica_election(lambda _event: watch())

    @_fenced
    async def delete_preferred_election_requests(self, epoch_zk_version: int) -> None:
        await self.zk.delete_preferred_replica_election(epoch_zk_version)

    @_fenced
    async def isr_change_notifications(self, watch: Watch | None) -> list[str]:
        return await self.zk.get_all_isr_change_notifications(
            None if watch is None else (lambda _event: watch()))

    @_fenced
    async def isr_changed_partitions(self, sequence_numbers: Sequence[str],
                                     ) -> list[TopicPartition]:
        return await self.zk.get_partitions_from_isr_change_notifications(sequence_numbers)

    @_fenced
    async def delete_isr_change_notifications(self, sequence_numbers: Sequence[str],
                                              epoch_zk_version: int) -> None:
        await self.zk.delete_isr_change_notifications(sequence_numbers, epoch_zk_version)

    async def finalized_features(self) -> tuple[int, int, dict[str, int]] | None:
        return await self.zk.get_feature_znode()

    async def set_finalized_features(self, features: Mapping[str, int]) -> None:
        await self.zk.set_feature_znode(features)

    async def allocate_producer_id_block(self, broker_id: int) -> tuple[int, int]:
        block = await self.zk.allocate_producer_id_block(broker_id)
        return block.first_producer_id, block.size

    @_fenced
    async def log_dir_event_notifications(self, watch: Watch | None) -> list[str]:
        return await self.zk.get_all_log_dir_event_notifications(
            None if watch is None else (lambda _event: watch()))

    @_fenced
    async def log_dir_event_brokers(self, sequence_numbers: Sequence[str]) -> list[int]:
        return await self.zk.get_broker_ids_from_log_dir_events(sequence_numbers)

    @_fenced
    async def delete_log_dir_event_notifications(self, sequence_numbers: Sequence[str],
                                                 epoch_zk_version: int) -> None:
        await self.zk.delete_log_dir_event_notifications(sequence_numbers, epoch_zk_version)
