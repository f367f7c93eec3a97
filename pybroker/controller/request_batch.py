"""The requests one batch of controller state changes sends to brokers (Kafka's
``ControllerBrokerRequestBatch``), collected without sending anything.

Theory of operation
-------------------
Each state change the controller makes (an election, a replica going offline, a topic created)
adds to one batch what the brokers must hear of it: per broker, the partitions of its
LeaderAndIsr (the latest state of each; ``is_new`` stays set once set), of its StopReplica
(``delete_partition`` stays set once set), and the set of brokers that get an UpdateMetadata with
the batch's partitions. Every partition put into a LeaderAndIsr is also put into the
UpdateMetadata of every registered broker. Partition states are taken from the controller's
context when they are added, as Kafka takes them.

:meth:`RequestBatch.requests` turns the batch into the generated request dataclasses, in Kafka's
sending order - every LeaderAndIsr, then every UpdateMetadata, then every StopReplica - addressed
only to registered brokers (live or shutting down), each with that broker's epoch. The controller
core sends them, one queue per broker, and starts a new batch for the next state change.

Versions are those Kafka 3.9 sends with ``inter.broker.protocol.version`` 3.9
(``ControllerChannelManager``: IBP 3.4 and later): LeaderAndIsr v7, UpdateMetadata v8,
StopReplica v4 - the highest each spec defines (v7 and v8 add the KRaft-controller flag of
KIP-866, v4 the same; ``type`` stays 0, "unknown", outside a KRaft migration).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.messages import ApiKey
from protocol.messages.leader_and_isr_request import (
    LeaderAndIsrLiveLeader,
    LeaderAndIsrPartitionState,
    LeaderAndIsrRequest,
    LeaderAndIsrTopicState,
)
from protocol.messages.stop_replica_request import (
    StopReplicaPartitionState,
    StopReplicaRequest,
    StopReplicaTopicState,
)
from protocol.messages.update_metadata_request import (
    UpdateMetadataBroker,
    UpdateMetadataEndpoint,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
    UpdateMetadataTopicState,
)
from protocol.primitives import ZERO_UUID
from pybroker.controller.model import LeaderAndIsr, LeaderIsrAndControllerEpoch, ReplicaAssignment
from pybroker.kernel.types import TopicPartition

if TYPE_CHECKING:
    from pybroker.controller.context import ControllerContext

LEADER_AND_ISR_VERSION = 7
UPDATE_METADATA_VERSION = 8
STOP_REPLICA_VERSION = 4

ControlRequestBody = LeaderAndIsrRequest | UpdateMetadataRequest | StopReplicaRequest


@dataclass(frozen=True, slots=True)
class ControlRequest:
    """One request for one broker, ready to be encoded at ``version``."""

    broker_id: int
    api_key: ApiKey
    version: int
    request: ControlRequestBody


class BrokerEndpointNotAvailable(LookupError):
    """A leader named in a LeaderAndIsr has no endpoint on the inter-broker listener."""


@dataclass(slots=True)
class _UpdateMetadataState:
    controller_epoch: int
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    zk_version: int
    replicas: tuple[int, ...]
    offline_replicas: tuple[int, ...]


class RequestBatch:
    """One batch (Kafka's ``newBatch()`` ... ``sendRequestsToBrokers``): make a new one per state
    change. Reads the context when partitions are added; never changes it."""

    def __init__(self, context: ControllerContext) -> None:
        self.context = context
        self.leader_and_isr: dict[int, dict[TopicPartition, LeaderAndIsrPartitionState]] = {}
        self.stop_replica: dict[int, dict[TopicPartition, StopReplicaPartitionState]] = {}
        self.update_metadata_brokers: set[int] = set()
        self.update_metadata_partitions: dict[TopicPartition, _UpdateMetadataState] = {}

    def is_empty(self) -> bool:
        return not (self.leader_and_isr or self.stop_replica or self.update_metadata_brokers)

    # -- collecting --------------------------------------------------------------------------

    def add_leader_and_isr(self, broker_ids: Iterable[int], tp: TopicPartition,
                           state: LeaderIsrAndControllerEpoch, assignment: ReplicaAssignment,
                           is_new: bool) -> None:
        """``tp`` in ``state`` to each of ``broker_ids``, and into every registered broker's
        UpdateMetadata."""
        lai = state.leader_and_isr
        for broker in broker_ids:
            if broker < 0:
                continue
            partitions = self.leader_and_isr.setdefault(broker, {})
            previous = partitions.get(tp)
            partitions[tp] = LeaderAndIsrPartitionState(
                topic_name=tp[0],
                partition_index=tp[1],
                controller_epoch=state.controller_epoch,
                leader=lai.leader,
                leader_epoch=lai.leader_epoch,
                isr=list(lai.isr),
                partition_epoch=lai.partition_epoch,
                replicas=list(assignment.replicas),
                adding_replicas=list(assignment.adding_replicas),
                removing_replicas=list(assignment.removing_replicas),
                is_new=is_new or (previous is not None and previous.is_new),
                leader_recovery_state=int(lai.leader_recovery_state),
            )
        self.add_update_metadata(self.context.live_or_shutting_down_broker_ids, [tp])

    def add_stop_replica(self, broker_ids: Iterable[int], tp: TopicPartition,
                         delete_partition: bool) -> None:
        """StopReplica for ``tp`` to each of ``broker_ids``, with the partition's leader epoch
        (-2 while its topic is queued for deletion)."""
        leader_epoch = self.context.leader_epoch(tp)
        for broker in broker_ids:
            if broker < 0:
                continue
            partitions = self.stop_replica.setdefault(broker, {})
            previous = partitions.get(tp)
            partitions[tp] = StopReplicaPartitionState(
                partition_index=tp[1],
                leader_epoch=leader_epoch,
                delete_partition=delete_partition or (previous is not None
                                                      and previous.delete_partition),
            )

    def add_update_metadata(self, broker_ids: Iterable[int],
                            partitions: Iterable[TopicPartition] = ()) -> None:
        """An UpdateMetadata to each of ``broker_ids`` (the broker list alone when no partition
        is given), carrying ``partitions`` as the context knows them now; a partition with no
        leader yet is left out, one whose topic is queued for deletion goes with leader -2."""
        ctx = self.context
        self.update_metadata_brokers.update(b for b in broker_ids if b >= 0)
        for tp in partitions:
            info = ctx.partition_leadership_info(tp)
            if info is None:
                continue  # no leader assigned yet
            replicas = ctx.partition_replica_assignment(tp)
            offline = tuple(r for r in replicas if not ctx.is_replica_online(r, tp))
            lai = info.leader_and_isr
            if ctx.is_topic_queued_up_for_deletion(tp[0]):
                lai = LeaderAndIsr.during_delete(lai.isr)
            self.update_metadata_partitions[tp] = _UpdateMetadataState(
                info.controller_epoch, lai.leader, lai.leader_epoch, lai.isr,
                lai.partition_epoch, replicas, offline)

    # -- building ----------------------------------------------------------------------------

    def requests(self, controller_id: int, controller_epoch: int,
                 inter_broker_listener: str) -> list[ControlRequest]:
        """Every request of the batch, in sending order, each broker's in broker-id order;
        brokers no longer registered are left out. ``inter_broker_listener`` names the endpoint
        LeaderAndIsr's ``live_leaders`` carry."""
        registered = self.context.live_or_shutting_down_broker_ids
        epochs = self.context.live_broker_id_and_epochs
        out: list[ControlRequest] = []
        for broker in sorted(self.leader_and_isr):
            if broker in registered:
                out.append(ControlRequest(
                    broker, ApiKey.LEADER_AND_ISR, LEADER_AND_ISR_VERSION,
                    self._leader_and_isr_request(broker, controller_id, controller_epoch,
                                                 epochs[broker], inter_broker_listener)))
        if self.update_metadata_brokers:
            for broker in sorted(self.update_metadata_brokers & registered):
                out.append(ControlRequest(
                    broker, ApiKey.UPDATE_METADATA, UPDATE_METADATA_VERSION,
                    self._update_metadata_request(controller_id, controller_epoch,
                                                  epochs[broker])))
        for broker in sorted(self.stop_replica):
            if broker in registered:
                out.append(ControlRequest(
                    broker, ApiKey.STOP_REPLICA, STOP_REPLICA_VERSION,
                    self._stop_replica_request(broker, controller_id, controller_epoch,
                                               epochs[broker])))
        return out

    def _topic_id(self, topic: str) -> uuid.UUID:
        return self.context.topic_ids.get(topic, ZERO_UUID)

    def _leader_and_isr_request(self, broker: int, controller_id: int, controller_epoch: int,
                                broker_epoch: int, listener: str) -> LeaderAndIsrRequest:
        partitions = self.leader_and_isr[broker]
        topics: dict[str, LeaderAndIsrTopicState] = {}
        leader_ids: set[int] = set()
        for tp in sorted(partitions):
            state = partitions[tp]
            leader_ids.add(state.leader)
            topic = topics.get(tp[0])
            if topic is None:
                topic = topics[tp[0]] = LeaderAndIsrTopicState(topic_name=tp[0],
                                                               topic_id=self._topic_id(tp[0]))
            topic.partition_states.append(_grouped(state))
        leaders = []
        for info in self.context.live_or_shutting_down_brokers:
            if info.id in leader_ids:
                endpoint = info.endpoint(listener)
                if endpoint is None:
                    raise BrokerEndpointNotAvailable(
                        f"End point with listener name {listener} not found for broker "
                        f"{info.id}")
                leaders.append(LeaderAndIsrLiveLeader(broker_id=info.id, host_name=endpoint.host,
                                                      port=endpoint.port))
        return LeaderAndIsrRequest(controller_id=controller_id, is_kraft_controller=False,
                                   controller_epoch=controller_epoch, broker_epoch=broker_epoch,
                                   type=0, topic_states=list(topics.values()),
                                   live_leaders=leaders)

    def _update_metadata_request(self, controller_id: int, controller_epoch: int,
                                 broker_epoch: int) -> UpdateMetadataRequest:
        topics: dict[str, UpdateMetadataTopicState] = {}
        for tp in sorted(self.update_metadata_partitions):
            s = self.update_metadata_partitions[tp]
            topic = topics.get(tp[0])
            if topic is None:
                topic = topics[tp[0]] = UpdateMetadataTopicState(topic_name=tp[0],
                                                                 topic_id=self._topic_id(tp[0]))
            topic.partition_states.append(UpdateMetadataPartitionState(
                partition_index=tp[1], controller_epoch=s.controller_epoch, leader=s.leader,
                leader_epoch=s.leader_epoch, isr=list(s.isr), zk_version=s.zk_version,
                replicas=list(s.replicas), offline_replicas=list(s.offline_replicas)))
        brokers = [
            UpdateMetadataBroker(
                id=info.id,
                endpoints=[UpdateMetadataEndpoint(port=e.port, host=e.host, listener=e.listener,
                                                  security_protocol=e.security_protocol_id)
                           for e in info.endpoints],
                rack=info.rack)
            for info in self.context.live_or_shutting_down_brokers
        ]
        return UpdateMetadataRequest(controller_id=controller_id, is_kraft_controller=False,
                                     type=0, controller_epoch=controller_epoch,
                                     broker_epoch=broker_epoch,
                                     topic_states=list(topics.values()), live_brokers=brokers)

    def _stop_replica_request(self, broker: int, controller_id: int, controller_epoch: int,
                              broker_epoch: int) -> StopReplicaRequest:
        partitions = self.stop_replica[broker]
        topics: dict[str, StopReplicaTopicState] = {}
        for tp in sorted(partitions):
            topic = topics.get(tp[0])
            if topic is None:
                topic = topics[tp[0]] = StopReplicaTopicState(topic_name=tp[0])
            s = partitions[tp]
            topic.partition_states.append(StopReplicaPartitionState(
                partition_index=s.partition_index, leader_epoch=s.leader_epoch,
                delete_partition=s.delete_partition))
        return StopReplicaRequest(controller_id=controller_id, is_kraft_controller=False,
                                  controller_epoch=controller_epoch, broker_epoch=broker_epoch,
                                  delete_partitions=False, topic_states=list(topics.values()))


def _grouped(state: LeaderAndIsrPartitionState) -> LeaderAndIsrPartitionState:
    """A copy for a request grouped by topic (v2+), where the topic name is not per partition."""
    return LeaderAndIsrPartitionState(
        partition_index=state.partition_index, controller_epoch=state.controller_epoch,
        leader=state.leader, leader_epoch=state.leader_epoch, isr=list(state.isr),
        partition_epoch=state.partition_epoch, replicas=list(state.replicas),
        adding_replicas=list(state.adding_replicas),
        removing_replicas=list(state.removing_replicas), is_new=state.is_new,
        leader_recovery_state=state.leader_recovery_state)
