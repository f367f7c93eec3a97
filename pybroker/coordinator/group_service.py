"""The group coordinator as the broker runs it: membership logic, the committed-offset cache
and ``__consumer_offsets`` wired together on the event loop.

* :class:`~pybroker.coordinator.group.GroupCoordinator` - JoinGroup/SyncGroup/... logic.
* :class:`~pybroker.coordinator.group.offsets.OffsetManager` - committed offsets, and the
  store the coordinator persists group metadata through.
* :class:`~pybroker.coordinator.group.storage.OffsetsTopic` - the internal topic itself.
* :class:`~pybroker.coordinator.group.consumer.coordinator.ConsumerGroupCoordinator` - the
  KIP-848 consumer groups (ConsumerGroupHeartbeat), sharing the group id namespace, the
  offsets and ``__consumer_offsets`` with the classic groups.

The service follows the leadership of ``__consumer_offsets`` (a leadership listener on the
replica manager, Kafka's ``onElection`` / ``onResignation``) through the coordinator runtime
(:mod:`pybroker.coordinator.runtime`): a partition this broker starts leading is replayed,
chunk by chunk and giving the loop back between them, and its groups loaded (its requests
answer COORDINATOR_LOAD_IN_PROGRESS meanwhile); one it stops leading has its groups unloaded,
their parked JoinGroup and SyncGroup requests answered NOT_COORDINATOR. At start-up every
partition already led is loaded.

The offset APIs (OffsetCommit, TxnOffsetCommit, OffsetFetch, OffsetDelete) are the service's
whole: validation, the group's verdict, KIP-890 verification and the write
(:meth:`GroupCoordinatorService.commit_offsets` and the others); their handlers check ACLs
and build responses. Offsets expire on ``offsets.retention.check.interval.ms``.

Transactional offsets (TxnOffsetCommit) stay pending until the WriteTxnMarkers handler has
written their transaction's marker to the group's partition and calls
:meth:`GroupCoordinatorService.complete_transaction`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode
from pybroker.cluster.replica_manager import NO_SEQUENCE
from pybroker.config.groups import GroupConfigs
from pybroker.coordinator import group_metrics
from pybroker.coordinator.group import (
    ClassicGroup,
    GroupConfig,
    GroupCoordinator,
    GroupState,
    LoopScheduler,
)
from pybroker.coordinator.group.consumer.coordinator import (
    ConsumerGroupConfig,
    ConsumerGroupCoordinator,
)
from pybroker.coordinator.group.consumer.group import ConsumerGroup, ConsumerGroupState
from pybroker.coordinator.group.consumer.member import ConsumerGroupMember
from pybroker.coordinator.group.group import GroupOverview
from pybroker.coordinator.group.member import MemberMetadata as ClassicMember
from pybroker.coordinator.group.offsets import (
    GroupRetentionView,
    OffsetFetchResult,
    OffsetManager,
    OffsetToCommit,
)
from pybroker.coordinator.group.storage import (
    OffsetsConfig,
    OffsetsTopic,
    PartitionReplay,
    TxnProducer,
    commit_error_for,
    serialize_group_metadata_key,
    serialize_group_metadata_value,
)
from pybroker.coordinator.runtime import CoordinatorRuntime, CoordinatorState, LoadSummary
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.outcome import Outcome, chain, is_pending, settle, when_ready
from pybroker.kernel.types import TopicPartition
from pybroker.metrics.registry import MetricsRegistry

if TYPE_CHECKING:
    from pybroker.cluster.hosted_partitions import LeadershipChange
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.cluster.replica_manager import ReplicaManager, VerificationGuard
    from pybroker.cluster.txn_verification import TxnErrorMode
    from pybroker.config import BrokerConfig

log = logging.getLogger(__name__)


class GroupCoordinatorService:
    def __init__(self, config: BrokerConfig, replica_manager: ReplicaManager,
                 metadata: MetadataCache, admin: Any, *, clock: Clock = SYSTEM_CLOCK,
                 metrics: MetricsRegistry | None = None) -> None:
        #: the time of the coordinator's timers and of the calls that come without one
        self.clock = clock
        self.replica_manager = replica_manager
        self.metadata = metadata
        self.offsets_config = OffsetsConfig.from_props(config.props)
        self.topic = OffsetsTopic(replica_manager, metadata, admin, self.offsets_config,
                                  clock=clock)
        self.offsets = OffsetManager(self.topic, self.offsets_config)
        #: the partitions of __consumer_offsets loaded here; a partition whose log fits in the
        #: first slice is loaded within its leadership change, a larger one on the loop
        self.runtime: CoordinatorRuntime[PartitionReplay] = CoordinatorRuntime(
            self.topic.writer, self.topic.loader, self, clock=clock, inline_first_slice=True)
        self._coordinator: GroupCoordinator | None = None  # built by startup()
        self._consumer: ConsumerGroupCoordinator | None = None  # built by startup()
        self.group_config = GroupConfig.from_properties(config.props)
        self.consumer_config = ConsumerGroupConfig.from_properties(config.props)
        #: every group's configs (KIP-848's GROUP resource), fed by the mode's store
        self.group_configs = GroupConfigs(config.props)
        replica_manager.add_leadership_listener(self.topic.name, self.on_leadership_change)
        #: the offsets committed (group-coordinator-metrics offset-commit-count)
        self.offset_commits = group_metrics.register(
            self, metrics if metrics is not None else replica_manager.metrics)

    # -- leadership ------------------------------------------------------------------------

    def on_leadership_change(self, change: LeadershipChange, now_ms: int) -> None:
        """Load the groups of a partition this broker now leads; unload those of one it no
        longer leads. Before :meth:`startup` nothing is loaded: startup loads what is led."""
        if self._coordinator is not None:
            self.runtime.on_leadership_change(change, now_ms)

    # the runtime's shard: the group coordinator's replay and what it does with one

    def new_replay(self, partition: int) -> PartitionReplay:
        return self.topic.new_replay(partition)

    def on_loading(self, partition: int, epoch: int) -> None:
        """Requests for the partition's groups answer COORDINATOR_LOAD_IN_PROGRESS from now
        until the replay is taken over (:meth:`on_loaded`); what was cached of the partition
        no longer counts as loaded, so that neither expiry nor a transaction's completion
        acts on it meanwhile (the load replays whatever marker is written until then)."""
        self.offsets.loaded_partitions.discard(partition)

    def on_loaded(self, partition: int, epoch: int, replay: PartitionReplay,
                  summary: LoadSummary, now_ms: int) -> None:
        replayed = replay.result(summary.end_offset)
        groups = self.offsets.install_partition(partition, replayed)
        coordinator, consumer = self._coordinator, self._consumer
        if consumer is not None:
            for group in replayed.consumer_groups.values():
                consumer.load_group(group, now_ms)
        if coordinator is not None:
            for group_id, value in groups.items():
                if group_id not in replayed.consumer_groups:
                    coordinator.load_group(group_id, value, now_ms)

    def on_load_failed(self, partition: int, epoch: int, replay: PartitionReplay,
                       error: BaseException, now_ms: int) -> bool:
        """Nothing of a partition whose load broke off is taken: its groups answer
        NOT_COORDINATOR until its next election."""
        return False

    def on_unloaded(self, partition: int, epoch: int | None, now_ms: int) -> None:
        self.offsets.unload_partition(partition)
        if self._consumer is not None:
            self._consumer.unload_groups(
                [g.group_id for g in self._consumer.groups()
                 if self.topic.partition_for(g.group_id) == partition])
        coordinator = self._coordinator
        if coordinator is None:
            return
        coordinator.unload_groups(
            [g.group_id for g in coordinator.groups()
             if self.topic.partition_for(g.group_id) == partition], now_ms)
        log.info("Unloaded the groups of %s-%d (no longer its leader)", self.topic.name,
                 partition)

    def _is_loading(self, group_id: str | None) -> bool:
        """Whether the group's partition (None: any partition) is still being replayed."""
        if group_id is None:
            return self.runtime.is_loading()
        return self.topic.exists and self.runtime.is_loading(self.topic.partition_for(group_id))

    def _is_coordinator_for(self, group_id: str) -> bool:
        if not self.topic.exists:
            return True
        partition = self.topic.partition_for(group_id)
        return (self.topic.is_leader(partition)
                and self.runtime.state(partition) is not CoordinatorState.FAILED)

    # -- life cycle ------------------------------------------------------------------------

    @property
    def coordinator(self) -> GroupCoordinator:
        """The coordinator the group APIs call; the broker starts it before it serves requests."""
        if self._coordinator is None:
            raise RuntimeError("the group coordinator is used before startup()")
        return self._coordinator

    @property
    def consumer(self) -> ConsumerGroupCoordinator:
        """The KIP-848 consumer group coordinator (ConsumerGroupHeartbeat and Describe)."""
        if self._consumer is None:
            raise RuntimeError("the group coordinator is used before startup()")
        return self._consumer

    def consumer_group(self, group_id: str) -> ConsumerGroup | None:
        return self._consumer.group(group_id) if self._consumer is not None else None

    @property
    def started_consumer(self) -> ConsumerGroupCoordinator | None:
        """The consumer group coordinator once startup() has built it (what metrics read)."""
        return self._consumer

    @property
    def started_coordinator(self) -> GroupCoordinator | None:
        """The coordinator once startup() has built it; None before (what metrics read)."""
        return self._coordinator

    def startup(self, now_ms: int) -> None:
        loop = asyncio.get_running_loop()
        coordinator = self._coordinator = GroupCoordinator(
            self.group_config, self.offsets, LoopScheduler(loop, self.clock.milliseconds),
            is_coordinator_for=self._is_coordinator_for, is_loading=self._is_loading)
        consumer = self._consumer = ConsumerGroupCoordinator(
            self.consumer_config, self.topic, coordinator.scheduler, self.metadata,
            is_coordinator_for=self._is_coordinator_for, is_loading=self._is_loading,
            classic_group=coordinator.group, drop_classic_group=self._drop_classic_group,
            group_configs=self.group_configs,
            hand_over_classic_group=self._hand_over_classic_group,
            downgrade_classic_group=self._downgrade_to_classic_group)
        coordinator.foreign_group = self._classic_join_to_consumer_group
        coordinator.mixed = consumer
        self.runtime.load_led_partitions(now_ms)
        coordinator.startup()
        consumer.startup()

    def _drop_classic_group(self, group_id: str, now_ms: int) -> tuple[bytes, bytes | None]:
        """An empty classic group gives way to a consumer group of its id: forgotten, its
        metadata's tombstone in the consumer group's first batch."""
        self.coordinator.drop_empty_group(group_id, now_ms)
        return serialize_group_metadata_key(group_id), None

    def _hand_over_classic_group(self, group_id: str, now_ms: int,
                                 ) -> tuple[ClassicGroup, tuple[bytes, None]] | None:
        """A classic group with members, taken from the classic coordinator for an online
        upgrade, with the tombstone of its metadata for the consumer group's first batch."""
        group = self.coordinator.hand_over_group(group_id, now_ms)
        if group is None:
            return None
        return group, (serialize_group_metadata_key(group_id), None)

    def _downgrade_to_classic_group(
            self, group_id: str, generation: int,
            members: list[tuple[ConsumerGroupMember, bytes]], now_ms: int,
    ) -> tuple[tuple[bytes, bytes], Callable[[], None]] | None:
        """The classic group a consumer group of classic members becomes (KIP-848's online
        downgrade): its metadata record, and what makes the classic coordinator serve it once
        the batch is written; None when it has more members than ``group.max.size``."""
        coordinator = self.coordinator
        if len(members) > coordinator.config.max_size:
            return None
        classic = coordinator.downgraded_group(group_id, generation, [
            ClassicMember(member_id=m.member_id, group_instance_id=m.instance_id,
                          client_id=m.client_id, client_host=m.client_host,
                          rebalance_timeout_ms=m.rebalance_timeout_ms,
                          session_timeout_ms=m.classic.session_timeout_ms,
                          protocol_type="consumer", supported_protocols=list(m.classic.protocols),
                          assignment=assignment)
            for m, assignment in members if m.classic is not None], now_ms)
        value = classic.to_metadata_value({m.member_id: a for m, a in members})
        record = (serialize_group_metadata_key(group_id), serialize_group_metadata_value(value))
        return record, lambda: coordinator.adopt_group(classic, self.clock.milliseconds())

    def _classic_join_to_consumer_group(self, group_id: str, now_ms: int) -> ErrorCode:
        """A JoinGroup for the id of an empty consumer group: it is deleted (its tombstones
        written) and the classic group starts. (A non-empty one takes the member as a classic
        member, through ``coordinator.mixed``, before this is asked.)"""
        consumer = self._consumer
        group = consumer.group(group_id) if consumer is not None else None
        if consumer is None or group is None:
            return ErrorCode.NONE
        if group.members:
            return ErrorCode.INCONSISTENT_GROUP_PROTOCOL
        error, tombstones = consumer.delete_group(group_id)
        if not error and tombstones:
            self.topic.append(self.topic.partition_for(group_id), tombstones, now_ms)
        return ErrorCode.NONE

    def shutdown(self, now_ms: int) -> None:
        self.runtime.close()
        if self._consumer is not None:
            self._consumer.shutdown()
        if self._coordinator is not None:
            self._coordinator.shutdown(now_ms)

    def ensure_offsets_topic(self, now_ms: int) -> ErrorCode:
        """Create ``__consumer_offsets`` on first need (Kafka does it on FindCoordinator); a
        topic created here has nothing to replay, so its partitions load at once."""
        if self.topic.exists:
            return ErrorCode.NONE
        if self._coordinator is None:
            return self.offsets.ensure_topic(now_ms)
        error = self.topic.ensure_created(now_ms)
        if not error:
            self.runtime.load_led_partitions(now_ms)
        return error

    # -- offsets: what the offset handlers call --------------------------------------------

    def _unknown(self, offsets: Iterable[OffsetToCommit],
                 errors: dict[TopicPartition, ErrorCode]) -> list[OffsetToCommit]:
        """The offsets of partitions that exist; the others answer UNKNOWN_TOPIC_OR_PARTITION
        in ``errors``."""
        known = []
        for o in offsets:
            if self.metadata.partition(o.topic, o.partition) is None:
                errors[(o.topic, o.partition)] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            else:
                known.append(o)
        return known

    def commit_offsets(self, group_id: str, member_id: str, group_instance_id: str | None,
                       generation_id: int, offsets: Sequence[OffsetToCommit], now_ms: int,
                       retention_ms: int = -1, *, api_version: int = 9,
                       ) -> Outcome[dict[TopicPartition, ErrorCode]]:
        """OffsetCommit (Kafka's ``commitOffsets``): each partition's error, at once or, while
        the batch is being replicated to the ISR, as a future. Unknown partitions are answered
        before the group is looked at: a request naming none that exists reaches no group
        (and creates none). The group's verdict (generation, member) answers every other
        partition when it refuses; else the offsets are written in one batch."""
        errors: dict[TopicPartition, ErrorCode] = {}
        known = self._unknown(offsets, errors)
        if not known:
            return errors
        consumer_group = self.consumer_group(group_id)
        if consumer_group is not None:
            error = self.consumer.validate_offset_commit(consumer_group, member_id, generation_id,
                                                         api_version, transactional=False)
        else:
            error = self.coordinator.handle_commit_offsets(group_id, member_id,
                                                           group_instance_id, generation_id,
                                                           now_ms)
        if error:
            errors.update({(o.topic, o.partition): error for o in known})
            return errors

        def stored(written: dict[TopicPartition, ErrorCode]) -> dict[TopicPartition, ErrorCode]:
            errors.update(written)
            self.offset_commits.count += sum(1 for e in written.values() if e == ErrorCode.NONE)
            return errors

        return when_ready(self.offsets.commit(group_id, known, now_ms, retention_ms), stored)

    def commit_transactional_offsets(
        self, group_id: str, transactional_id: str, producer: TxnProducer, member_id: str,
        group_instance_id: str | None, generation_id: int, offsets: Sequence[OffsetToCommit],
        error_mode: TxnErrorMode, now_ms: int,
    ) -> Outcome[dict[TopicPartition, ErrorCode]]:
        """TxnOffsetCommit (Kafka's ``commitTransactionalOffsets``, as 3.9 orders it): unknown
        partitions first, then the coordinator's status for the group (an unknown group is
        created), then the group's partition verified with the transaction coordinator when
        the producer's transaction is not open there yet (KIP-890: AddOffsetsToTxn must have
        added it), and only then the member checked and the batch written with the
        verification's guard. A failed verification answers every partition with the error
        as an offset commit maps it. The offsets count once the transaction's COMMIT marker
        follows."""
        errors: dict[TopicPartition, ErrorCode] = {}
        known = self._unknown(offsets, errors)
        if not known:
            return errors

        def every(error: ErrorCode) -> dict[TopicPartition, ErrorCode]:
            errors.update({(o.topic, o.partition): error for o in known})
            return errors

        if self.consumer_group(group_id) is None:
            error = self.coordinator.begin_txn_offset_commit(group_id, now_ms)
        else:
            error = self.coordinator.handle_fetch_offsets(group_id)  # the status alone
        if error:
            return every(error)
        verification = self.replica_manager.maybe_start_transaction_verification_for_partition(
            (self.topic.name, self.topic.partition_for(group_id)), transactional_id,
            producer.producer_id, producer.producer_epoch, NO_SEQUENCE, error_mode, now_ms)
        later = is_pending(verification)

        def commit(verified: tuple[ErrorCode, VerificationGuard | None],
                   ) -> Outcome[dict[TopicPartition, ErrorCode]]:
            error, guard = verified
            if error:
                return every(commit_error_for(error))
            at_ms = self.clock.milliseconds() if later else now_ms
            consumer_group = self.consumer_group(group_id)
            if consumer_group is not None:
                error = self.consumer.validate_offset_commit(
                    consumer_group, member_id, generation_id, 9, transactional=True)
            else:
                error = self.coordinator.handle_commit_offsets(
                    group_id, member_id, group_instance_id, generation_id, at_ms,
                    transactional=True)
            if error:
                return every(error)

            def stored(written: dict[TopicPartition, ErrorCode],
                       ) -> dict[TopicPartition, ErrorCode]:
                errors.update(written)
                return errors

            return when_ready(self.offsets.commit(group_id, known, at_ms, producer=producer,
                                                  verification_guard=guard), stored)

        return chain(verification, commit)

    def fetch_offsets(self, group_id: str, partitions: Sequence[TopicPartition] | None, *,
                      require_stable: bool = False,
                      member: tuple[str | None, int] = (None, -1),
                      ) -> tuple[ErrorCode, list[OffsetFetchResult]]:
        """OffsetFetch (Kafka's ``fetchOffsets``/``fetchAllOffsets``): the coordinator's
        status for the group, and the committed offsets of ``partitions`` (None: all). A
        consumer group checks the ``member`` (id, epoch) an OffsetFetch v9 names, as Kafka 4
        does (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH); without one (an admin client) it
        answers."""
        error = self.coordinator.handle_fetch_offsets(group_id)
        if error:
            return error, []
        consumer_group = self.consumer_group(group_id)
        if consumer_group is not None:
            error = self.consumer.validate_offset_fetch(consumer_group, *member)
            if error:
                return error, []
        return ErrorCode.NONE, self.offsets.fetch(group_id, partitions,
                                                  require_stable=require_stable)

    def remove_offsets(self, group_id: str, partitions: Sequence[TopicPartition], now_ms: int,
                       ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        """OffsetDelete (Kafka's ``deleteOffsets``): the group-level error, else each
        partition's: GROUP_SUBSCRIBED_TO_TOPIC for a topic the group's consumers subscribe
        to, UNKNOWN_TOPIC_OR_PARTITION for one that does not exist; the others' offsets are
        removed (:meth:`delete_offsets`)."""
        consumer_group = self.consumer_group(group_id)
        if consumer_group is not None:
            error = self.coordinator.handle_fetch_offsets(group_id)  # the status alone
            subscribed = (frozenset(consumer_group.subscribed_topic_names())
                          if consumer_group.members else frozenset())
        else:
            error, subscribed = self.coordinator.validate_delete_offsets(
                group_id, list(dict.fromkeys(t for t, _ in partitions)))
        if error:
            return error, {}
        errors: dict[TopicPartition, ErrorCode] = {}
        deletable = []
        for tp in partitions:
            if tp[0] in subscribed:
                errors[tp] = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
            elif self.metadata.partition(*tp) is None:
                errors[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            else:
                errors[tp] = ErrorCode.NONE
                deletable.append(tp)
        if deletable:
            self.delete_offsets(group_id, deletable, now_ms)
        return ErrorCode.NONE, errors

    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]],
                       now_ms: int) -> None:
        """OffsetDelete's removal, once the coordinator allowed it (Kafka's
        ``cleanupGroupMetadata`` after ``removeOffsets``): the offsets and what is pending for
        them go; an Empty group left without offsets (committed or pending) dies, with its
        metadata tombstone in the same batch when it ever stored metadata (generation > 0)."""
        consumer_group = self.consumer_group(group_id)
        if consumer_group is not None:
            self.offsets.delete_offsets(group_id, partitions, now_ms,
                                        tombstone_group_if_empty=False)
            if not consumer_group.members and not self.offsets.has_offsets(group_id):
                self._delete_consumer_group(group_id, now_ms)
            return
        group = self.coordinator.group(group_id)
        empty = group is not None and group.state is GroupState.EMPTY
        self.offsets.delete_offsets(
            group_id, partitions, now_ms,
            tombstone_group_if_empty=empty and group is not None and group.generation_id > 0)
        if empty and not self.offsets.has_offsets(group_id):
            self.coordinator.remove_empty_group(group_id, now_ms)

    def _delete_consumer_group(self, group_id: str, now_ms: int) -> ErrorCode:
        """An empty consumer group goes: its tombstones written (Kafka's
        ``createGroupTombstoneRecords``); NON_EMPTY_GROUP while it has members."""
        error, tombstones = self.consumer.delete_group(group_id)
        if not error and tombstones:
            self.topic.append(self.topic.partition_for(group_id), tombstones, now_ms)
        return error

    # -- ListGroups and DeleteGroups over both group types -----------------------------------

    def list_groups(self, states: Sequence[str] = (), types: Sequence[str] = (),
                    ) -> tuple[ErrorCode, list[GroupOverview]]:
        """ListGroups: the classic groups, then the consumer groups (type ``consumer``,
        protocol type ``consumer``); filters are case-insensitive, empty ones match all."""
        result = self.coordinator.handle_list_groups(states, types)
        listed = list(result.groups)
        wanted_types = {t.lower() for t in types}
        if result.error_code in (ErrorCode.NONE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) and \
                self._consumer is not None and (not wanted_types or "consumer" in wanted_types):
            wanted_states = {s.lower() for s in states}
            for group in self._consumer.groups():
                state = str(group.state)
                if not wanted_states or state.lower() in wanted_states:
                    listed.append(GroupOverview(group.group_id, "consumer", state, "consumer"))
        return result.error_code, listed

    def delete_groups(self, group_ids: Sequence[str], now_ms: int) -> dict[str, ErrorCode]:
        """DeleteGroups: consumer groups (empty ones, with their offsets) and classic ones."""
        consumer_ids = [g for g in group_ids if self.consumer_group(g) is not None]
        results = self.coordinator.handle_delete_groups(
            [g for g in group_ids if g not in consumer_ids], now_ms)
        for group_id in consumer_ids:
            status = self.coordinator.handle_fetch_offsets(group_id)
            if status:
                results[group_id] = status
                continue
            error = self._delete_consumer_group(group_id, now_ms)
            if not error:
                self.offsets.delete_group(group_id, now_ms, tombstone_group=False)
            results[group_id] = error
        return {g: results[g] for g in group_ids}

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
            consumer_group = self.consumer_group(group_id)
            if consumer_group is not None:
                # Kafka 4: a consumer group's offsets age from their commit, and go once the
                # group is empty or no longer subscribes to their topic
                return GroupRetentionView(
                    is_empty=not consumer_group.members,
                    is_stable=consumer_group.state is ConsumerGroupState.STABLE,
                    protocol_type="consumer",
                    subscribed_topics=frozenset(consumer_group.subscribed_topic_names()))
            group = coordinator.group(group_id)
            return GroupRetentionView.of(group) if group is not None else None

        consumer_ids = [g.group_id for g in self._consumer.groups()] if self._consumer else []
        result = self.offsets.expire(
            now_ms, view, extra_groups=[*(g.group_id for g in coordinator.groups()),
                                        *consumer_ids])
        for group_id in result.dead_groups:
            if self.consumer_group(group_id) is not None:
                self._delete_consumer_group(group_id, now_ms)
            else:
                coordinator.remove_empty_group(group_id, now_ms)
        if result.offsets_removed:
            log.info("expired %d committed offset(s) of %d group(s)", result.offsets_removed,
                     len(result.removed))


def responder() -> tuple[asyncio.Future, Any]:
    """A future and the callback that completes it, for coordinator calls that answer later."""
    fut: asyncio.Future = asyncio.get_running_loop().create_future()
    return fut, functools.partial(settle, fut)
