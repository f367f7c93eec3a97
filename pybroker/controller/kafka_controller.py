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
import inspect
import logging
import time
from collections.abc import Iterable, Sequence

from protocol.errors import ErrorCode, KafkaError
from pybroker.controller import election, events as ev
from pybroker.controller.controller_requests import ControllerRequests
from pybroker.controller.core import (
    ControllerCore,
    ControllerMovedError,
    ControllerSettings,
    ControllerStore,
    state_change_log,
)
from pybroker.controller.features import FEATURES_ENABLED, FEATURES_VERSION
from pybroker.controller.metrics import state_of
from pybroker.controller.model import LeaderIsrAndControllerEpoch, PartitionAndReplica
from pybroker.controller.partition_state_machine import (
    PartitionState,
)
from pybroker.controller.reassignment import ReassignmentManager
from pybroker.controller.replica_state_machine import ReplicaState
from pybroker.controller.request_batch import RequestBatch
from pybroker.controller.topic_deletion import TopicDeletionManager
from pybroker.kernel.types import TopicPartition

__all__ = ["ControllerMovedError", "ControllerSettings", "ControllerStore", "KafkaController"]

log = logging.getLogger(__name__)


class KafkaController(ReassignmentManager, TopicDeletionManager, ControllerRequests,
                      ControllerCore):
    """The ZooKeeper-mode controller module of one broker."""

    # -- life cycle --------------------------------------------------------------------------
    def startup(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="controller")
        self.put(ev.Startup())

    async def shutdown(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self._resign_locally()

    def session_expired(self) -> None:
        """The ZooKeeper session is gone: drop what is queued (its answers are NOT_CONTROLLER)
        and resign; the broker re-registers and calls :meth:`reelect` once it has."""
        while not self._queue.empty():
            self._fail(self._queue.get_nowait()[0])
        self.put(ev.Expire())

    def reelect(self) -> None:
        self.put(ev.Reelect())

    def enable_default_unclean_leader_election(self) -> None:
        """The broker default of ``unclean.leader.election.enable`` became true (a dynamic
        broker config): the active controller elects its offline partitions again, uncleanly
        where no topic override forbids it (Kafka's UncleanLeaderElectionEnable)."""
        async def trigger() -> None:
            if self.is_active:
                await self._trigger_online_partitions()
        self.put(ev.Call(trigger, lambda _result: None, state="UncleanLeaderElectionEnable"))

    async def _run(self) -> None:
        metrics = self.metrics
        while True:
            event, enqueued = await self._queue.get()
            started = time.perf_counter()
            metrics.queue_time.update((started - enqueued) * 1000)
            metrics.state = state = state_of(event)
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
            finally:
                metrics.state = "Idle"
                metrics.processed(state, (time.perf_counter() - started) * 1000)

    def _fail(self, event: ev.ControllerEvent, code: ErrorCode = ErrorCode.NOT_CONTROLLER,
              ) -> None:
        """Answer an event that will not be processed."""
        if isinstance(event, ev.ControlledShutdown):
            event.respond(code, [])
        elif isinstance(event, ev.AlterPartitionReceived):
            event.respond(code, {})
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
        elif isinstance(event, ev.AlterPartitionReceived):
            await self._alter_partition(event)
        elif isinstance(event, ev.Call):
            result = event.fn()
            if inspect.isawaitable(result):
                result = await result
            event.respond(result)
        elif not self.is_active:
            return
        elif isinstance(event, ev.BrokerChange):
            await self._broker_change()
        elif isinstance(event, ev.BrokerModifications):
            await self._broker_modifications(event.broker_id)
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
        elif isinstance(event, ev.ZkPartitionReassignment):
            await self._zk_partition_reassignment()
        elif isinstance(event, ev.ZkPreferredReplicaElection):
            await self._zk_preferred_replica_election()
        elif isinstance(event, ev.IsrChangeNotification):
            await self._isr_change_notification()
        elif isinstance(event, ev.LogDirEventNotification):
            await self._log_dir_event_notification()
        elif isinstance(event, ev.LeaderAndIsrResponseReceived):
            await self._leader_and_isr_response(event)

    # -- election and resignation ------------------------------------------------------------
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
        self.failover_complete = False
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
    async def _enable_feature_versioning(self) -> None:
        """Kafka's ``enableFeatureVersioning``: ``/feature`` exists and is enabled, at its
        current version (a disabled node's features are dropped, as Kafka drops them)."""
        found = await self.store.finalized_features()
        if found is None:
            await self.store.set_finalized_features({})
            return
        version, status, features = found
        if status != FEATURES_ENABLED:
            if features:
                log.warning("/feature was disabled with finalized features %s: dropping them",
                            features)
            features = {}
        if (version, status) != (FEATURES_VERSION, FEATURES_ENABLED):
            await self.store.set_finalized_features(features)

    async def _on_controller_failover(self) -> None:
        ctx = self.context
        await self._enable_feature_versioning()
        ctx.set_live_brokers((await self.store.brokers(self._watch(ev.BrokerChange()))).values())
        await self._watch_broker_modifications(ctx.live_or_shutting_down_broker_ids)
        topics = await self.store.topics(self._watch(ev.TopicChange()))
        ctx.set_all_topics(topics)
        await self._load_assignments(topics)
        states = await self.store.read_states(sorted(ctx.all_partitions()))
        for tp, read in states.items():
            if isinstance(read, LeaderIsrAndControllerEpoch):
                ctx.put_partition_leadership_info(tp, read)
        deletions = await self.store.topic_deletions(self._watch(ev.TopicDeletion()))
        # notifications left by leaders for a previous controller: this one reads every state
        stale = await self.store.isr_change_notifications(self._watch(ev.IsrChangeNotification()))
        if stale:
            await self.store.delete_isr_change_notifications(stale, ctx.epoch_zk_version)
        # log dir failures left for a previous controller: the LeaderAndIsr every replica gets
        # below finds the offline replicas again (their brokers answer KAFKA_STORAGE_ERROR)
        stale = await self.store.log_dir_event_notifications(
            self._watch(ev.LogDirEventNotification()))
        if stale:
            await self.store.delete_log_dir_event_notifications(stale, ctx.epoch_zk_version)
        self.channel = self._channel_factory(self.broker_id)
        self.channel.register_metrics(self.metrics.registry)
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
        # reassignments asked for in /admin/reassign_partitions meanwhile, then the ones in
        # progress that the topics' znodes record
        started = await self._zk_partition_reassignment()
        for tp in sorted(ctx.partitions_being_reassigned - started):
            await self._on_partition_reassignment(tp, ctx.partition_full_replica_assignment(tp))
        await self._queue_deletions(deletions)
        await self._zk_preferred_replica_election()
        if self.settings.auto_leader_rebalance:
            self._timers.append(asyncio.get_running_loop().create_task(
                self._rebalance_timer(), name="controller-auto-rebalance"))
        self.failover_complete = True
        log.info("Controller %d epoch %d is ready: %d broker(s), %d topic(s), %d partition(s)",
                 self.broker_id, ctx.epoch, len(ctx.live_broker_ids), len(ctx.all_topics),
                 len(ctx.all_partitions()))

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
        await self._watch_broker_modifications([*new, *bounced])
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

    async def _watch_broker_modifications(self, brokers: Iterable[int]) -> None:
        for b in sorted(brokers):
            await self.store.broker(b, self._watch(ev.BrokerModifications(b)))

    async def _broker_modifications(self, broker_id: int) -> None:
        """Kafka's ``processBrokerModification``: a live broker registered new endpoints (a
        dynamic ``advertised.listeners``); every broker hears of them in an UpdateMetadata."""
        ctx = self.context
        current = await self.store.broker(broker_id,
                                          self._watch(ev.BrokerModifications(broker_id)))
        cached = ctx.live_or_shutting_down_broker(broker_id)
        if current is None or cached is None or current.endpoints == cached.endpoints:
            return
        log.info("Updated broker metadata of broker %d: %s", broker_id, current.endpoints)
        ctx.update_broker_metadata(current)
        batch = RequestBatch(ctx)
        batch.add_update_metadata(ctx.live_or_shutting_down_broker_ids)
        self._send(batch)

    async def _on_broker_startup(self, brokers: Sequence[int]) -> None:
        ctx = self.context
        for b in brokers:  # a restarted broker's log dirs are online again until it says not
            ctx.replicas_on_offline_dirs.pop(b, None)
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
        for b in brokers:
            ctx.replicas_on_offline_dirs.pop(b, None)
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

    # -- log dir failures (KIP-112) -------------------------------------------------------------
    async def _log_dir_event_notification(self) -> None:
        """Kafka's ``processLogDirEventNotification``: brokers whose log dir failed get a
        LeaderAndIsr for every replica they hold (Kafka's ``onBrokerLogDirFailure``), and
        their answers (KAFKA_STORAGE_ERROR for the replicas in the failed dir) take those
        replicas offline; the notifications are deleted."""
        if not self.is_active:
            return
        ctx = self.context
        sequence_numbers = await self.store.log_dir_event_notifications(
            self._watch(ev.LogDirEventNotification()))
        if not sequence_numbers:
            return
        try:
            brokers = sorted(set(await self.store.log_dir_event_brokers(sequence_numbers)))
            log.info("Handling log directory failure for brokers %s", brokers)
            replicas = ctx.replicas_on_brokers(brokers)
            await self._replica_change(sorted(replicas), ReplicaState.ONLINE)
        finally:
            await self.store.delete_log_dir_event_notifications(sequence_numbers,
                                                                ctx.epoch_zk_version)

    async def _leader_and_isr_response(self, event: ev.LeaderAndIsrResponseReceived) -> None:
        """Kafka's ``processLeaderAndIsrResponseReceived``: the replicas a broker answered
        KAFKA_STORAGE_ERROR for are on an offline log dir (until it answers NONE for them or
        restarts); those newly offline go offline as replicas of a dead broker would."""
        if not self.is_active:
            return
        ctx = self.context
        broker = event.broker_id
        if event.error:
            state_change_log.error("[Controller id=%d epoch=%d] Received error %s in a "
                                   "LeaderAndIsr response from broker %d", self.broker_id,
                                   ctx.epoch,
                                   event.error.name, broker)
            return
        offline: set[TopicPartition] = set()
        online: set[TopicPartition] = set()
        for (topic, partition), error in event.partition_errors.items():
            name = topic if isinstance(topic, str) else ctx.topic_name(topic)
            if name is None:
                continue
            if error == ErrorCode.KAFKA_STORAGE_ERROR:
                offline.add((name, partition))
            elif error == ErrorCode.NONE:
                online.add((name, partition))
        previous = ctx.replicas_on_offline_dirs.get(broker, set())
        current = (previous - online) | offline
        if current:
            ctx.replicas_on_offline_dirs[broker] = current
        else:
            ctx.replicas_on_offline_dirs.pop(broker, None)
        new = current - previous
        if new:
            state_change_log.info("[Controller id=%d epoch=%d] Mark replicas %s on broker %d "
                                  "as offline", self.broker_id, ctx.epoch,
                                  ",".join(f"{t}-{p}" for t, p in sorted(new)), broker)
            await self._on_replicas_become_offline(
                [PartitionAndReplica(tp, broker) for tp in sorted(new)])

    async def _on_replicas_become_offline(self, replicas: Sequence[PartitionAndReplica]) -> None:
        """Kafka's ``onReplicasBecomeOffline``: partitions led by one of ``replicas`` go
        Offline and are elected again, then the replicas go Offline (out of their ISRs); those
        of topics being deleted make their deletion fail (retried when they come back)."""
        ctx = self.context
        deleting = [r for r in replicas if ctx.is_topic_queued_up_for_deletion(r[0][0])]
        others = [r for r in replicas if not ctx.is_topic_queued_up_for_deletion(r[0][0])]
        offline_leaders = sorted(ctx.partitions_with_offline_leader())
        await self._partition_change(offline_leaders, PartitionState.OFFLINE)
        await self._trigger_online_partitions()
        await self._replica_change(others, ReplicaState.OFFLINE)
        if deleting:
            started = [r for r in deleting
                       if ctx.replica_state(r) is ReplicaState.DELETION_STARTED]
            if started:
                await self._replica_change(started, ReplicaState.DELETION_INELIGIBLE)
                ctx.topics_ineligible_for_deletion |= {r[0][0] for r in started}
                await self._resume_deletions()
        if not others:
            # no state change told the brokers: they learn of the offline replicas here
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

