"""Topic deletion, as Kafka's ``TopicDeletionManager`` does it: a topic queued under
``/admin/delete_topics`` stops being served (UpdateMetadata with leader -2), its partitions go
Offline then NonExistent, its live replicas get StopReplica(delete) and its dead ones make it
ineligible until they return; once every replica answered, its znodes go.
"""

from __future__ import annotations

import logging

from pybroker.controller import events as ev
from pybroker.controller.core import ControllerCore
from pybroker.controller.model import (
    PartitionAndReplica,
)
from pybroker.controller.partition_state_machine import (
    PartitionState,
)
from pybroker.controller.replica_state_machine import ReplicaState
from pybroker.controller.request_batch import RequestBatch

log = logging.getLogger(__name__)


class TopicDeletionManager(ControllerCore):
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
        for listener in self.deletion_listeners:
            listener(topic)

