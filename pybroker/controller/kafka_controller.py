"""The ZooKeeper-mode controller (Kafka's ``KafkaController``): every broker runs this module;
the one that creates ``/controller`` is the cluster's controller until it loses it.

Theory of operation
-------------------
One queue, one task (:mod:`pybroker.controller.events`): ZooKeeper watches, the session, broker
and admin requests and timers only *enqueue*; :meth:`KafkaController._process` handles one event
at a time, awaiting ZooKeeper between steps but never starting the next event before this one is
done. Handlers other than the election's return early when this broker is not the controller.

Becoming controller (:meth:`_elect`) is Kafka's multi-op: create the ephemeral ``/controller``
and bump ``/controller_epoch`` at the version read. The controller then loads its view from
ZooKeeper (brokers, topics, assignments, partition states), tells every live broker who is alive,
re-sends every replica its partition's current state, and elects leaders for partitions that
have none (:meth:`_on_controller_failover`). Every ZooKeeper write it makes is conditional on the
``/controller_epoch`` version it won with; a failed condition means another controller took over,
and this one resigns (:class:`ControllerMovedError`).

Decisions are the pure state machines' (:mod:`partition_state_machine`,
:mod:`replica_state_machine`, :mod:`election`) over the :class:`ControllerContext`; this module
performs their ZooKeeper reads and compare-and-set writes and sends the requests each state
change batched (LeaderAndIsr, then UpdateMetadata, then StopReplica) through the
:class:`ControllerChannelManager`, one queue per broker.

Concurrency notes: the context, the state machines and the channel manager are owned by the
event task; public methods only enqueue and hand back futures.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey
from pybroker.admin import Reassignment
from pybroker.controller import election, events as ev
from pybroker.controller.channel import ChannelRequestFailed, ControllerChannelManager
from pybroker.controller.context import BrokerInfo, ControllerContext
from pybroker.controller.model import (
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    PartitionAndReplica,
    ReadOutcome,
    ReplicaAssignment,
    TopicPartition,
    WriteOutcome,
    tp_str,
)
from pybroker.controller.partition_state_machine import (
    PartitionState,
    PartitionStateChange,
    PartitionStateMachine,
)
from pybroker.controller.replica_state_machine import ReplicaState, ReplicaStateMachine
from pybroker.controller.request_batch import RequestBatch
from pybroker.zk.kafka_zk import ControllerMovedError

__all__ = ["ControllerMovedError", "ControllerStore", "KafkaController"]

log = logging.getLogger(__name__)
state_change_log = logging.getLogger("pybroker.state.change")

PREFERRED, UNCLEAN = 0, 1
AUTO_REBALANCE_FIRST_DELAY_S = 5.0

Watch = Callable[[], None]


class ControllerStore(Protocol):
    """The ZooKeeper operations the controller performs (``pybroker.zk``). Writes raise
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

    async def topics(self, watch: Watch) -> set[str]: ...

    async def assignments(self, topics: Iterable[str], watch: Callable[[str], Watch],
                          ) -> dict[str, tuple[Any, dict[int, ReplicaAssignment]]]:
        """Each topic's id (None when the znode has none) and partition assignments; ``watch``
        makes the data watch for a topic's znode."""
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


class ControllerSettings(Protocol):
    inter_broker_listener: str
    socket_timeout_ms: int
    auto_leader_rebalance: bool
    leader_imbalance_check_interval_s: float
    leader_imbalance_per_broker_percentage: int
    delete_topic_enable: bool


class KafkaController:
    def __init__(self, broker_id: int, store: ControllerStore,
                 settings: ControllerSettings,
                 channel_factory: Callable[[int], ControllerChannelManager] | None = None,
                 ) -> None:
        self.broker_id = broker_id
        self.store = store
        self.settings = settings
        self._channel_factory = channel_factory or (
            lambda controller_id: ControllerChannelManager(
                controller_id, socket_timeout_ms=settings.socket_timeout_ms))
        self.context = ControllerContext()
        self.partitions = PartitionStateMachine(self.context, broker_id)
        self.replicas = ReplicaStateMachine(self.context, broker_id)
        self.channel: ControllerChannelManager | None = None
        #: the controller as last read from /controller (-1: none known)
        self.active_controller_id = -1
        self._queue: asyncio.Queue[ev.ControllerEvent] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._timers: list[asyncio.Task[None]] = []
        #: called with the controller id whenever it changes (the broker logs it)
        self.on_controller_change: Callable[[int], None] = lambda _id: None

    # -- life cycle --------------------------------------------------------------------------
    @property
    def is_active(self) -> bool:
        return self.active_controller_id == self.broker_id

    def startup(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="controller")
        self.put(ev.Startup())

    async def shutdown(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self._resign_locally()

    def put(self, event: ev.ControllerEvent) -> None:
        self._queue.put_nowait(event)

    def session_expired(self) -> None:
        """The ZooKeeper session is gone: drop what is queued (its answers are NOT_CONTROLLER)
        and resign; the broker re-registers and calls :meth:`reelect` once it has."""
        while not self._queue.empty():
            self._fail(self._queue.get_nowait())
        self.put(ev.Expire())

    def reelect(self) -> None:
        self.put(ev.Reelect())

    async def _run(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                await self._process(event)
            except ControllerMovedError:
                log.info("Controller moved to another broker while processing %s; resigning",
                         type(event).__name__)
                self._fail(event)
                await self._resign()
                self.put(ev.Reelect())
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Error processing controller event %s", type(event).__name__)
                self._fail(event, ErrorCode.UNKNOWN_SERVER_ERROR)

    def _fail(self, event: ev.ControllerEvent, code: ErrorCode = ErrorCode.NOT_CONTROLLER,
              ) -> None:
        """Answer an event that will not be processed."""
        if isinstance(event, ev.ControlledShutdown):
            event.respond(code, [])
        elif isinstance(event, ev.ReplicaLeaderElection) and event.respond is not None:
            event.respond({tp: KafkaError(code) for tp in event.partitions})
        elif isinstance(event, ev.Call):
            event.respond(KafkaError(code))

    async def _process(self, event: ev.ControllerEvent) -> None:
        if isinstance(event, (ev.Startup, ev.Reelect)):
            if isinstance(event, ev.Reelect):
                await self._maybe_resign()
            await self._elect()
        elif isinstance(event, ev.ControllerChange):
            await self._maybe_resign()
        elif isinstance(event, ev.Expire):
            await self._resign_locally()
        elif isinstance(event, ev.ControlledShutdown):
            await self._controlled_shutdown(event)
        elif isinstance(event, ev.ReplicaLeaderElection):
            await self._replica_leader_election(event)
        elif isinstance(event, ev.Call):
            event.respond(event.fn())
        elif not self.is_active:
            return
        elif isinstance(event, ev.BrokerChange):
            await self._broker_change()
        elif isinstance(event, ev.TopicChange):
            await self._topic_change()
        elif isinstance(event, ev.PartitionModifications):
            await self._partition_modifications(event.topic)
        elif isinstance(event, ev.TopicDeletion):
            await self._topic_deletion()
        elif isinstance(event, ev.TopicDeletionStopReplicaResponse):
            await self._deletion_stop_replica_response(event)
        elif isinstance(event, ev.AutoPreferredReplicaLeaderElection):
            await self._auto_rebalance()

    # -- election and resignation ------------------------------------------------------------
    def _watch(self, event: ev.ControllerEvent) -> Watch:
        return lambda: self.put(event)

    async def _elect(self) -> None:
        active = await self.store.controller_id(self._watch(ev.ControllerChange()))
        if active is not None:
            self._set_active(active)
            return
        won = await self.store.register_controller(self.broker_id)
        if won is None:
            active = await self.store.controller_id(self._watch(ev.ControllerChange()))
            self._set_active(active if active is not None else -1)
            return
        self.context.epoch, self.context.epoch_zk_version = won
        self._set_active(self.broker_id)
        log.info("Broker %d is the controller with epoch %d", self.broker_id, self.context.epoch)
        try:
            await self._on_controller_failover()
        except ControllerMovedError:
            raise
        except Exception:
            log.exception("Error completing the controller failover; resigning")
            await self._resign()
            self.put(ev.Reelect())

    def _set_active(self, controller_id: int) -> None:
        if controller_id != self.active_controller_id:
            self.active_controller_id = controller_id
            self.on_controller_change(controller_id)

    async def _maybe_resign(self) -> None:
        was_active = self.is_active
        active = await self.store.controller_id(self._watch(ev.ControllerChange()))
        if active is None:
            # the znode is gone: elect again (a Reelect comes from its deletion watch)
            if was_active:
                await self._resign_locally()
            self._set_active(-1)
            self.put(ev.Reelect())
            return
        if was_active and active != self.broker_id:
            await self._resign_locally()
        self._set_active(active)

    async def _resign(self) -> None:
        epoch_zk_version = self.context.epoch_zk_version
        was_active = self.is_active
        await self._resign_locally()
        if was_active:
            try:
                await self.store.resign(epoch_zk_version)
            except ControllerMovedError:
                pass
        self._set_active(-1)

    async def _resign_locally(self) -> None:
        """Kafka's ``onControllerResignation``: forget the view, stop the channels and timers."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self.channel is not None:
            await self.channel.shutdown()
            self.channel = None
        if self.context.epoch:
            log.info("Broker %d resigned as the controller (epoch %d)", self.broker_id,
                     self.context.epoch)
        self.context.reset()
        if self.active_controller_id == self.broker_id:
            self._set_active(-1)

    # -- failover ------------------------------------------------------------------------------
    async def _on_controller_failover(self) -> None:
        ctx = self.context
        ctx.set_live_brokers((await self.store.brokers(self._watch(ev.BrokerChange()))).values())
        topics = await self.store.topics(self._watch(ev.TopicChange()))
        ctx.set_all_topics(topics)
        await self._load_assignments(topics)
        states = await self.store.read_states(sorted(ctx.all_partitions()))
        for tp, read in states.items():
            if isinstance(read, LeaderIsrAndControllerEpoch):
                ctx.put_partition_leadership_info(tp, read)
        deletions = await self.store.topic_deletions(self._watch(ev.TopicDeletion()))
        self.channel = self._channel_factory(self.broker_id)
        for broker in ctx.live_or_shutting_down_brokers:
            self._add_channel(broker)
        # who is alive first: a broker cannot follow a leader it does not know to be alive
        batch = RequestBatch(ctx)
        batch.add_update_metadata(ctx.live_or_shutting_down_broker_ids)
        self._send(batch)
        self.replicas.initialize_replica_states()
        online, offline = self.replicas.startup_transitions()
        await self._replica_change(online, ReplicaState.ONLINE)
        await self._replica_change(offline, ReplicaState.OFFLINE)
        self.partitions.initialize_partition_states()
        await self._trigger_online_partitions()
        await self._queue_deletions(deletions)
        if self.settings.auto_leader_rebalance:
            self._timers.append(asyncio.get_running_loop().create_task(
                self._rebalance_timer(), name="controller-auto-rebalance"))
        log.info("Controller %d epoch %d is ready: %d broker(s), %d topic(s), %d partition(s)",
                 self.broker_id, ctx.epoch, len(ctx.live_broker_ids), len(ctx.all_topics),
                 len(ctx.all_partitions()))

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
        for illegal in change.illegal:
            state_change_log.error("Controller %d epoch %d: %s", self.broker_id, ctx.epoch,
                                   illegal)
        for tp, failure in change.failed.items():
            state_change_log.warning("Controller %d epoch %d failed to change state of %s to %s: "
                                     "%s", self.broker_id, ctx.epoch, tp_str(tp), target,
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
        for illegal in change.illegal:
            state_change_log.error("Controller %d epoch %d: %s", self.broker_id, ctx.epoch,
                                   illegal)
        for replica, failure in change.failed.items():
            state_change_log.warning("Controller %d epoch %d failed to change state of replica "
                                     "%s to %s: %s", self.broker_id, ctx.epoch, replica, target,
                                     failure)
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
        for request in batch.requests(self.broker_id, ctx.epoch,
                                      self.settings.inter_broker_listener):
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
            elif response.error_code:
                log.warning("Broker %d answered %s with %s", broker_id, api_key.name,
                            ErrorCode(response.error_code).name)
        return handle

    # -- brokers --------------------------------------------------------------------------------
    async def _broker_change(self) -> None:
        ctx = self.context
        current = await self.store.brokers(self._watch(ev.BrokerChange()))
        cached = {b.id: b for b in ctx.live_or_shutting_down_brokers}
        new = sorted(set(current) - set(cached))
        dead = sorted(set(cached) - set(current))
        bounced = sorted(b for b in set(current) & set(cached)
                         if current[b].epoch > cached[b].epoch)
        if new or dead or bounced:
            log.info("Brokers: new %s, dead %s, bounced %s", new, dead, bounced)
        assert self.channel is not None
        for b in bounced:
            self.channel.remove_broker(b)
        for b in [*new, *bounced]:
            self._add_channel(current[b])
        for b in dead:
            self.channel.remove_broker(b)
        if new:
            ctx.add_live_brokers(current[b] for b in new)
            await self._on_broker_startup(new)
        if bounced:
            ctx.remove_live_brokers(bounced)
            await self._on_broker_failure(bounced)
            ctx.add_live_brokers(current[b] for b in bounced)
            await self._on_broker_startup(bounced)
        if dead:
            ctx.remove_live_brokers(dead)
            await self._on_broker_failure(dead)
        for b in set(current) & set(cached):
            if b not in bounced and current[b] != cached[b]:
                ctx.update_broker_metadata(current[b])

    async def _on_broker_startup(self, brokers: Sequence[int]) -> None:
        ctx = self.context
        existing = ctx.live_or_shutting_down_broker_ids - set(brokers)
        batch = RequestBatch(ctx)
        batch.add_update_metadata(existing)
        self._send(batch)
        batch = RequestBatch(ctx)
        batch.add_update_metadata(brokers, sorted(ctx.partitions_with_leaders()))
        self._send(batch)
        replicas = ctx.replicas_on_brokers(brokers)
        live = [r for r in replicas if not ctx.is_topic_queued_up_for_deletion(r[0][0])]
        await self._replica_change(sorted(live), ReplicaState.ONLINE)
        await self._trigger_online_partitions()
        deleting = {r[0][0] for r in replicas if ctx.is_topic_queued_up_for_deletion(r[0][0])}
        if deleting:
            ctx.topics_ineligible_for_deletion -= deleting
            await self._resume_deletions()

    async def _on_broker_failure(self, brokers: Sequence[int]) -> None:
        ctx = self.context
        ctx.shutting_down_broker_ids -= set(brokers)
        replicas = ctx.replicas_on_brokers(brokers)
        deleting = [r for r in replicas if ctx.is_topic_queued_up_for_deletion(r[0][0])]
        others = [r for r in replicas if not ctx.is_topic_queued_up_for_deletion(r[0][0])]
        offline_leaders = sorted(tp for tp in ctx.partitions_with_offline_leader()
                                 if not ctx.is_topic_queued_up_for_deletion(tp[0]))
        await self._partition_change(offline_leaders, PartitionState.OFFLINE)
        await self._trigger_online_partitions()
        await self._replica_change(sorted(others), ReplicaState.OFFLINE)
        if deleting:
            await self._replica_change(sorted(deleting), ReplicaState.DELETION_INELIGIBLE)
            ctx.topics_ineligible_for_deletion |= {r[0][0] for r in deleting}
        if not offline_leaders:
            batch = RequestBatch(ctx)
            batch.add_update_metadata(ctx.live_or_shutting_down_broker_ids)
            self._send(batch)

    # -- topics ---------------------------------------------------------------------------------
    async def _topic_change(self) -> None:
        ctx = self.context
        topics = await self.store.topics(self._watch(ev.TopicChange()))
        new = topics - ctx.all_topics
        gone = ctx.all_topics - topics
        ctx.set_all_topics(topics)
        for topic in gone:
            ctx.remove_topic(topic)
        if not new:
            return
        await self._load_assignments(sorted(new))
        partitions = [tp for topic in sorted(new) for tp in sorted(ctx.partitions_for_topic(topic))]
        log.info("New topics %s: %d partition(s)", sorted(new), len(partitions))
        await self._on_new_partitions(partitions)

    async def _partition_modifications(self, topic: str) -> None:
        ctx = self.context
        found = await self.store.assignments(
            [topic], lambda t: self._watch(ev.PartitionModifications(t)))
        if topic not in found or ctx.is_topic_queued_up_for_deletion(topic):
            return
        _, partitions = found[topic]
        new = [(topic, p) for p in sorted(partitions)
               if (topic, p) not in ctx.partitions_for_topic(topic)]
        if not new:
            return
        for tp in new:
            ctx.update_partition_full_replica_assignment(tp, partitions[tp[1]])
        log.info("Topic %s: new partitions %s", topic, [p for _, p in new])
        await self._on_new_partitions(new)

    async def _on_new_partitions(self, partitions: Sequence[TopicPartition]) -> None:
        """Kafka's ``onNewPartitionCreation``."""
        replicas = sorted(self.context.replicas_for_partition(partitions))
        await self._partition_change(partitions, PartitionState.NEW)
        await self._replica_change(replicas, ReplicaState.NEW)
        await self._partition_change(partitions, PartitionState.ONLINE, election.OFFLINE)
        await self._replica_change(replicas, ReplicaState.ONLINE)

    # -- topic deletion (Kafka's TopicDeletionManager) ------------------------------------------
    async def _topic_deletion(self) -> None:
        requested = await self.store.topic_deletions(self._watch(ev.TopicDeletion()))
        await self._queue_deletions(requested)

    async def _queue_deletions(self, requested: set[str]) -> None:
        ctx = self.context
        unknown = requested - ctx.all_topics
        if unknown:
            await self.store.delete_deletion_requests(sorted(unknown), ctx.epoch_zk_version)
        topics = requested & ctx.all_topics
        if not topics:
            return
        if not self.settings.delete_topic_enable:
            log.info("Topic deletion is disabled; removing the requests for %s", sorted(topics))
            await self.store.delete_deletion_requests(sorted(topics), ctx.epoch_zk_version)
            return
        new = topics - ctx.topics_to_be_deleted
        if new:
            log.info("Topics queued for deletion: %s", sorted(new))
            ctx.queue_topic_deletion(new)
        await self._resume_deletions()

    async def _resume_deletions(self) -> None:
        ctx = self.context
        for topic in sorted(ctx.topics_to_be_deleted):
            if ctx.are_all_replicas_in_state(topic, ReplicaState.DELETION_SUCCESSFUL):
                await self._complete_deletion(topic)
            elif ctx.is_any_replica_in_state(topic, ReplicaState.DELETION_STARTED):
                continue  # waiting for StopReplica answers
            elif ctx.is_topic_eligible_for_deletion(topic):
                await self._start_deletion(topic)

    async def _start_deletion(self, topic: str) -> None:
        ctx = self.context
        ctx.begin_topic_deletion([topic])
        partitions = sorted(ctx.partitions_for_topic(topic))
        # brokers stop serving the topic: leader -2 in UpdateMetadata
        batch = RequestBatch(ctx)
        batch.add_update_metadata(ctx.live_or_shutting_down_broker_ids, partitions)
        self._send(batch)
        await self._partition_change(partitions, PartitionState.OFFLINE)
        await self._partition_change(partitions, PartitionState.NON_EXISTENT)
        replicas = ctx.replicas_for_topic(topic)
        dead = sorted(r for r in replicas if not ctx.is_replica_online(r.replica, r[0]))
        live = sorted(set(replicas) - set(dead))
        if dead:
            await self._replica_change(dead, ReplicaState.DELETION_INELIGIBLE)
            ctx.topics_ineligible_for_deletion.add(topic)
        await self._replica_change(live, ReplicaState.OFFLINE)
        await self._replica_change(live, ReplicaState.DELETION_STARTED)
        if not live:
            await self._resume_deletions()

    async def _deletion_stop_replica_response(
            self, event: ev.TopicDeletionStopReplicaResponse) -> None:
        ctx = self.context
        succeeded: list[PartitionAndReplica] = []
        failed: list[PartitionAndReplica] = []
        for tp, error in event.errors.items():
            replica = PartitionAndReplica(tp, event.broker_id)
            if tp[0] not in ctx.topics_to_be_deleted \
                    or ctx.replica_state(replica) is not ReplicaState.DELETION_STARTED:
                continue
            (failed if error else succeeded).append(replica)
        if succeeded:
            await self._replica_change(sorted(succeeded), ReplicaState.DELETION_SUCCESSFUL)
        if failed:
            await self._replica_change(sorted(failed), ReplicaState.DELETION_INELIGIBLE)
            ctx.topics_ineligible_for_deletion |= {r[0][0] for r in failed}
        await self._resume_deletions()

    async def _complete_deletion(self, topic: str) -> None:
        ctx = self.context
        await self._replica_change(sorted(ctx.replicas_for_topic(topic)),
                                   ReplicaState.NON_EXISTENT)
        await self.store.delete_topic(topic, ctx.epoch_zk_version)
        ctx.topics_to_be_deleted.discard(topic)
        ctx.topics_with_deletion_started.discard(topic)
        ctx.topics_ineligible_for_deletion.discard(topic)
        ctx.remove_topic(topic)
        ctx.all_topics.discard(topic)
        log.info("Deletion of topic %s completed", topic)

    # -- controlled shutdown ----------------------------------------------------------------------
    def controlled_shutdown(self, broker_id: int, broker_epoch: int,
                            ) -> asyncio.Future[tuple[ErrorCode, list[TopicPartition]]]:
        fut: asyncio.Future[tuple[ErrorCode, list[TopicPartition]]] = \
            asyncio.get_running_loop().create_future()
        self.put(ev.ControlledShutdown(broker_id, broker_epoch,
                                       lambda code, left: _settle(fut, (code, left))))
        return fut

    async def _controlled_shutdown(self, event: ev.ControlledShutdown) -> None:
        ctx = self.context
        if not self.is_active:
            event.respond(ErrorCode.NOT_CONTROLLER, [])
            return
        broker = ctx.live_or_shutting_down_broker(event.broker_id)
        if broker is None:
            event.respond(ErrorCode.BROKER_NOT_AVAILABLE, [])
            return
        if event.broker_epoch != -1 and event.broker_epoch < broker.epoch:
            event.respond(ErrorCode.STALE_BROKER_EPOCH, [])
            return
        log.info("Broker %d is shutting down: moving its leaderships away", event.broker_id)
        ctx.shutting_down_broker_ids.add(event.broker_id)
        led, followed = ctx.controlled_shutdown_partitions(event.broker_id)
        if led:
            await self._partition_change(led, PartitionState.ONLINE,
                                         election.CONTROLLED_SHUTDOWN)
        if followed:
            batch = RequestBatch(ctx)
            for tp in sorted(followed):
                batch.add_stop_replica([event.broker_id], tp, delete_partition=False)
            self._send(batch)
            await self._replica_change(
                sorted(PartitionAndReplica(tp, event.broker_id) for tp in followed),
                ReplicaState.OFFLINE)
        event.respond(ErrorCode.NONE, sorted(ctx.partition_leaders_on_broker(event.broker_id)))

    # -- leader elections -------------------------------------------------------------------------
    def elect_leaders(self, partitions: Sequence[TopicPartition], election_type: int,
                      ) -> asyncio.Future[dict[TopicPartition, KafkaError | None]]:
        fut: asyncio.Future[dict[TopicPartition, KafkaError | None]] = \
            asyncio.get_running_loop().create_future()
        self.put(ev.ReplicaLeaderElection(list(partitions), election_type,
                                          lambda results: _settle(fut, results)))
        return fut

    async def _replica_leader_election(self, event: ev.ReplicaLeaderElection) -> None:
        ctx = self.context
        results: dict[TopicPartition, KafkaError | None] = {}
        if not self.is_active:
            if event.respond is not None:
                event.respond({tp: KafkaError(ErrorCode.NOT_CONTROLLER,
                                              "This is not the correct controller for this "
                                              "cluster.") for tp in event.partitions})
            return
        eligible: list[TopicPartition] = []
        for tp in event.partitions:
            info = ctx.partition_leadership_info(tp)
            if tp not in ctx.all_partitions() or info is None:
                results[tp] = KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                         "The partition does not exist.")
            elif ctx.is_topic_queued_up_for_deletion(tp[0]):
                results[tp] = KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                                         "Deleted topic cannot be elected")
            else:
                leader = info.leader_and_isr.leader
                live = ctx.is_replica_online(leader, tp)
                needed = (leader != ctx.partition_replica_assignment(tp)[0]
                          if event.election_type == PREFERRED else not live)
                if needed:
                    eligible.append(tp)
                else:
                    results[tp] = KafkaError(ErrorCode.ELECTION_NOT_NEEDED,
                                             "Leader election not needed for topic partition.")
        if eligible:
            strategy = (election.PREFERRED_REPLICA if event.election_type == PREFERRED
                        else election.OFFLINE_ALLOW_UNCLEAN)
            change = await self._partition_change(eligible, PartitionState.ONLINE, strategy)
            code = (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE if event.election_type == PREFERRED
                    else ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE)
            for tp in eligible:
                failure = change.failed.get(tp)
                results[tp] = None if tp in change.succeeded else KafkaError(
                    code, str(failure) if failure is not None else None)
        if event.respond is not None:
            event.respond(results)

    async def _rebalance_timer(self) -> None:
        await asyncio.sleep(AUTO_REBALANCE_FIRST_DELAY_S)
        while True:
            self.put(ev.AutoPreferredReplicaLeaderElection())
            await asyncio.sleep(self.settings.leader_imbalance_check_interval_s)

    async def _auto_rebalance(self) -> None:
        ctx = self.context
        if ctx.topics_to_be_deleted or ctx.partitions_being_reassigned:
            return
        candidates = election.auto_rebalance_candidates(
            ctx, self.settings.leader_imbalance_per_broker_percentage)
        for broker, partitions in candidates.items():
            if partitions and ctx.is_live_broker(broker) \
                    and broker not in ctx.shutting_down_broker_ids:
                log.info("Moving leadership of %d partition(s) back to their preferred leader "
                         "%d", len(partitions), broker)
                await self._replica_leader_election(
                    ev.ReplicaLeaderElection(partitions, PREFERRED))

    # -- reassignments ---------------------------------------------------------------------------
    def alter_partition_reassignments(
        self, targets: Mapping[TopicPartition, Sequence[int] | None],
    ) -> asyncio.Future[dict[TopicPartition, KafkaError | None]]:
        fut: asyncio.Future[dict[TopicPartition, KafkaError | None]] = \
            asyncio.get_running_loop().create_future()
        fut.set_result({tp: KafkaError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            "Partition reassignment is not available in this version's ZooKeeper mode yet")
            for tp in targets})
        return fut

    def list_partition_reassignments(self, partitions: Sequence[TopicPartition] | None,
                                     ) -> asyncio.Future[dict[TopicPartition, Reassignment]]:
        fut: asyncio.Future[dict[TopicPartition, Reassignment]] = \
            asyncio.get_running_loop().create_future()
        fut.set_result({})  # none is ever started (see alter_partition_reassignments)
        return fut

    def run_in_queue(self, fn: Callable[[], Any]) -> Awaitable[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.put(ev.Call(fn, lambda result: _settle(fut, result)))
        return fut


def _settle(fut: asyncio.Future[Any], result: Any) -> None:
    if not fut.done():
        fut.set_result(result)
