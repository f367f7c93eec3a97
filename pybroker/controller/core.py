"""What every part of the ZooKeeper-mode controller shares (Kafka's ``KafkaController`` fields and
its state-change plumbing): the controller's view, the state machines, the channel to the
brokers, the event queue, and how one state change is carried out - the pure state machine
decides, this performs its ZooKeeper reads and compare-and-set writes, then sends the batch of
requests it collected (LeaderAndIsr, then UpdateMetadata, then StopReplica).

The controller itself (:class:`~pybroker.controller.kafka_controller.KafkaController`) is this
core with its parts: the event loop, election and failover, broker and topic events
(``kafka_controller.py``), topic deletion (``topic_deletion.py``) and the requests it answers
(``controller_requests.py``).

Concurrency notes: everything here is owned by the controller's event task.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from protocol.errors import ErrorCode
from protocol.messages import ApiKey
from pybroker.controller import election, events as ev
from pybroker.controller.channel import ChannelRequestFailed, ControllerChannelManager
from pybroker.controller.context import BrokerInfo, ControllerContext
from pybroker.controller.metrics import ControllerMetrics
from pybroker.controller.model import (
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    PartitionAndReplica,
    ReadOutcome,
    ReplicaAssignment,
    WriteOutcome,
)
from pybroker.controller.partition_state_machine import (
    PartitionState,
    PartitionStateChange,
    PartitionStateMachine,
)
from pybroker.controller.replica_state_machine import ReplicaState, ReplicaStateMachine
from pybroker.controller.request_batch import RequestBatch
from pybroker.kernel.types import TopicPartition, tp_str
from pybroker.metrics.registry import MetricsRegistry
from pybroker.security.sasl_client import SaslClientCredentials

log = logging.getLogger(__name__)
state_change_log = logging.getLogger("pybroker.state.change")


def kafka_leader_and_isr(state: LeaderAndIsr) -> str:
    """A leader and ISR as Kafka 3.9's state-change log prints one (``LeaderAndIsr.toString``;
    a ZooKeeper-mode controller knows no broker epochs: -1)."""
    members = ", ".join(f"BrokerState(brokerId={b}, brokerEpoch=-1)" for b in state.isr)
    return (f"LeaderAndIsr(leader={state.leader}, leaderEpoch={state.leader_epoch}, "
            f"isrWithBrokerEpoch=List({members}), "
            f"leaderRecoveryState={state.leader_recovery_state.name}, "
            f"partitionEpoch={state.partition_epoch})")


Watch = Callable[[], None]


class ControllerMovedError(Exception):
    """Another broker is (or became) the controller: a write was fenced off by the
    ``/controller_epoch`` check, or the election was lost (Kafka's ControllerMovedException).
    The store raises it; the controller resigns on it."""


class ControllerStore(Protocol):
    """The ZooKeeper operations the controller performs (implemented by
    :mod:`pybroker.modes.zookeeper.controller_store`). Writes raise
    :class:`ControllerMovedError` when the ``/controller_epoch`` check fails."""

    async def register_controller(self, broker_id: int) -> tuple[int, int] | None:
        """Create /controller and bump /controller_epoch: ``(epoch, epoch znode version)``, or
        None when another broker won."""
        ...

    async def controller_id(self, watch: Watch) -> int | None: ...

    async def resign(self, epoch_zk_version: int) -> None:
        """Delete /controller if this broker still holds it (under the epoch check)."""
        ...

    async def brokers(self, watch: Watch) -> dict[int, BrokerInfo]: ...

    async def broker(self, broker_id: int, watch: Watch) -> BrokerInfo | None:
        """One broker's registration; ``watch`` fires once when its znode changes or goes."""
        ...

    async def topics(self, watch: Watch) -> set[str]: ...

    async def assignments(self, topics: Iterable[str], watch: Callable[[str], Watch],
                          ) -> dict[str, tuple[Any, dict[int, ReplicaAssignment]]]:
        """Each topic's id (None when the znode has none) and partition assignments; ``watch``
        makes the data watch for a topic's znode."""
        ...

    async def set_assignment(self, topic: str, topic_id: Any,
                             partitions: Mapping[int, ReplicaAssignment],
                             epoch_zk_version: int) -> None:
        """Rewrite the topic's assignment znode (a reassignment's steps), fenced."""
        ...

    async def set_topic_id(self, topic: str, topic_id: Any,
                           assignment: Mapping[int, ReplicaAssignment]) -> None: ...

    async def read_states(self, partitions: Iterable[TopicPartition],
                          ) -> dict[TopicPartition, ReadOutcome]: ...

    async def create_states(self, states: Mapping[TopicPartition, LeaderIsrAndControllerEpoch],
                            epoch_zk_version: int) -> dict[TopicPartition, WriteOutcome]: ...

    async def update_states(self, states: Mapping[TopicPartition, LeaderAndIsr],
                            controller_epoch: int, epoch_zk_version: int,
                            ) -> dict[TopicPartition, WriteOutcome]: ...

    async def unclean_enabled(self, topic: str) -> bool: ...

    async def topic_deletions(self, watch: Watch) -> set[str]: ...

    async def delete_topic(self, topic: str, epoch_zk_version: int) -> None:
        """Remove the topic's znodes (assignment, partitions, config, deletion request)."""
        ...

    async def delete_deletion_requests(self, topics: Iterable[str],
                                       epoch_zk_version: int) -> None: ...

    async def reassignment_requests(self, watch: Watch | None,
                                    ) -> dict[TopicPartition, tuple[int, ...]]:
        """What ``/admin/reassign_partitions`` asks for (``watch``: its creation)."""
        ...

    async def set_reassignment_requests(self, remaining: Mapping[TopicPartition, Sequence[int]],
                                        epoch_zk_version: int) -> None:
        """Keep ``remaining`` in ``/admin/reassign_partitions``, deleting it when empty."""
        ...

    async def preferred_election_requests(self, watch: Watch) -> frozenset[TopicPartition]:
        """What ``/admin/preferred_replica_election`` asks for (``watch``: its creation)."""
        ...

    async def delete_preferred_election_requests(self, epoch_zk_version: int) -> None: ...

    async def isr_change_notifications(self, watch: Watch | None) -> list[str]:
        """The sequence numbers under ``/isr_change_notification`` (``watch``: its children)."""
        ...

    async def isr_changed_partitions(self, sequence_numbers: Sequence[str],
                                     ) -> list[TopicPartition]: ...

    async def delete_isr_change_notifications(self, sequence_numbers: Sequence[str],
                                              epoch_zk_version: int) -> None: ...

    async def finalized_features(self) -> tuple[int, int, dict[str, int]] | None:
        """``/feature``: (version, status, finalized levels), or None when absent."""
        ...

    async def set_finalized_features(self, features: Mapping[str, int]) -> None:
        """Write ``/feature``, enabled, with these finalized features."""
        ...

    async def allocate_producer_id_block(self, broker_id: int) -> tuple[int, int]:
        """Reserve the next block of producer ids for ``broker_id`` in
        ``/latest_producer_id_block``: (first id, size)."""
        ...

    async def log_dir_event_notifications(self, watch: Watch | None) -> list[str]:
        """The sequence numbers under ``/log_dir_event_notification`` (``watch``: its
        children)."""
        ...

    async def log_dir_event_brokers(self, sequence_numbers: Sequence[str]) -> list[int]: ...

    async def delete_log_dir_event_notifications(self, sequence_numbers: Sequence[str],
                                                 epoch_zk_version: int) -> None: ...


class ControllerSettings(Protocol):
    inter_broker_listener: str
    socket_timeout_ms: int
    auto_leader_rebalance: bool
    leader_imbalance_check_interval_s: float
    leader_imbalance_per_broker_percentage: int
    delete_topic_enable: bool
    #: TLS to the brokers' inter-broker listener (None: PLAINTEXT)
    ssl_context: ssl.SSLContext | None
    #: how to authenticate to them (a SASL_* inter-broker listener), or None
    sasl: SaslClientCredentials | None


class ControllerCore:
    def __init__(self, broker_id: int, store: ControllerStore,
                 settings: ControllerSettings,
                 channel_factory: Callable[[int], ControllerChannelManager] | None = None,
                 metrics: MetricsRegistry | None = None,
                 ) -> None:
        """``metrics``: the broker's registry (a registry of its own by default)."""
        self.broker_id = broker_id
        self.store = store
        self.settings = settings
        self._channel_factory = channel_factory or (
            lambda controller_id: ControllerChannelManager(
                controller_id, socket_timeout_ms=settings.socket_timeout_ms,
                ssl_context=settings.ssl_context, sasl=settings.sasl))
        self.context = ControllerContext()
        self.partitions = PartitionStateMachine(self.context, broker_id)
        self.replicas = ReplicaStateMachine(self.context, broker_id)
        self.channel: ControllerChannelManager | None = None
        #: the controller as last read from /controller (-1: none known)
        self.active_controller_id = -1
        #: this broker is the controller and has sent every broker the cluster's state
        #: (its requests may still be on their way)
        self.failover_complete = False
        #: each event with the time it was queued at (time.perf_counter)
        self._queue: asyncio.Queue[tuple[ev.ControllerEvent, float]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._timers: list[asyncio.Task[None]] = []
        #: called with the controller id whenever it changes (the broker logs it)
        self.on_controller_change: Callable[[int], None] = lambda _id: None
        #: called with each topic whose deletion this controller completed
        self.deletion_listeners: list[Callable[[str], None]] = []
        self.metrics = ControllerMetrics(self, metrics if metrics is not None
                                         else MetricsRegistry())

    @property
    def is_active(self) -> bool:
        return self.active_controller_id == self.broker_id

    def queued_events(self) -> int:
        """Events waiting for the controller's task (EventQueueSize)."""
        return self._queue.qsize()

    def put(self, event: ev.ControllerEvent) -> None:
        self._queue.put_nowait((event, time.perf_counter()))

    def _watch(self, event: ev.ControllerEvent) -> Watch:
        return lambda: self.put(event)

    async def _load_assignments(self, topics: Iterable[str]) -> None:
        ctx = self.context
        found = await self.store.assignments(
            topics, lambda topic: self._watch(ev.PartitionModifications(topic)))
        for topic, (topic_id, partitions) in found.items():
            if topic_id is None:  # a topic written by an old tool: give it an id
                topic_id = uuid.uuid4()
                await self.store.set_topic_id(topic, topic_id, partitions)
            ctx.add_topic_id(topic, topic_id)
            for partition, assignment in partitions.items():
                ctx.update_partition_full_replica_assignment((topic, partition), assignment)
                if assignment.is_being_reassigned:
                    ctx.partitions_being_reassigned.add((topic, partition))

    async def maybe_complete_reassignment(self, tp: TopicPartition) -> None:
        """An ISR change was recorded: a reassignment waiting for it may finish
        (:mod:`pybroker.controller.reassignment`)."""

    def _add_channel(self, broker: BrokerInfo) -> None:
        assert self.channel is not None
        endpoint = broker.endpoint(self.settings.inter_broker_listener)
        if endpoint is None:
            log.error("Broker %d has no endpoint on the inter-broker listener %s", broker.id,
                      self.settings.inter_broker_listener)
            return
        self.channel.add_broker(broker.id, endpoint.host, endpoint.port)

    # -- state changes -------------------------------------------------------------------------
    async def _partition_change(self, partitions: Iterable[TopicPartition],
                                target: PartitionState,
                                strategy: election.ElectionStrategy | None = None,
                                ) -> PartitionStateChange:
        ctx = self.context
        batch = RequestBatch(ctx)
        change = self.partitions.handle_state_changes(batch, sorted(partitions), target, strategy)
        if change.to_create:
            self.partitions.on_created(
                change, await self.store.create_states(change.to_create, ctx.epoch_zk_version))
        while change.to_elect:
            states = await self.store.read_states(change.to_elect)
            unclean = {topic: await self.store.unclean_enabled(topic)
                       for topic in self.partitions.unclean_config_topics(change, states)}
            writes = self.partitions.elect(change, states, unclean)
            if writes:
                self.partitions.on_elected(change, await self.store.update_states(
                    writes, ctx.epoch, ctx.epoch_zk_version))
        prefix = f"[Controller id={self.broker_id} epoch={ctx.epoch}]"
        for tp, source, to, leader_and_isr in change.transitions:
            if to is PartitionState.NEW:
                state_change_log.info("%s Changed partition %s state from %s to %s with "
                                      "assigned replicas %s", prefix, tp_str(tp), source, to,
                                      ",".join(map(str, ctx.partition_replica_assignment(tp))))
            elif leader_and_isr is not None:
                state_change_log.info("%s Changed partition %s from %s to %s with state %s",
                                      prefix, tp_str(tp), source, to,
                                      kafka_leader_and_isr(leader_and_isr))
            else:  # Kafka's are TRACE
                state_change_log.debug("%s Changed partition %s state from %s to %s", prefix,
                                       tp_str(tp), source, to)
        for illegal in change.illegal:
            state_change_log.error("%s %s", prefix, illegal)
        for tp, failure in change.failed.items():
            state_change_log.warning("%s Controller %d epoch %d failed to change state for "
                                     "partition %s from %s to %s: %s", prefix, self.broker_id,
                                     ctx.epoch, tp_str(tp), ctx.partition_state(tp), target,
                                     failure)
        self._send(batch)
        return change

    async def _replica_change(self, replicas: Iterable[PartitionAndReplica],
                              target: ReplicaState) -> None:
        ctx = self.context
        batch = RequestBatch(ctx)
        change = self.replicas.handle_state_changes(batch, replicas, target)
        while (step := change.next_isr_removal()) is not None:
            _broker, partitions = step
            writes = self.replicas.remove_replica_from_isr(
                change, await self.store.read_states(partitions))
            outcomes = await self.store.update_states(writes, ctx.epoch, ctx.epoch_zk_version) \
                if writes else {}
            self.replicas.on_isr_removed(change, outcomes)
        prefix = f"[Controller id={self.broker_id} epoch={ctx.epoch}]"
        for illegal in change.illegal:
            state_change_log.error("%s %s", prefix, illegal)
        for replica, failure in change.failed.items():
            state_change_log.warning("%s Controller %d epoch %d failed to change state of "
                                     "replica %s to %s: %s", prefix, self.broker_id, ctx.epoch,
                                     replica, target, failure)
        self._send(batch)

    async def _trigger_online_partitions(self, topic: str | None = None) -> None:
        """Kafka's ``triggerOnlinePartitionStateChange``: New and Offline partitions go Online
        under the offline strategy (unclean only where the topic allows it)."""
        partitions = self.partitions.partitions_to_trigger_online(topic)
        if partitions:
            await self._partition_change(partitions, PartitionState.ONLINE, election.OFFLINE)

    def _send(self, batch: RequestBatch) -> None:
        if self.channel is None or batch.is_empty():
            return
        ctx = self.context
        prefix = f"[Controller id={self.broker_id} epoch={ctx.epoch}]"
        requests = batch.requests(self.broker_id, ctx.epoch, self.settings.inter_broker_listener)
        metadata_to: list[int] = []
        metadata_partitions = 0
        for request in requests:
            if request.api_key == ApiKey.LEADER_AND_ISR:
                states = _partition_states(request.request)
                leading = sum(1 for p in states if p.leader == request.broker_id)
                state_change_log.info("%s Sending LeaderAndIsr request to broker %d with %d "
                                      "become-leader and %d become-follower partitions", prefix,
                                      request.broker_id, leading, len(states) - leading)
            elif request.api_key == ApiKey.UPDATE_METADATA:
                metadata_to.append(request.broker_id)
                metadata_partitions = max(metadata_partitions,
                                          len(_partition_states(request.request)))
        if metadata_to:
            state_change_log.info("%s Sending UpdateMetadata request to brokers HashSet(%s) for "
                                  "%d partitions", prefix, ", ".join(map(str, sorted(metadata_to))),
                                  metadata_partitions)
        for request in requests:
            self.channel.send(request.broker_id, request.api_key, request.version,
                              request.request, self._response_handler(request.broker_id,
                                                                      request.api_key))

    def _response_handler(self, broker_id: int, api_key: ApiKey) -> Callable[[Any], None]:
        def handle(response: Any) -> None:
            if isinstance(response, ChannelRequestFailed):
                return  # the broker left; its replicas were handled by the broker change
            if api_key == ApiKey.STOP_REPLICA:
                errors = {(e.topic_name, e.partition_index): ErrorCode(e.error_code)
                          for e in response.partition_errors}
                self.put(ev.TopicDeletionStopReplicaResponse(broker_id, errors))
            elif api_key == ApiKey.LEADER_AND_ISR:
                self.put(ev.LeaderAndIsrResponseReceived(
                    broker_id, ErrorCode(response.error_code), leader_and_isr_errors(response)))
            elif response.error_code:
                log.warning("Broker %d answered %s with %s", broker_id, api_key.name,
                            ErrorCode(response.error_code).name)
        return handle


def _partition_states(request: Any) -> list[Any]:
    """The partition states of a LeaderAndIsr or UpdateMetadata request, grouped by topic
    (v2+ and v5+) or not."""
    grouped = getattr(request, "topic_states", None) or []
    return [p for t in grouped for p in t.partition_states] or \
        list(getattr(request, "ungrouped_partition_states", None) or [])


def leader_and_isr_errors(response: Any) -> dict[tuple[Any, int], ErrorCode]:
    """A LeaderAndIsr response's partition errors: keyed by topic id from v5 (its ``topics``),
    by topic name before (``partition_errors``)."""
    if response.topics:
        return {(t.topic_id, e.partition_index): ErrorCode(e.error_code)
                for t in response.topics for e in t.partition_errors}
    return {(e.topic_name, e.partition_index): ErrorCode(e.error_code)
            for e in response.partition_errors}
