"""Partition reassignment (KIP-455, Kafka's ``onPartitionReassignment``).

A partition moving from its original replicas (ORS) to a target set (TRS) runs with the union
as its replicas (RS = TRS + ORS), the ones being added (AR = TRS - ORS) and removed
(RR = ORS - TRS), all recorded in the topic's znode first, so a new controller resumes it:

* while not every target replica is in the ISR: the leader epoch goes up by one and every replica
  of RS gets LeaderAndIsr with the new RS, AR and RR; the adding replicas start as NewReplica and
  copy the data through replication;
* once they are (an AlterPartition adding the last of them brings the controller back here): the
  adding replicas go Online, RS becomes TRS, a new leader is elected if the current one is not a
  target replica (otherwise its epoch goes up), the removed replicas are stopped and deleted
  (StopReplica), the topic's znode records TRS alone, and every broker gets UpdateMetadata.

Cancelling a reassignment moves the partition back to its original replicas the same way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from protocol.errors import ErrorCode, KafkaError
from pybroker.controller import election, events as ev, replicas as checks
from pybroker.controller.core import ControllerCore
from pybroker.controller.model import (
    LeaderIsrAndControllerEpoch,
    PartitionAndReplica,
    ReplicaAssignment,
    ZkError,
)
from pybroker.controller.partition_state_machine import PartitionState
from pybroker.controller.replica_state_machine import ReplicaState
from pybroker.controller.request_batch import RequestBatch
from pybroker.kernel.outcome import settle
from pybroker.kernel.types import Reassignment, TopicPartition, tp_str

log = logging.getLogger(__name__)


class ReassignmentManager(ControllerCore):
    # -- the admin API --------------------------------------------------------------------------
    def alter_partition_reassignments(
        self, targets: Mapping[TopicPartition, Sequence[int] | None],
    ) -> asyncio.Future[dict[TopicPartition, KafkaError | None]]:
        fut: asyncio.Future[dict[TopicPartition, KafkaError | None]] = \
            asyncio.get_running_loop().create_future()
        self.put(ev.Call(lambda: self._reassign(dict(targets)),
                         lambda results: settle(fut, results),
                         state="AlterPartitionReassignment"))
        return fut

    def list_partition_reassignments(self, partitions: Sequence[TopicPartition] | None,
                                     ) -> asyncio.Future[dict[TopicPartition, Reassignment]]:
        fut: asyncio.Future[dict[TopicPartition, Reassignment]] = \
            asyncio.get_running_loop().create_future()

        def ongoing() -> Any:
            if not self.is_active:
                return KafkaError(ErrorCode.NOT_CONTROLLER)
            ctx = self.context
            wanted = set(partitions) if partitions is not None else None
            out: dict[TopicPartition, Reassignment] = {}
            for tp in sorted(ctx.partitions_being_reassigned):
                if wanted is not None and tp not in wanted:
                    continue
                a = ctx.partition_full_replica_assignment(tp)
                out[tp] = Reassignment(a.replicas, a.adding_replicas, a.removing_replicas)
            return out

        self.put(ev.Call(ongoing, lambda result: settle(fut, result),
                         state="ListPartitionReassignment"))
        return fut

    async def _reassign(self, targets: dict[TopicPartition, Sequence[int] | None], *,
                        from_zk: bool = False) -> dict[TopicPartition, KafkaError | None]:
        """Kafka's ``processApiPartitionReassignment``: check each target (its messages) and
        start or cancel each reassignment; the latest request wins over one recorded in
        ``/admin/reassign_partitions``. ``from_zk``: the targets come from that znode, whose
        replicas Kafka does not check."""
        ctx = self.context
        if not self.is_active:
            return {tp: KafkaError(ErrorCode.NOT_CONTROLLER) for tp in targets}
        results: dict[TopicPartition, KafkaError | None] = {}
        live = sorted(ctx.live_broker_ids)
        built: dict[TopicPartition, ReplicaAssignment] = {}
        for tp, target in targets.items():
            try:
                # as Kafka: the target is checked (a cancel, against a reassignment in
                # progress) before the partition is looked up
                current = ctx.partition_full_replica_assignment(tp)
                if target is None:
                    if not current.is_being_reassigned:
                        raise KafkaError(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
                                         "No partition reassignment is in progress.")
                    target = current.origin_replicas
                elif not from_zk:
                    checks.validate_replicas(target, current.replicas, live)
                if tp not in ctx.all_partitions() or ctx.is_topic_queued_up_for_deletion(tp[0]):
                    raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                     checks.PARTITION_DOES_NOT_EXIST)
                built[tp] = current.reassign_to(target)
            except KafkaError as e:
                results[tp] = e
        if not from_zk and built:
            await self._remove_zk_reassignments(lambda tp, _replicas: tp in built)
        for tp, reassignment in built.items():
            try:
                await self._on_partition_reassignment(tp, reassignment)
            except KafkaError as e:
                results[tp] = e
            else:
                results[tp] = None
        return results

    async def _zk_partition_reassignment(self) -> set[TopicPartition]:
        """Kafka's ``processZkPartitionReassignment``: start what ``/admin/reassign_partitions``
        asks for (watching for its creation again); the partitions started. Those refused leave
        the znode."""
        if not self.is_active:
            return set()
        requested = await self.store.reassignment_requests(
            self._watch(ev.ZkPartitionReassignment()))
        if not requested:
            return set()
        results = await self._reassign(dict(requested), from_zk=True)
        failed = {tp: e for tp, e in results.items() if e is not None}
        if failed:
            log.warning("Failed reassignment through zk with the following errors: %s",
                        {tp_str(tp): e.code.name for tp, e in failed.items()})
            await self._remove_zk_reassignments(lambda tp, _replicas: tp in failed)
        return {tp for tp, e in results.items() if e is None}

    async def _remove_zk_reassignments(
            self, remove: Callable[[TopicPartition, Sequence[int]], bool]) -> None:
        """Kafka's ``maybeRemoveFromZkReassignment``: drop the partitions ``remove`` names
        from ``/admin/reassign_partitions``, deleting it once empty."""
        requested = await self.store.reassignment_requests(None)
        if not requested:
            return
        left = {tp: r for tp, r in requested.items() if not remove(tp, r)}
        if len(left) != len(requested):
            await self.store.set_reassignment_requests(left, self.context.epoch_zk_version)

    # -- the state changes ---------------------------------------------------------------------
    async def _on_partition_reassignment(self, tp: TopicPartition,
                                         reassignment: ReplicaAssignment) -> None:
        ctx = self.context
        ctx.topics_ineligible_for_deletion.add(tp[0])
        current = ctx.partition_full_replica_assignment(tp)
        if current != reassignment:
            await self._record_assignment(tp, reassignment)
            # replacing a reassignment in progress (or cancelling it) may leave replicas that
            # were being added out of every set: they stop at once
            unneeded = [r for r in current.replicas if r not in reassignment.replicas]
            await self._stop_removed_replicas(tp, unneeded)
        ctx.partitions_being_reassigned.add(tp)
        if not await self._reassignment_complete(tp, reassignment):
            log.info("Reassigning %s: replicas %s, adding %s, removing %s", tp_str(tp),
                     list(reassignment.replicas), list(reassignment.adding_replicas),
                     list(reassignment.removing_replicas))
            await self._bump_leader_epoch(tp, reassignment.replicas)
            await self._replica_change(
                [PartitionAndReplica(tp, r) for r in reassignment.adding_replicas],
                ReplicaState.NEW)
            return
        adding = [PartitionAndReplica(tp, r) for r in reassignment.adding_replicas]
        await self._replica_change(adding, ReplicaState.ONLINE)
        completed = ReplicaAssignment(reassignment.target_replicas)
        ctx.update_partition_full_replica_assignment(tp, completed)
        info = ctx.partition_leadership_info(tp)
        leader = info.leader_and_isr.leader if info is not None else -1
        if leader not in completed.replicas or not ctx.is_replica_online(leader, tp):
            await self._partition_change([tp], PartitionState.ONLINE, election.REASSIGN)
        else:
            await self._bump_leader_epoch(tp, completed.replicas)
        await self._stop_removed_replicas(tp, reassignment.removing_replicas)
        await self._record_assignment(tp, completed)
        await self._remove_zk_reassignments(
            lambda t, replicas: t == tp and tuple(replicas) == completed.replicas)
        ctx.partitions_being_reassigned.discard(tp)
        if not any(p[0] == tp[0] for p in ctx.partitions_being_reassigned):
            ctx.topics_ineligible_for_deletion.discard(tp[0])
        batch = RequestBatch(ctx)
        batch.add_update_metadata(ctx.live_or_shutting_down_broker_ids, [tp])
        self._send(batch)
        log.info("Reassignment of %s completed: replicas %s", tp_str(tp),
                 list(completed.replicas))

    async def _stop_removed_replicas(self, tp: TopicPartition, replicas: Sequence[int]) -> None:
        """Out of the ISR, stopped and deleted (Kafka's ``stopRemovedReplicasOfReassignedPartition``)."""
        removing = [PartitionAndReplica(tp, r) for r in replicas]
        for target in (ReplicaState.OFFLINE, ReplicaState.DELETION_STARTED,
                       ReplicaState.DELETION_SUCCESSFUL, ReplicaState.NON_EXISTENT):
            await self._replica_change(removing, target)

    async def _reassignment_complete(self, tp: TopicPartition,
                                     reassignment: ReplicaAssignment) -> bool:
        read = (await self.store.read_states([tp])).get(tp)
        if not isinstance(read, LeaderIsrAndControllerEpoch):
            return False
        return set(reassignment.target_replicas) <= set(read.leader_and_isr.isr)

    async def _record_assignment(self, tp: TopicPartition,
                                 assignment: ReplicaAssignment) -> None:
        ctx = self.context
        ctx.update_partition_full_replica_assignment(tp, assignment)
        topic = tp[0]
        partitions = {p: ctx.partition_full_replica_assignment((topic, p))
                      for _, p in ctx.partitions_for_topic(topic)}
        await self.store.set_assignment(topic, ctx.topic_ids.get(topic), partitions,
                                        ctx.epoch_zk_version)

    async def _bump_leader_epoch(self, tp: TopicPartition, recipients: Sequence[int]) -> None:
        """The same leader and ISR under the next leader epoch (compare-and-set), sent to
        ``recipients`` (Kafka's ``updateLeaderEpochAndSendRequest``)."""
        ctx = self.context
        for _ in range(5):
            read = (await self.store.read_states([tp])).get(tp)
            if not isinstance(read, LeaderIsrAndControllerEpoch):
                return
            bumped = read.leader_and_isr.new_epoch()
            outcome = (await self.store.update_states({tp: bumped}, ctx.epoch,
                                                      ctx.epoch_zk_version))[tp]
            if isinstance(outcome, ZkError):
                if outcome.is_bad_version:
                    continue
                log.warning("Could not bump the leader epoch of %s: %s", tp_str(tp), outcome)
                return
            info = LeaderIsrAndControllerEpoch(bumped.with_partition_epoch(outcome), ctx.epoch)
            ctx.put_partition_leadership_info(tp, info)
            batch = RequestBatch(ctx)
            batch.add_leader_and_isr(recipients, tp, info,
                                     ctx.partition_full_replica_assignment(tp), is_new=False)
            self._send(batch)
            return

    async def maybe_complete_reassignment(self, tp: TopicPartition) -> None:
        """An ISR change of a partition being reassigned: finish it if the targets are in."""
        if tp in self.context.partitions_being_reassigned:
            await self._on_partition_reassignment(
                tp, self.context.partition_full_replica_assignment(tp))
