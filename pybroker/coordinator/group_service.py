"""The group coordinator as the broker runs it: membership logic, the committed-offset cache
and ``__consumer_offsets`` wired together on the event loop.

* :class:`~pybroker.coordinator.group.GroupCoordinator` - JoinGroup/SyncGroup/... logic.
* :class:`~pybroker.coordinator.group.offsets.OffsetManager` - committed offsets, and the
  store the coordinator persists group metadata through.
* :class:`~pybroker.coordinator.group.storage.OffsetsTopic` - the internal topic itself.

The service follows the leadership of ``__consumer_offsets`` (a leadership listener on the
replica manager, Kafka's ``onElection`` / ``onResignation``): a partition this broker starts
leading is replayed and its groups loaded; one it stops leading has its groups unloaded, their
parked JoinGroup and SyncGroup requests answered NOT_COORDINATOR. At start-up every partition
already led is loaded. Offsets expire on ``offsets.retention.check.interval.ms``.

Transactional offsets (TxnOffsetCommit) stay pending until the WriteTxnMarkers handler has
written their transaction's marker to the group's partition and calls
:meth:`GroupCoordinatorService.complete_transaction`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode
from pybroker.coordinator.group import GroupConfig, GroupCoordinator, GroupState, LoopScheduler
from pybroker.coordinator.group.offsets import GroupRetentionView, OffsetManager
from pybroker.coordinator.group.storage import OffsetsConfig, OffsetsTopic
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.outcome import settle
from pybroker.kernel.types import TopicPartition

if TYPE_CHECKING:
    from pybroker.cluster.hosted_partitions import LeadershipChange
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.cluster.replica_manager import ReplicaManager
    from pybroker.config import BrokerConfig

log = logging.getLogger(__name__)


class GroupCoordinatorService:
    def __init__(self, config: BrokerConfig, replica_manager: ReplicaManager,
                 metadata: MetadataCache, admin: Any, *, clock: Clock = SYSTEM_CLOCK) -> None:
        #: the time of the coordinator's timers and of the calls that come without one
        self.clock = clock
        self.offsets_config = OffsetsConfig.from_props(config.props)
        self.topic = OffsetsTopic(replica_manager, metadata, admin, self.offsets_config)
        self.offsets = OffsetManager(self.topic, self.offsets_config)
        self._coordinator: GroupCoordinator | None = None  # built by startup()
        self.group_config = GroupConfig.from_properties(config.props)
        replica_manager.add_leadership_listener(self.topic.name, self.on_leadership_change)

    def on_leadership_change(self, change: LeadershipChange, now_ms: int) -> None:
        """Load the groups of a partition this broker now leads; unload those of one it no
        longer leads. Before :meth:`startup` nothing is loaded: startup loads what is led."""
        coordinator = self._coordinator
        if coordinator is None:
            return
        if change.is_leader:
            for group_id, value in self.offsets.load_partition(change.partition).items():
                coordinator.load_group(group_id, value, now_ms)
            return
        self.offsets.unload_partition(change.partition)
        coordinator.unload_groups(
            [g.group_id for g in coordinator.groups()
             if self.topic.partition_for(g.group_id) == change.partition], now_ms)
        log.info("Unloaded the groups of %s-%d (no longer its leader)", self.topic.name,
                 change.partition)

    @property
    def coordinator(self) -> GroupCoordinator:
        """The coordinator the group APIs call; the broker starts it before it serves requests."""
        if self._coordinator is None:
            raise RuntimeError("the group coordinator is used before startup()")
        return self._coordinator

    def startup(self, now_ms: int) -> None:
        loop = asyncio.get_running_loop()
        coordinator = self._coordinator = GroupCoordinator(
            self.group_config, self.offsets, LoopScheduler(loop, self.clock.milliseconds),
            is_coordinator_for=lambda group_id: self.topic.is_leader(
                self.topic.partition_for(group_id)) if self.topic.exists else True,
        )
        for group_id, value in self.offsets.load_led_partitions().items():
            coordinator.load_group(group_id, value, now_ms)
        coordinator.startup()

    def shutdown(self, now_ms: int) -> None:
        if self._coordinator is not None:
            self._coordinator.shutdown(now_ms)

    def ensure_offsets_topic(self, now_ms: int) -> ErrorCode:
        """Create ``__consumer_offsets`` on first need (Kafka does it on FindCoordinator)."""
        return self.offsets.ensure_topic(now_ms)

    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]],
                       now_ms: int) -> None:
        """OffsetDelete's removal, once the coordinator allowed it (Kafka's
        ``cleanupGroupMetadata`` after ``removeOffsets``): the offsets and what is pending for
        them go; an Empty group left without offsets (committed or pending) dies, with its
        metadata tombstone in the same batch when it ever stored metadata (generation > 0)."""
        group = self.coordinator.group(group_id)
        empty = group is not None and group.state is GroupState.EMPTY
        self.offsets.delete_offsets(
            group_id, partitions, now_ms,
            tombstone_group_if_empty=empty and group is not None and group.generation_id > 0)
        if empty and not self.offsets.has_offsets(group_id):
            self.coordinator.remove_empty_group(group_id, now_ms)

    def partitions_deleted(self, partitions: Iterable[TopicPartition]) -> None:
        """:meth:`on_partitions_deleted` now (a listener of topic deletions)."""
        self.on_partitions_deleted(partitions, self.clock.milliseconds())

    def on_partitions_deleted(self, partitions: Iterable[TopicPartition], now_ms: int) -> None:
        """Partitions of deleted topics: every group this broker coordinates loses its offsets
        for them, with tombstones, and an Empty group left without offsets dies (Kafka's
        ``onPartitionsDeleted``), so a topic created again under the same name starts without
        the old topic's offsets."""
        coordinator = self._coordinator
        deleted = set(partitions)
        if coordinator is None or not deleted:
            return
        groups = dict.fromkeys([*self.offsets.groups(), *(g.group_id for g in coordinator.groups())])
        removed = 0
        for group_id in groups:
            if not self.offsets.is_loaded(group_id):
                continue
            touched = self.offsets.partitions_among(group_id, deleted)
            if touched:
                self.delete_offsets(group_id, touched, now_ms)
                removed += len(touched)
        if removed:
            log.info("Removed %d offset(s) of deleted partitions", removed)

    def complete_transaction(self, producer_id: int, partitions: list[int],
                             committed: bool) -> None:
        """A transaction's COMMIT (``committed``) or ABORT marker is written, and replicated,
        on these ``__consumer_offsets`` partitions: the producer's transactional offsets of
        their groups become committed offsets, or are dropped (Kafka's
        ``onTransactionCompleted``). Partitions this broker does not coordinate are skipped:
        their coordinator reads the marker from the log. Called by the WriteTxnMarkers
        handler once the marker's append succeeded."""
        applied = self.offsets.complete_transaction(producer_id, partitions, committed)
        log.debug("Transaction of producer %d %s on %s partition(s) %s: %d offset(s) applied",
                  producer_id, "committed" if committed else "aborted", self.topic.name,
                  partitions, applied)

    def expire_offsets(self, now_ms: int) -> None:
        coordinator = self._coordinator
        if coordinator is None:
            return

        def view(group_id: str) -> GroupRetentionView | None:
            group = coordinator.group(group_id)
            return GroupRetentionView.of(group) if group is not None else None

        result = self.offsets.expire(now_ms, view,
                                     extra_groups=[g.group_id for g in coordinator.groups()])
        for group_id in result.dead_groups:
            coordinator.remove_empty_group(group_id, now_ms)
        if result.offsets_removed:
            log.info("expired %d committed offset(s) of %d group(s)", result.offsets_removed,
                     len(result.removed))


def responder() -> tuple[asyncio.Future, Any]:
    """A future and the callback that completes it, for coordinator calls that answer later."""
    fut: asyncio.Future = asyncio.get_running_loop().create_future()
    return fut, functools.partial(settle, fut)
