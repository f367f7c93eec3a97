"""The controller's metrics, as Kafka's ZooKeeper-mode ``KafkaController``,
``ControllerStats`` and ``ControllerEventManager`` register them.

- ``kafka.controller:type=KafkaController``: ActiveControllerCount (1 on the active controller,
  0 elsewhere: summed over the cluster it is exactly 1), and, 0 on every broker but the active
  controller, OfflinePartitionsCount, PreferredReplicaImbalanceCount, GlobalTopicCount,
  GlobalPartitionCount, TopicsToDeleteCount, ReplicasToDeleteCount,
  TopicsIneligibleToDeleteCount, ReplicasIneligibleToDeleteCount, ActiveBrokerCount; and
  ControllerState, the number of the state the controller is in (Kafka's ``ControllerState``
  values: 0 idle while no event is processed);
- ``kafka.controller:type=ControllerStats``: UncleanLeaderElectionsPerSec, and one timer per
  controller state, ``<State>RateAndTimeMs``, of the events processed in it (a broker change's
  is ``LeaderElectionRateAndTimeMs``, as in Kafka);
- ``kafka.controller:type=ControllerEventManager``: EventQueueSize and EventQueueTimeMs, how
  long events waited in the queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pybroker.controller import events as ev
from pybroker.controller.replica_state_machine import ReplicaState
from pybroker.metrics.registry import MetricsRegistry, Timer, mbean

if TYPE_CHECKING:
    from pybroker.controller.core import ControllerCore

#: Kafka's ControllerState values, and the name of each one's timer
STATES: dict[str, tuple[int, str | None]] = {
    "Idle": (0, None),
    "ControllerChange": (1, "ControllerChangeRateAndTimeMs"),
    "BrokerChange": (2, "LeaderElectionRateAndTimeMs"),
    "TopicChange": (3, "TopicChangeRateAndTimeMs"),
    "TopicDeletion": (4, "TopicDeletionRateAndTimeMs"),
    "AlterPartitionReassignment": (5, "PartitionReassignmentRateAndTimeMs"),
    "AutoLeaderBalance": (6, "AutoLeaderBalanceRateAndTimeMs"),
    "ManualLeaderBalance": (7, "ManualLeaderBalanceRateAndTimeMs"),
    "ControlledShutdown": (8, "ControlledShutdownRateAndTimeMs"),
    "IsrChange": (9, "IsrChangeRateAndTimeMs"),
    "LeaderAndIsrResponseReceived": (10, "LeaderAndIsrResponseReceivedRateAndTimeMs"),
    "LogDirChange": (11, "LogDirChangeRateAndTimeMs"),
    "ControllerShutdown": (12, "ControllerShutdownRateAndTimeMs"),
    "UncleanLeaderElectionEnable": (13, "UncleanLeaderElectionEnableRateAndTimeMs"),
    "TopicUncleanLeaderElectionEnable": (14, "TopicUncleanLeaderElectionEnableRateAndTimeMs"),
    "ListPartitionReassignment": (15, "ListPartitionReassignmentRateAndTimeMs"),
    "UpdateMetadataResponseReceived": (16, "UpdateMetadataResponseReceivedRateAndTimeMs"),
    "UpdateFeatures": (17, "UpdateFeaturesRateAndTimeMs"),
}

#: the state each event is processed in (Kafka's ``ControllerEvent.state``)
_EVENT_STATES: dict[type, str] = {
    ev.Startup: "ControllerChange", ev.ControllerChange: "ControllerChange",
    ev.Reelect: "ControllerChange", ev.Expire: "ControllerChange",
    ev.BrokerChange: "BrokerChange", ev.BrokerModifications: "BrokerChange",
    ev.TopicChange: "TopicChange", ev.PartitionModifications: "TopicChange",
    ev.TopicDeletion: "TopicDeletion", ev.TopicDeletionStopReplicaResponse: "TopicDeletion",
    ev.ZkPartitionReassignment: "AlterPartitionReassignment",
    ev.ZkPreferredReplicaElection: "ManualLeaderBalance",
    ev.ReplicaLeaderElection: "ManualLeaderBalance",
    ev.AutoPreferredReplicaLeaderElection: "AutoLeaderBalance",
    ev.ControlledShutdown: "ControlledShutdown",
    ev.IsrChangeNotification: "IsrChange", ev.AlterPartitionReceived: "IsrChange",
    ev.LogDirEventNotification: "LogDirChange",
    ev.LeaderAndIsrResponseReceived: "LeaderAndIsrResponseReceived",
}


#: Kafka's ``ZkMigrationState.ZK``: a ZooKeeper-mode cluster not migrating to KRaft
ZK_MIGRATION_STATE_ZK = 4


def state_of(event: ev.ControllerEvent) -> str:
    """The controller state ``event`` is processed in (a queued call names its own)."""
    if isinstance(event, ev.Call):
        return event.state
    return _EVENT_STATES.get(type(event), "Idle")


class ControllerMetrics:
    """The timers the event loop updates and the gauges read from the controller."""

    def __init__(self, controller: ControllerCore, registry: MetricsRegistry) -> None:
        self.controller = controller
        self.registry = registry
        #: the state of the event being processed (Idle between events)
        self.state = "Idle"
        self._timers: dict[str, Timer] = {
            state: registry.timer(mbean("kafka.controller", "ControllerStats", name))
            for state, (_, name) in STATES.items() if name is not None}
        self.queue_time = registry.histogram(
            mbean("kafka.controller", "ControllerEventManager", "EventQueueTimeMs"))
        registry.register(mbean("kafka.controller", "ControllerStats",
                                "UncleanLeaderElectionsPerSec"),
                          controller.context.unclean_leader_elections)
        registry.gauge(mbean("kafka.controller", "ControllerEventManager", "EventQueueSize"),
                       controller.queued_events)
        registry.gauge(mbean("kafka.controller", "KafkaController", "ControllerState"),
                       lambda: STATES[self.state][0])

        def gauge(name: str, read: object) -> None:
            registry.gauge(mbean("kafka.controller", "KafkaController", name),
                           lambda: read() if controller.is_active else 0)  # type: ignore[operator]

        registry.gauge(mbean("kafka.controller", "KafkaController", "ActiveControllerCount"),
                       lambda: int(controller.is_active))
        ctx = controller.context
        gauge("OfflinePartitionsCount", lambda: ctx.offline_partition_count)
        gauge("PreferredReplicaImbalanceCount", lambda: ctx.preferred_replica_imbalance_count)
        gauge("GlobalTopicCount", lambda: len(ctx.all_topics))
        gauge("GlobalPartitionCount",
              lambda: sum(len(p) for p in ctx.partition_assignments.values()))
        gauge("TopicsToDeleteCount", lambda: len(ctx.topics_to_be_deleted))
        gauge("ReplicasToDeleteCount", lambda: sum(
            1 for topic in ctx.topics_to_be_deleted for replica in ctx.replicas_for_topic(topic)
            if ctx.replica_states.get(replica) is not ReplicaState.DELETION_SUCCESSFUL))
        gauge("TopicsIneligibleToDeleteCount", lambda: len(ctx.topics_ineligible_for_deletion))
        gauge("ReplicasIneligibleToDeleteCount", lambda: sum(
            1 for topic in ctx.topics_ineligible_for_deletion
            for replica in ctx.replicas_for_topic(topic)
            if ctx.replica_states.get(replica) is ReplicaState.DELETION_INELIGIBLE))
        gauge("ActiveBrokerCount", lambda: len(ctx.live_or_shutting_down_broker_ids))
        # a ZooKeeper-mode controller fences no broker (KRaft's) and is in migration state ZK
        gauge("FencedBrokerCount", lambda: 0)
        registry.gauge(mbean("kafka.controller", "KafkaController", "ZkMigrationState"),
                       lambda: ZK_MIGRATION_STATE_ZK)

    def processed(self, state: str, duration_ms: float) -> None:
        timer = self._timers.get(state)
        if timer is not None:
            timer.update(duration_ms)
