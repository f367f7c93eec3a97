"""What the controller answers: ControlledShutdown, ElectLeaders (and its own periodic preferred
rebalance), AlterPartition, and partition reassignments.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from protocol.errors import ErrorCode, KafkaError
from pybroker.controller import election, events as ev
from pybroker.controller.core import ControllerCore, state_change_log
from pybroker.controller.features import FeatureUpdate, plan_feature_updates
from pybroker.controller.model import (
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    LeaderRecoveryState,
    PartitionAndReplica,
)
from pybroker.controller.partition_state_machine import PartitionState
from pybroker.controller.replica_state_machine import ReplicaState
from pybroker.controller.request_batch import RequestBatch
from pybroker.kernel.outcome import settle
from pybroker.kernel.types import TopicPartition, tp_str

log = logging.getLogger(__name__)

PREFERRED, UNCLEAN = 0, 1
AUTO_REBALANCE_FIRST_DELAY_S = 5.0


class ControllerRequests(ControllerCore):
    # -- controlled shutdown ----------------------------------------------------------------------
    def controlled_shutdown(self, broker_id: int, broker_epoch: int,
                            ) -> asyncio.Future[tuple[ErrorCode, list[TopicPartition]]]:
        fut: asyncio.Future[tuple[ErrorCode, list[TopicPartition]]] = \
            asyncio.get_running_loop().create_future()
        self.put(ev.ControlledShutdown(broker_id, broker_epoch,
                                       lambda code, left: settle(fut, (code, left))))
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
                                          lambda results: settle(fut, results)))
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

    async def _zk_preferred_replica_election(self) -> None:
        """``/admin/preferred_replica_election`` (the tools' path before ElectLeaders): elect the
        preferred leaders it names, then delete it, watching for the next one."""
        if not self.is_active:
            return
        partitions = await self.store.preferred_election_requests(
            self._watch(ev.ZkPreferredReplicaElection()))
        if not partitions:
            return
        try:
            known = [tp for tp in sorted(partitions) if tp in self.context.all_partitions()]
            for tp in sorted(set(partitions) - set(known)):
                log.info("Skipping replica leader election (PREFERRED) for partition %s by "
                         "ZkTriggered since it doesn't exist.", tp_str(tp))
            await self._replica_leader_election(ev.ReplicaLeaderElection(known, PREFERRED))
        finally:
            await self.store.delete_preferred_election_requests(self.context.epoch_zk_version)

    async def _isr_change_notification(self) -> None:
        """Kafka's ``processIsrChangeNotification``: leaders of an inter-broker protocol before
        2.7 write ISR changes to ZooKeeper themselves and leave a notification; the controller
        re-reads those partitions, tells every broker (UpdateMetadata), lets a reassignment
        waiting for the change finish, and deletes the notifications."""
        if not self.is_active:
            return
        ctx = self.context
        sequence_numbers = await self.store.isr_change_notifications(
            self._watch(ev.IsrChangeNotification()))
        if not sequence_numbers:
            return
        try:
            changed = await self.store.isr_changed_partitions(sequence_numbers)
            partitions = sorted({tp for tp in changed if tp in ctx.all_partitions()})
            if partitions:
                for tp, read in (await self.store.read_states(partitions)).items():
                    if isinstance(read, LeaderIsrAndControllerEpoch):
                        ctx.put_partition_leadership_info(tp, read)
                batch = RequestBatch(ctx)
                batch.add_update_metadata(ctx.live_or_shutting_down_broker_ids, partitions)
                self._send(batch)
                for tp in partitions:
                    if tp in ctx.partitions_being_reassigned:
                        await self.maybe_complete_reassignment(tp)
        finally:
            await self.store.delete_isr_change_notifications(sequence_numbers,
                                                             ctx.epoch_zk_version)

    def run_in_queue(self, fn: Callable[[], Any]) -> Awaitable[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.put(ev.Call(fn, lambda result: settle(fut, result)))
        return fut



    # -- UpdateFeatures (KIP-584) ------------------------------------------------------------------
    def update_features(self, updates: Sequence[tuple[str, int, int]],
                        ) -> asyncio.Future[list[tuple[str, int, str | None]] | KafkaError]:
        """Each ``(feature, level, upgrade type)``'s (name, error, message), in turn with the controller's events
        (Kafka's ``processFeatureUpdates``); ``/feature`` is rewritten only when the finalized
        features change, and a failed write fails the updates that passed
        (FEATURE_UPDATE_FAILED)."""
        async def update() -> list[tuple[str, int, str | None]] | KafkaError:
            if not self.is_active:
                return KafkaError(ErrorCode.NOT_CONTROLLER)
            found = await self.store.finalized_features()
            existing = found[2] if found is not None else {}
            target, outcome = plan_feature_updates([FeatureUpdate(*u) for u in updates],
                                                   existing)
            if target != existing:
                try:
                    await self.store.set_finalized_features(target)
                except Exception as e:  # noqa: BLE001 - Kafka answers the passed ones failed
                    log.warning("Processing of feature updates failed due to error: %s", e)
                    return [(name, ErrorCode.FEATURE_UPDATE_FAILED, None) if code == 0
                            else (name, code, message) for name, code, message in outcome]
            return outcome
        fut: asyncio.Future[list[tuple[str, int, str | None]] | KafkaError] = \
            asyncio.get_running_loop().create_future()
        self.put(ev.Call(update, lambda result: settle(fut, result), state="UpdateFeatures"))
        return fut

    # -- AllocateProducerIds (KIP-730: a broker asks the controller for a block of ids) -----------
    def allocate_producer_ids(self, broker_id: int, broker_epoch: int,
                              ) -> asyncio.Future[tuple[ErrorCode, int, int] | KafkaError]:
        """(error, first id, count) of a new block for ``broker_id`` (Kafka's
        ``processAllocateProducerIds``): in turn with the controller's events, refused
        NOT_CONTROLLER, BROKER_ID_NOT_REGISTERED or STALE_BROKER_EPOCH as Kafka refuses it."""
        async def allocate() -> tuple[ErrorCode, int, int]:
            if not self.is_active:
                return ErrorCode.NOT_CONTROLLER, 0, 0
            epoch = self.context.live_broker_id_and_epochs.get(broker_id)
            if epoch is None:
                log.warning("Ignoring AllocateProducerIds due to unknown broker %d", broker_id)
                return ErrorCode.BROKER_ID_NOT_REGISTERED, 0, 0
            if epoch != broker_epoch:
                log.warning("Ignoring AllocateProducerIds due to stale broker epoch %d for "
                            "broker %d", broker_epoch, broker_id)
                return ErrorCode.STALE_BROKER_EPOCH, 0, 0
            first, size = await self.store.allocate_producer_id_block(broker_id)
            return ErrorCode.NONE, first, size
        # (a failure answers KafkaError: UNKNOWN_SERVER_ERROR, or NOT_CONTROLLER if it moved)
        fut: asyncio.Future[tuple[ErrorCode, int, int] | KafkaError] = \
            asyncio.get_running_loop().create_future()
        self.put(ev.Call(allocate, lambda result: settle(fut, result)))
        return fut

    # -- AlterPartition (KIP-497: the leader asks, the controller records) ------------------------
    def alter_partition(self, broker_id: int, broker_epoch: int,
                        partitions: dict[tuple[Any, int], ev.IsrChange],
                        ) -> asyncio.Future[tuple[ErrorCode, dict[tuple[Any, int], Any]]]:
        fut: asyncio.Future[tuple[ErrorCode, dict[tuple[Any, int], Any]]] = \
            asyncio.get_running_loop().create_future()
        self.put(ev.AlterPartitionReceived(broker_id, broker_epoch, partitions,
                                           lambda code, results: settle(fut, (code, results))))
        return fut

    async def _alter_partition(self, event: ev.AlterPartitionReceived) -> None:
        """Kafka's ``processAlterPartition``: each partition's new ISR is recorded in its
        ``state`` znode (compare-and-set on the partition epoch the leader read) when the
        leader and its epoch are current and every new ISR member is alive; the answer is the
        state now recorded, or why not. Every broker then learns it (UpdateMetadata)."""
        ctx = self.context
        if not self.is_active:
            event.respond(ErrorCode.NOT_CONTROLLER, {})
            return
        known = ctx.live_broker_id_and_epochs.get(event.broker_id)
        if known is None or (event.broker_epoch != -1 and event.broker_epoch != known):
            event.respond(ErrorCode.STALE_BROKER_EPOCH, {})
            return
        results: dict[tuple[Any, int], Any] = {}
        writes: dict[TopicPartition, LeaderAndIsr] = {}
        keys: dict[TopicPartition, tuple[Any, int]] = {}
        for key, change in event.partitions.items():
            topic = key[0] if isinstance(key[0], str) else ctx.topic_name(key[0])
            if topic is None:
                results[key] = ErrorCode.UNKNOWN_TOPIC_ID
                continue
            tp = (topic, key[1])
            info = ctx.partition_leadership_info(tp)
            if info is None or ctx.is_topic_queued_up_for_deletion(topic):
                results[key] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            current = info.leader_and_isr
            wanted = LeaderAndIsr(event.broker_id, change.leader_epoch, change.isr,
                                  LeaderRecoveryState(change.leader_recovery_state),
                                  change.partition_epoch)
            if change.partition_epoch > current.partition_epoch \
                    or change.leader_epoch > current.leader_epoch:
                # the leader knows a newer state: this broker is likely no longer the
                # controller, and the leader should look for the one that wrote it
                results[key] = ErrorCode.NOT_CONTROLLER
            elif change.leader_epoch < current.leader_epoch:
                results[key] = ErrorCode.FENCED_LEADER_EPOCH
            elif wanted.equals_allow_stale_partition_epoch(current):
                results[key] = current  # already so: nothing to write
            elif change.partition_epoch < current.partition_epoch:
                results[key] = ErrorCode.INVALID_UPDATE_VERSION
            elif wanted.leader_recovery_state is LeaderRecoveryState.RECOVERING \
                    and len(wanted.isr) > 1:
                results[key] = ErrorCode.INVALID_REQUEST
            elif current.leader_recovery_state is LeaderRecoveryState.RECOVERED \
                    and wanted.leader_recovery_state is LeaderRecoveryState.RECOVERING:
                results[key] = ErrorCode.INVALID_REQUEST
            elif any(r not in ctx.live_broker_ids for r in wanted.isr):
                # KIP-841: only live brokers join an ISR (a ZooKeeper-mode controller does not
                # check the members' broker epochs of KIP-903; the handler answers
                # OPERATION_NOT_ATTEMPTED to versions before 2)
                results[key] = ErrorCode.INELIGIBLE_REPLICA
            else:
                writes[tp] = wanted
                keys[tp] = key
        updated: list[TopicPartition] = []
        if writes:
            outcomes = await self.store.update_states(writes, ctx.epoch, ctx.epoch_zk_version)
            for tp, outcome in outcomes.items():
                key = keys[tp]
                if isinstance(outcome, int):
                    recorded = writes[tp].with_partition_epoch(outcome)
                    ctx.put_partition_leadership_info(
                        tp, LeaderIsrAndControllerEpoch(recorded, ctx.epoch))
                    results[key] = recorded
                    updated.append(tp)
                elif outcome.is_bad_version:
                    results[key] = ErrorCode.INVALID_UPDATE_VERSION
                else:
                    results[key] = ErrorCode.UNKNOWN_SERVER_ERROR
        for tp in updated:
            await self.maybe_complete_reassignment(tp)
        for tp in updated:
            state_change_log.info("[Controller id=%d epoch=%d] ISR of %s is now %s (asked by "
                                  "its leader %d)", self.broker_id, ctx.epoch, tp_str(tp),
                                  list(writes[tp].isr), event.broker_id)
        event.respond(ErrorCode.NONE, results)
        if updated:
            batch = RequestBatch(ctx)
            batch.add_update_metadata(ctx.live_or_shutting_down_broker_ids, sorted(updated))
            self._send(batch)
