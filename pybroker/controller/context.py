"""The ZooKeeper-mode controller's view of the cluster (Kafka's ``ControllerContext``).

Theory of operation
-------------------
The controller loads this view from ZooKeeper when it becomes controller and then keeps it
current from the watches it gets, so that its decisions (elections, state changes, requests to
brokers) are made from memory; ZooKeeper is read again only where Kafka reads it again (a
partition's ``state`` before an election, to compare-and-set against its version).

It holds:

* the controller epoch and the version of the ``/controller_epoch`` znode that every write is
  conditional on;
* the registered brokers (:class:`BrokerInfo`: id, broker epoch, endpoints, rack) and the ones
  shutting down: a shutting-down broker is registered, receives requests, but is not *live* for
  elections and the ISR;
* topics, their ids, and each partition's :class:`ReplicaAssignment`;
* each partition's leadership (:class:`LeaderIsrAndControllerEpoch`, the content of its
  ``state`` znode);
* the partition and replica state machines' states;
* topic deletion (queued, started, ineligible) and reassignments in progress;
* the two gauges Kafka keeps here: offline partitions and preferred-replica imbalance.

Everything runs on the controller's single event loop; nothing here does I/O or blocks.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass

from pybroker.controller.model import (
    EMPTY_ASSIGNMENT,
    EPOCH_DURING_DELETE,
    INITIAL_CONTROLLER_EPOCH,
    INITIAL_CONTROLLER_EPOCH_ZK_VERSION,
    NO_EPOCH,
    LeaderIsrAndControllerEpoch,
    PartitionAndReplica,
    ReplicaAssignment,
)
from pybroker.controller.partition_state_machine import PartitionState
from pybroker.controller.replica_state_machine import ReplicaState
from pybroker.kernel.types import TopicPartition
from pybroker.metrics.registry import Meter

#: Kafka's ``SecurityProtocol`` ids, as UpdateMetadata carries them.
SECURITY_PROTOCOL_IDS: Mapping[str, int] = {
    "PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3,
}


@dataclass(frozen=True, slots=True)
class BrokerEndpoint:
    """One listener of a broker: ``PLAINTEXT://host:9092`` under its listener name."""

    listener: str
    host: str
    port: int
    security_protocol: str = "PLAINTEXT"

    @property
    def security_protocol_id(self) -> int:
        return SECURITY_PROTOCOL_IDS[self.security_protocol]


@dataclass(frozen=True, slots=True)
class BrokerInfo:
    """A registered broker as ``/brokers/ids/<id>`` describes it, with its broker epoch (the
    czxid of that znode). ``host`` and ``port`` are the registration's top-level pair."""

    id: int
    epoch: int
    host: str
    port: int
    rack: str | None = None
    endpoints: tuple[BrokerEndpoint, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "endpoints", tuple(self.endpoints))

    def endpoint(self, listener: str) -> BrokerEndpoint | None:
        for e in self.endpoints:
            if e.listener == listener:
                return e
        return None


class ControllerContext:
    def __init__(self) -> None:
        #: unclean leader elections this broker's controller made (Kafka's
        #: ``ControllerStats.uncleanLeaderElectionRate``; kept across resignations)
        self.unclean_leader_elections = Meter(time.monotonic())
        self.reset()

    def reset(self) -> None:
        """Forget everything: a new context, as on resignation."""
        self.epoch = INITIAL_CONTROLLER_EPOCH
        self.epoch_zk_version = INITIAL_CONTROLLER_EPOCH_ZK_VERSION
        self.shutting_down_broker_ids: set[int] = set()
        self._live_brokers: dict[int, BrokerInfo] = {}

        self.all_topics: set[str] = set()
        self.topic_ids: dict[str, uuid.UUID] = {}
        self.topic_names: dict[uuid.UUID, str] = {}
        self.partition_assignments: dict[str, dict[int, ReplicaAssignment]] = {}
        self._leadership: dict[TopicPartition, LeaderIsrAndControllerEpoch] = {}
        self.partitions_being_reassigned: set[TopicPartition] = set()
        self.partition_states: dict[TopicPartition, PartitionState] = {}
        self.replica_states: dict[PartitionAndReplica, ReplicaState] = {}
        self.replicas_on_offline_dirs: dict[int, set[TopicPartition]] = {}

        self.topics_to_be_deleted: set[str] = set()
        # Topics whose deletion has really started (no reassignment can touch them any more);
        # their partitions no longer count in offline_partition_count.
        self.topics_with_deletion_started: set[str] = set()
        self.topics_ineligible_for_deletion: set[str] = set()

        self.offline_partition_count = 0
        self.preferred_replica_imbalance_count = 0

    # -- brokers -----------------------------------------------------------------------------

    def set_live_brokers(self, brokers: Iterable[BrokerInfo]) -> None:
        self._live_brokers = {}
        self.add_live_brokers(brokers)

    def add_live_brokers(self, brokers: Iterable[BrokerInfo]) -> None:
        for broker in brokers:
            self._live_brokers[broker.id] = broker

    def remove_live_brokers(self, broker_ids: Iterable[int]) -> None:
        for broker_id in broker_ids:
            self._live_brokers.pop(broker_id, None)

    def update_broker_metadata(self, broker: BrokerInfo) -> None:
        """A registered broker's znode changed (endpoints, rack); its epoch is unchanged."""
        self._live_brokers[broker.id] = broker

    @property
    def live_broker_ids(self) -> frozenset[int]:
        """Registered and not shutting down: the brokers that may lead and be in an ISR."""
        return frozenset(self._live_brokers.keys() - self.shutting_down_broker_ids)

    def is_live_broker(self, broker_id: int) -> bool:
        return broker_id in self._live_brokers and broker_id not in self.shutting_down_broker_ids

    @property
    def live_or_shutting_down_broker_ids(self) -> frozenset[int]:
        """Every registered broker: the ones that receive the controller's requests."""
        return frozenset(self._live_brokers)

    @property
    def live_or_shutting_down_brokers(self) -> list[BrokerInfo]:
        return [self._live_brokers[i] for i in sorted(self._live_brokers)]

    def live_or_shutting_down_broker(self, broker_id: int) -> BrokerInfo | None:
        return self._live_brokers.get(broker_id)

    @property
    def live_broker_id_and_epochs(self) -> dict[int, int]:
        return {i: b.epoch for i, b in self._live_brokers.items()}

    def is_replica_online(self, broker_id: int, tp: TopicPartition,
                          include_shutting_down_brokers: bool = False) -> bool:
        """The broker is live (or, when asked, shutting down) and the replica's log dir is
        online."""
        if include_shutting_down_brokers:
            online = broker_id in self._live_brokers
        else:
            online = self.is_live_broker(broker_id)
        return online and tp not in self.replicas_on_offline_dirs.get(broker_id, ())

    # -- topics and assignments --------------------------------------------------------------

    def set_all_topics(self, topics: Iterable[str]) -> None:
        self.all_topics = set(topics)

    def add_topic_id(self, topic: str, topic_id: uuid.UUID) -> None:
        if topic not in self.all_topics:
            raise ValueError(f"topic {topic} is not contained in all topics.")
        existing = self.topic_ids.get(topic)
        if existing is not None and existing != topic_id:
            raise ValueError(f"topic ID map already contained ID for topic {topic} and new ID "
                             f"{topic_id} did not match existing ID {existing}")
        name = self.topic_names.get(topic_id)
        if name is not None and name != topic:
            raise ValueError(f"topic name map already contained ID {topic_id} and new name "
                             f"{topic} did not match existing name {name}")
        self.topic_ids[topic] = topic_id
        self.topic_names[topic_id] = topic

    def topic_name(self, topic_id: uuid.UUID) -> str | None:
        return self.topic_names.get(topic_id)

    def partition_replica_assignment(self, tp: TopicPartition) -> tuple[int, ...]:
        return self.partition_full_replica_assignment(tp).replicas

    def partition_full_replica_assignment(self, tp: TopicPartition) -> ReplicaAssignment:
        return self.partition_assignments.get(tp[0], {}).get(tp[1], EMPTY_ASSIGNMENT)

    def update_partition_full_replica_assignment(self, tp: TopicPartition,
                                                 assignment: ReplicaAssignment) -> None:
        assignments = self.partition_assignments.setdefault(tp[0], {})
        previous = assignments.get(tp[1])
        assignments[tp[1]] = assignment
        leadership = self._leadership.get(tp)
        self._update_imbalance(tp, previous, leadership, assignment, leadership)

    def partition_replica_assignment_for_topic(self, topic: str
                                               ) -> dict[TopicPartition, tuple[int, ...]]:
        return {(topic, p): a.replicas
                for p, a in sorted(self.partition_assignments.get(topic, {}).items())}

    def partition_full_replica_assignment_for_topic(self, topic: str
                                                    ) -> dict[TopicPartition, ReplicaAssignment]:
        return {(topic, p): a for p, a in sorted(self.partition_assignments.get(topic, {}).items())}

    def all_partitions(self) -> set[TopicPartition]:
        return {(t, p) for t, parts in self.partition_assignments.items() for p in parts}

    def partitions_for_topic(self, topic: str) -> set[TopicPartition]:
        return {(topic, p) for p in self.partition_assignments.get(topic, {})}

    def partitions_on_broker(self, broker_id: int) -> set[TopicPartition]:
        return {tp for tp, a in self._assignments() if broker_id in a.replicas}

    def replicas_on_brokers(self, broker_ids: Collection[int]) -> set[PartitionAndReplica]:
        return {PartitionAndReplica(tp, b) for tp, a in self._assignments()
                for b in a.replicas if b in broker_ids}

    def replicas_for_topic(self, topic: str) -> set[PartitionAndReplica]:
        return {PartitionAndReplica((topic, p), r)
                for p, a in self.partition_assignments.get(topic, {}).items() for r in a.replicas}

    def replicas_for_partition(self, partitions: Iterable[TopicPartition]
                               ) -> set[PartitionAndReplica]:
        return {PartitionAndReplica(tp, r) for tp in partitions
                for r in self.partition_replica_assignment(tp)}

    def online_and_offline_replicas(self) -> tuple[set[PartitionAndReplica],
                                                   set[PartitionAndReplica]]:
        online: set[PartitionAndReplica] = set()
        offline: set[PartitionAndReplica] = set()
        for tp, a in self._assignments():
            for r in a.replicas:
                (online if self.is_replica_online(r, tp) else offline).add(
                    PartitionAndReplica(tp, r))
        return online, offline

    def _assignments(self) -> Iterator[tuple[TopicPartition, ReplicaAssignment]]:
        for topic, parts in self.partition_assignments.items():
            for p, a in parts.items():
                yield (topic, p), a

    def remove_topic(self, topic: str) -> None:
        """The topic's znodes are gone: forget it."""
        # Its imbalance was uncounted when it was queued for deletion; a topic removed without
        # that is uncounted here.
        if topic not in self.topics_to_be_deleted:
            self._clean_imbalance(topic)
        self.topics_to_be_deleted.discard(topic)
        self.topics_with_deletion_started.discard(topic)
        self.all_topics.discard(topic)
        topic_id = self.topic_ids.pop(topic, None)
        if topic_id is not None:
            self.topic_names.pop(topic_id, None)
        for p in self.partition_assignments.pop(topic, {}):
            self._leadership.pop((topic, p), None)

    # -- deletion ----------------------------------------------------------------------------

    def queue_topic_deletion(self, topics: Iterable[str]) -> None:
        for topic in set(topics) - self.topics_to_be_deleted:
            self.topics_to_be_deleted.add(topic)
            self._clean_imbalance(topic)

    def begin_topic_deletion(self, topics: Iterable[str]) -> None:
        self.topics_with_deletion_started.update(topics)

    def is_topic_deletion_in_progress(self, topic: str) -> bool:
        return topic in self.topics_with_deletion_started

    def is_topic_queued_up_for_deletion(self, topic: str) -> bool:
        return topic in self.topics_to_be_deleted

    def is_topic_eligible_for_deletion(self, topic: str) -> bool:
        return (topic in self.topics_to_be_deleted
                and topic not in self.topics_ineligible_for_deletion)

    # -- replica states ----------------------------------------------------------------------

    def replica_state(self, replica: PartitionAndReplica) -> ReplicaState:
        return self.replica_states[replica]

    def put_replica_state(self, replica: PartitionAndReplica, state: ReplicaState) -> None:
        self.replica_states[replica] = state

    def put_replica_state_if_not_exists(self, replica: PartitionAndReplica,
                                        state: ReplicaState) -> None:
        self.replica_states.setdefault(replica, state)

    def remove_replica_state(self, replica: PartitionAndReplica) -> None:
        self.replica_states.pop(replica, None)

    def replicas_in_state(self, topic: str, state: ReplicaState) -> set[PartitionAndReplica]:
        return {r for r in self.replicas_for_topic(topic) if self.replica_states[r] is state}

    def are_all_replicas_in_state(self, topic: str, state: ReplicaState) -> bool:
        return all(self.replica_states[r] is state for r in self.replicas_for_topic(topic))

    def is_any_replica_in_state(self, topic: str, state: ReplicaState) -> bool:
        return any(self.replica_states[r] is state for r in self.replicas_for_topic(topic))

    # -- partition states --------------------------------------------------------------------

    def partition_state(self, tp: TopicPartition) -> PartitionState:
        return self.partition_states[tp]

    def put_partition_state(self, tp: TopicPartition, state: PartitionState) -> None:
        current = self.partition_states.get(tp, PartitionState.NON_EXISTENT)
        self.partition_states[tp] = state
        self._update_partition_state_metrics(tp, current, state)

    def put_partition_state_if_not_exists(self, tp: TopicPartition,
                                          state: PartitionState) -> None:
        if tp not in self.partition_states:
            self.partition_states[tp] = state
            self._update_partition_state_metrics(tp, PartitionState.NON_EXISTENT, state)

    def _update_partition_state_metrics(self, tp: TopicPartition, current: PartitionState,
                                        target: PartitionState) -> None:
        if self.is_topic_deletion_in_progress(tp[0]):
            return
        offline = PartitionState.OFFLINE
        if current is not offline and target is offline:
            self.offline_partition_count += 1
        elif current is offline and target is not offline:
            self.offline_partition_count -= 1

    def partitions_in_states(self, states: Collection[PartitionState],
                             topic: str | None = None) -> set[TopicPartition]:
        if topic is None:
            return {tp for tp, s in self.partition_states.items() if s in states}
        return {tp for tp in self.partitions_for_topic(topic)
                if self.partition_states[tp] in states}

    # -- leadership --------------------------------------------------------------------------

    def put_partition_leadership_info(self, tp: TopicPartition,
                                      info: LeaderIsrAndControllerEpoch) -> None:
        previous = self._leadership.get(tp)
        self._leadership[tp] = info
        assignment = self.partition_full_replica_assignment(tp)
        self._update_imbalance(tp, assignment, previous, assignment, info)

    def partition_leadership_info(self, tp: TopicPartition
                                  ) -> LeaderIsrAndControllerEpoch | None:
        return self._leadership.get(tp)

    @property
    def partitions_leadership_info(self) -> Mapping[TopicPartition, LeaderIsrAndControllerEpoch]:
        return self._leadership

    def clear_partition_leadership_info(self) -> None:
        self._leadership.clear()

    def leader_epoch(self, tp: TopicPartition) -> int:
        """StopReplica's leader epoch: -2 while the topic is queued for deletion, else the
        current leader epoch, -1 when there is none."""
        if self.is_topic_queued_up_for_deletion(tp[0]):
            return EPOCH_DURING_DELETE
        info = self._leadership.get(tp)
        return info.leader_and_isr.leader_epoch if info is not None else NO_EPOCH

    def partitions_with_leaders(self) -> set[TopicPartition]:
        return {tp for tp in self._leadership if not self.is_topic_queued_up_for_deletion(tp[0])}

    def partitions_with_offline_leader(self) -> set[TopicPartition]:
        return {tp for tp, info in self._leadership.items()
                if not self.is_replica_online(info.leader_and_isr.leader, tp)
                and not self.is_topic_queued_up_for_deletion(tp[0])}

    def partition_leaders_on_broker(self, broker_id: int) -> set[TopicPartition]:
        """Partitions the broker leads that could move (more than one replica, not being
        deleted): what a controlled shutdown answers as still to move."""
        return {tp for tp, info in self._leadership.items()
                if not self.is_topic_queued_up_for_deletion(tp[0])
                and info.leader_and_isr.leader == broker_id
                and len(self.partition_replica_assignment(tp)) > 1}

    @property
    def partition_with_leaders_count(self) -> int:
        return len(self._leadership)

    def controlled_shutdown_partitions(self, broker_id: int
                                       ) -> tuple[set[TopicPartition], set[TopicPartition]]:
        """The partitions a controlled shutdown of ``broker_id`` acts on - on the broker, more
        than one replica, with a leader, topic not being deleted - split into those it leads
        (which get a controlled-shutdown election) and those it follows (StopReplica, then
        OfflineReplica)."""
        led: set[TopicPartition] = set()
        followed: set[TopicPartition] = set()
        for tp in self.partitions_on_broker(broker_id):
            info = self._leadership.get(tp)
            if (info is None or len(self.partition_replica_assignment(tp)) <= 1
                    or self.is_topic_queued_up_for_deletion(tp[0])):
                continue
            (led if info.leader_and_isr.leader == broker_id else followed).add(tp)
        return led, followed

    # -- preferred replica imbalance ---------------------------------------------------------

    @staticmethod
    def has_preferred_leader(assignment: ReplicaAssignment,
                             info: LeaderIsrAndControllerEpoch) -> bool:
        """Led by its first replica; while that replica is still being added by a reassignment,
        the partition counts as balanced until it joins the ISR."""
        if not assignment.replicas:
            return True
        preferred = assignment.replicas[0]
        if assignment.is_being_reassigned and preferred in assignment.adding_replicas:
            return preferred not in info.leader_and_isr.isr
        return info.leader_and_isr.leader == preferred

    def _update_imbalance(self, tp: TopicPartition, old_assignment: ReplicaAssignment | None,
                          old_info: LeaderIsrAndControllerEpoch | None,
                          new_assignment: ReplicaAssignment | None,
                          new_info: LeaderIsrAndControllerEpoch | None) -> None:
        if self.is_topic_queued_up_for_deletion(tp[0]):
            return
        if old_assignment is not None and old_info is not None:
            if not self.has_preferred_leader(old_assignment, old_info):
                self.preferred_replica_imbalance_count -= 1
        if new_assignment is not None and new_info is not None:
            if not self.has_preferred_leader(new_assignment, new_info):
                self.preferred_replica_imbalance_count += 1

    def _clean_imbalance(self, topic: str) -> None:
        for p, assignment in self.partition_assignments.get(topic, {}).items():
            info = self._leadership.get((topic, p))
            if info is not None and not self.has_preferred_leader(assignment, info):
                self.preferred_replica_imbalance_count -= 1
