"""Committed offsets: the cache OffsetFetch answers from, kept in step with ``__consumer_offsets``.

The cache changes only after the log accepted the write (commits), or together with a
tombstone append whose loss is harmless because the next cleanup writes it again (deletes
and expiry, as Kafka's ``cleanupGroupMetadata`` does with acks=0). A partition's offsets are
filled by replaying its log when this broker becomes its coordinator.

Besides what is committed, two kinds of offsets are *pending*, as in Kafka's ``GroupMetadata``:
a plain commit while its batch is being replicated, and a TxnOffsetCommit's offsets until its
transaction's marker (:mod:`.txn_offsets`; :meth:`OffsetManager.complete_transaction`).
OffsetFetch with ``require_stable`` answers UNSTABLE_OFFSET_COMMIT for a partition with a
pending offset, offsets being replicated do not expire, and a group with pending offsets is
not empty: it neither dies on expiry nor loses its metadata to OffsetDelete. Each cached
offset keeps the base offset of the batch that wrote it, so that a transaction committed
after a later plain commit of the same partition does not override it, live as on replay.

:class:`OffsetManager` is also the membership layer's ``GroupStore`` (``coordinator.GroupStore``):
:meth:`~OffsetManager.store_group` and :meth:`~OffsetManager.delete_group` write group metadata
records to the group's partition, and :meth:`~OffsetManager.expire` reads groups through
:meth:`GroupRetentionView.of`.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from protocol.errors import ErrorCode
from protocol.messages.group_metadata_value import GroupMetadataValue
from pybroker.coordinator.group.state import GroupState
from pybroker.coordinator.group.storage import (
    NO_LEADER_EPOCH,
    NO_TIMESTAMP,
    Appended,
    CommittedOffset,
    OffsetRecord,
    OffsetsConfig,
    OffsetsTopic,
    ReplayedPartition,
    TxnProducer,
    commit_error_for,
    serialize_group_metadata_key,
    serialize_offset_commit_key,
    serialize_offset_commit_value,
)
from pybroker.coordinator.group.txn_offsets import PendingTxnOffset, PendingTxnOffsets
from pybroker.kernel.outcome import Outcome, when_ready
from pybroker.kernel.types import TopicPartition

if TYPE_CHECKING:
    from pybroker.cluster.replica_manager import VerificationGuard
    from pybroker.coordinator.group.group import ClassicGroup

__all__ = [
    "CommittedOffset",
    "ExpiryResult",
    "GroupRetentionView",
    "OffsetFetchResult",
    "OffsetManager",
    "OffsetToCommit",
    "TxnProducer",
]

log = logging.getLogger(__name__)

CONSUMER_PROTOCOL_TYPE = "consumer"


class OffsetToCommit(NamedTuple):
    """One partition of an OffsetCommit request. ``commit_timestamp`` is only sent by v1;
    -1 means "now". A null ``metadata`` is stored as the empty string."""

    topic: str
    partition: int
    offset: int
    leader_epoch: int = NO_LEADER_EPOCH
    metadata: str | None = None
    commit_timestamp: int = NO_TIMESTAMP


class OffsetFetchResult(NamedTuple):
    topic: str
    partition: int
    offset: int            # -1 when nothing is committed
    leader_epoch: int      # -1 when unknown
    metadata: str
    error: ErrorCode


@dataclass(frozen=True, slots=True)
class GroupRetentionView:
    """What offset expiry needs to know of a group's membership (KIP-211).

    ``protocol_type`` is None for a group that never had members (assign() + commit).
    ``current_state_timestamp`` is when the group entered its state (None if unknown, as for
    groups stored before Kafka 2.1). ``subscribed_topics`` is known only for a consumer-protocol
    group whose subscriptions could be read. ``generation`` decides whether a group that dies
    gets a metadata tombstone (generation 0 never wrote metadata).
    """

    is_empty: bool
    is_stable: bool = False
    protocol_type: str | None = None
    current_state_timestamp: int | None = None
    subscribed_topics: frozenset[str] | None = None
    generation: int = 0

    @classmethod
    def of(cls, group: ClassicGroup) -> GroupRetentionView:
        """The view of a group of the membership layer."""
        return cls(
            is_empty=group.state is GroupState.EMPTY,
            is_stable=group.state is GroupState.STABLE,
            protocol_type=group.protocol_type,
            current_state_timestamp=group.current_state_timestamp,
            subscribed_topics=group.subscribed_topics,
            generation=group.generation_id,
        )


@dataclass(slots=True)
class ExpiryResult:
    """What one expiry pass removed: offsets per group, and the Empty groups that have no
    offsets left (Kafka moves them to Dead; the membership layer should drop them)."""

    removed: dict[str, list[TopicPartition]] = field(default_factory=dict)
    dead_groups: list[str] = field(default_factory=list)

    @property
    def offsets_removed(self) -> int:
        return sum(len(v) for v in self.removed.values())


def _java_length(s: str) -> int:
    """``String.length()``: UTF-16 code units, which is what offset.metadata.max.bytes bounds."""
    return len(s.encode("utf-16-le")) // 2


class OffsetManager:
    """Committed offsets of the groups of the ``__consumer_offsets`` partitions this broker
    leads (Kafka's offset half of ``GroupMetadataManager``), and their pending offsets."""

    def __init__(self, topic: OffsetsTopic, config: OffsetsConfig | None = None) -> None:
        self.topic = topic
        self.config = config or topic.config
        self._offsets: dict[str, dict[TopicPartition, OffsetRecord]] = {}
        #: plain commits being replicated: group -> (topic, partition) -> their commit ids
        self._in_flight: dict[str, dict[TopicPartition, set[int]]] = {}
        self._commit_ids = itertools.count()
        #: TxnOffsetCommits' offsets waiting for their transaction's marker
        self.pending = PendingTxnOffsets()
        self.loaded_partitions: set[int] = set()

    # -- loading ---------------------------------------------------------------------------
    def load_partition(self, partition: int) -> dict[str, GroupMetadataValue | None]:
        """Replay a partition at once and :meth:`install_partition` it (the broker loads
        through the coordinator runtime instead, which gives the loop back between chunks)."""
        return self.install_partition(partition, self.topic.replay(partition))

    def install_partition(self, partition: int, replayed: ReplayedPartition,
                          ) -> dict[str, GroupMetadataValue | None]:
        """Take a partition's replay into the offset cache; returns the groups the membership
        layer should load: each group with stored metadata, and each group known only through
        its offsets, committed or pending (as None: Kafka loads those as Empty groups). Groups
        whose metadata was deleted and that have no offsets are left out. Transactions without
        a marker yet leave their offsets pending, as before the reload."""
        self.unload_partition(partition)
        for group, records in replayed.offset_records.items():
            self._offsets[group] = records
        self.pending.load(partition, replayed.pending)
        self.loaded_partitions.add(partition)
        groups: dict[str, GroupMetadataValue | None] = {
            g: v for g, v in replayed.groups.items() if v is not None}
        for group in [*replayed.offset_records, *sorted(self.pending.groups(partition))]:
            groups.setdefault(group, None)
        log.info("Loaded %s-%d: %d group(s), %d with stored metadata, %d transaction(s) open",
                 self.topic.name, partition, len(groups),
                 sum(v is not None for v in groups.values()), len(replayed.pending))
        return groups

    def load_led_partitions(self) -> dict[str, GroupMetadataValue | None]:
        """Load every partition this broker leads and has not loaded yet (start-up, and
        after the topic was created); returns the groups found, as :meth:`load_partition`."""
        groups: dict[str, GroupMetadataValue | None] = {}
        for partition in self.topic.led_partitions():
            if partition not in self.loaded_partitions:
                groups.update(self.load_partition(partition))
        return groups

    def ensure_topic(self, now_ms: int) -> ErrorCode:
        """Create ``__consumer_offsets`` if needed (FindCoordinator's job in Kafka); a topic
        created here has nothing to replay, so its partitions count as loaded at once."""
        if self.topic.exists:
            return ErrorCode.NONE
        error = self.topic.ensure_created(now_ms)
        if not error:
            self.load_led_partitions()
        return error

    def unload_partition(self, partition: int) -> list[str]:
        """Drop the cached and pending offsets of a partition's groups (leadership moved
        away); returns the groups that had any."""
        self.loaded_partitions.discard(partition)
        gone = [g for g in dict.fromkeys([*self._offsets, *self._in_flight])
                if self.topic.partition_for(g) == partition]
        for group in sorted(self.pending.groups(partition)):
            if group not in gone:
                gone.append(group)
        for group in gone:
            self._offsets.pop(group, None)
            self._in_flight.pop(group, None)
        self.pending.unload(partition)
        return gone

    def is_loaded(self, group_id: str) -> bool:
        return self.topic.partition_for(group_id) in self.loaded_partitions

    # -- queries ---------------------------------------------------------------------------
    def groups(self) -> list[str]:
        """Groups with committed offsets (including offset-only groups without members)."""
        return list(self._offsets)

    def has_offsets(self, group_id: str) -> bool:
        """Whether the group has offsets: committed, being replicated, or pending in a
        transaction (Kafka's ``GroupMetadata.hasOffsets``). A group without any is gone once
        it is Empty."""
        return (bool(self._offsets.get(group_id)) or bool(self._in_flight.get(group_id))
                or self.pending.has_pending(self.topic.partition_for(group_id), group_id))

    def partitions_among(self, group_id: str, partitions: set[TopicPartition],
                         ) -> list[TopicPartition]:
        """Which of ``partitions`` the group has an offset for: committed, being replicated or
        pending in a transaction."""
        part = self.topic.partition_for(group_id)
        found = set(self._offsets.get(group_id, ())) | set(self._in_flight.get(group_id, ()))
        return sorted(tp for tp in partitions
                      if tp in found or self.pending.is_pending(part, group_id, tp))

    def offsets_of(self, group_id: str) -> dict[TopicPartition, CommittedOffset]:
        return {tp: r.committed for tp, r in self._offsets.get(group_id, {}).items()}

    def is_unstable(self, group_id: str, tp: TopicPartition) -> bool:
        """Whether the partition has an offset on its way: a plain commit being replicated or
        a transactional one waiting for its marker (Kafka's
        ``hasPendingOffsetCommitsForTopicPartition``)."""
        return (bool(self._in_flight.get(group_id, {}).get(tp))
                or self.pending.is_pending(self.topic.partition_for(group_id), group_id, tp))

    def fetch(self, group_id: str, partitions: Iterable[TopicPartition] | None = None,
              *, require_stable: bool = False) -> list[OffsetFetchResult]:
        """Committed offsets of ``partitions`` (None: every partition with one, sorted).

        A partition without a commit answers offset -1 and no error. With ``require_stable``
        (OffsetFetch v7+, sent by consumers reading committed data, KIP-447) a partition with
        a pending offset (:meth:`is_unstable`) answers UNSTABLE_OFFSET_COMMIT and offset -1
        instead: the consumer asks again once the transaction completed. Without it, the
        last committed offset is answered as if nothing were pending.
        """
        committed = self._offsets.get(group_id, {})
        wanted = sorted(committed) if partitions is None else list(partitions)
        results = []
        for topic, partition in wanted:
            c = committed.get((topic, partition))
            if require_stable and self.is_unstable(group_id, (topic, partition)):
                results.append(OffsetFetchResult(topic, partition, -1, NO_LEADER_EPOCH, "",
                                                 ErrorCode.UNSTABLE_OFFSET_COMMIT))
            elif c is None:
                results.append(OffsetFetchResult(topic, partition, -1, NO_LEADER_EPOCH, "",
                                                 ErrorCode.NONE))
            else:
                results.append(OffsetFetchResult(topic, partition, c.committed.offset,
                                                 c.committed.leader_epoch, c.committed.metadata,
                                                 ErrorCode.NONE))
        return results

    # -- commits ---------------------------------------------------------------------------
    def commit(self, group_id: str, offsets: Iterable[OffsetToCommit | tuple], now_ms: int,
               retention_ms_override: int = -1, *, producer: TxnProducer | None = None,
               verification_guard: VerificationGuard | None = None,
               ) -> Outcome[dict[TopicPartition, ErrorCode]]:
        """Store an OffsetCommit request's offsets in one batch; per-partition errors, at once
        or, while the batch is being replicated to the ISR, as a future.

        Offsets whose metadata exceeds ``offset.metadata.max.bytes`` answer
        OFFSET_METADATA_TOO_LARGE and are not written; the others share the append's fate,
        and enter the cache (what OffsetFetch answers) only once the append succeeded, as
        Kafka's ``storeOffsets`` callback does, and only if no later batch of the partition
        is cached already. ``retention_ms_override`` (OffsetCommit v2-v4
        ``retention_time_ms``, -1 = broker default) gives the offsets an explicit expire
        timestamp.

        With ``producer`` this is a TxnOffsetCommit: the batch is the producer's,
        transactional, and its offsets stay pending (not answered by OffsetFetch) until
        :meth:`complete_transaction` applies or drops them. ``verification_guard``: the guard of
        the transaction's verification (KIP-890) the append presents.
        """
        expire = now_ms + retention_ms_override if retention_ms_override != -1 else NO_TIMESTAMP
        errors: dict[TopicPartition, ErrorCode] = {}
        accepted: dict[TopicPartition, CommittedOffset] = {}
        for item in offsets:
            entry = item if isinstance(item, OffsetToCommit) else OffsetToCommit(*item)
            tp = (entry.topic, entry.partition)
            metadata = entry.metadata if entry.metadata is not None else ""
            if _java_length(metadata) > self.config.metadata_max_bytes:
                errors[tp] = ErrorCode.OFFSET_METADATA_TOO_LARGE
                accepted.pop(tp, None)
                continue
            commit_ts = entry.commit_timestamp if entry.commit_timestamp != NO_TIMESTAMP else now_ms
            accepted[tp] = CommittedOffset(entry.offset, entry.leader_epoch, metadata, commit_ts,
                                           expire)
            errors[tp] = ErrorCode.NONE
        if not accepted:
            return errors

        records = [(serialize_offset_commit_key(group_id, t, p), serialize_offset_commit_value(c))
                   for (t, p), c in accepted.items()]
        partition = self.topic.partition_for(group_id)
        commit_id = next(self._commit_ids)
        replaced: dict[TopicPartition, PendingTxnOffset] = {}
        if producer is None:
            in_flight = self._in_flight.setdefault(group_id, {})
            for tp in accepted:
                in_flight.setdefault(tp, set()).add(commit_id)
        else:
            replaced = self.pending.prepare(partition, producer.producer_id, group_id, accepted)

        def settle(appended: Appended) -> dict[TopicPartition, ErrorCode]:
            error = appended.error
            if not error and not self.topic.is_leader(partition):
                error = ErrorCode.NOT_LEADER_OR_FOLLOWER  # moved while being replicated
            if producer is not None:
                if error:
                    self.pending.failed(partition, producer.producer_id, group_id, accepted,
                                        replaced)
                else:
                    self.pending.appended(partition, producer.producer_id, group_id, accepted,
                                          appended.base_offset)
            else:
                awaited = self._end_in_flight(group_id, accepted, commit_id)
                if not error:
                    for tp in awaited:
                        self._cache(group_id, tp, OffsetRecord(appended.base_offset,
                                                               accepted[tp]))
            if error:
                mapped = commit_error_for(error)
                for tp in accepted:
                    errors[tp] = mapped
            return errors

        return when_ready(self.topic.append_offsets(partition, records, now_ms,
                                                    producer=producer,
                                                    verification_guard=verification_guard),
                          settle)

    def _end_in_flight(self, group_id: str, offsets: Iterable[TopicPartition],
                       commit_id: int) -> list[TopicPartition]:
        """A plain commit's append is over: the partitions it was still awaited for (those
        not deleted meanwhile, as Kafka's ``onOffsetCommitAppend`` checks its pending map)."""
        in_flight = self._in_flight.get(group_id)
        if in_flight is None:
            return []
        awaited = []
        for tp in offsets:
            ids = in_flight.get(tp)
            if ids is not None and commit_id in ids:
                awaited.append(tp)
                ids.discard(commit_id)
                if not ids:
                    del in_flight[tp]
        if not in_flight:
            del self._in_flight[group_id]
        return awaited

    def _cache(self, group_id: str, tp: TopicPartition, record: OffsetRecord) -> bool:
        """Cache ``record`` unless the partition's cached offset was written later."""
        cached = self._offsets.setdefault(group_id, {})
        current = cached.get(tp)
        if current is not None and not current.older_than(record.batch_offset):
            return False
        cached[tp] = record
        return True

    # -- transactions ------------------------------------------------------------------------
    def complete_transaction(self, producer_id: int, partitions: Iterable[int],
                             committed: bool) -> int:
        """The producer's transaction ended: its COMMIT (``committed``) or ABORT marker is in
        each of ``partitions`` of ``__consumer_offsets``. The producer's pending offsets of
        the groups of those partitions leave; on COMMIT each becomes its partition's committed
        offset unless a plain commit of the same partition was written after it (Kafka's
        ``completePendingTxnOffsetCommit``). Partitions not loaded here are skipped: their
        coordinator replays the marker. Returns how many offsets were applied."""
        applied = 0
        for partition in dict.fromkeys(partitions):
            if partition not in self.loaded_partitions:
                continue
            for group_id, offsets in self.pending.complete(partition, producer_id).items():
                if not committed:
                    log.debug("Transaction of producer %d aborted: %d offset(s) of group %s "
                              "dropped", producer_id, len(offsets), group_id)
                    continue
                for tp, pending in offsets.items():
                    record = pending.record()
                    if record is None:
                        # Its batch is still being appended: the marker came first, which a
                        # transaction coordinator never does (Kafka refuses it too).
                        log.warning("Transaction of producer %d committed before its offset "
                                    "of %s for group %s was written; ignoring that offset",
                                    producer_id, tp, group_id)
                    elif self._cache(group_id, tp, record):
                        applied += 1
        return applied

    # -- deletes ---------------------------------------------------------------------------
    def _drop(self, group_id: str, partitions: Iterable[TopicPartition] | None, *,
              pending: bool = True) -> list[TopicPartition]:
        """Drop offsets from the cache, with whatever is pending for the same partitions (for
        the whole group when ``partitions`` is None), as Kafka's ``removeOffsets``; only the
        committed ones without ``pending`` (expiry). Returns the partitions that had a
        committed offset."""
        committed = self._offsets.get(group_id, {})
        in_flight = self._in_flight.get(group_id, {})
        if not pending:
            targets = [tp for tp in dict.fromkeys(partitions or ()) if tp in committed]
        elif partitions is None:
            targets = list(committed)
            self._in_flight.pop(group_id, None)
            self.pending.remove(self.topic.partition_for(group_id), group_id)
        else:
            wanted = list(dict.fromkeys(partitions))
            targets = [tp for tp in wanted if tp in committed]
            for tp in wanted:
                in_flight.pop(tp, None)
            if not in_flight:
                self._in_flight.pop(group_id, None)
            self.pending.remove(self.topic.partition_for(group_id), group_id, wanted)
        for tp in targets:
            del committed[tp]
        if not committed:
            self._offsets.pop(group_id, None)
        return targets

    def _write_tombstones(self, group_id: str, targets: list[TopicPartition], now_ms: int,
                          *, tombstone_group: bool) -> ErrorCode:
        """Tombstones of ``targets`` (and, if asked, of the group's metadata) in one batch."""
        records: list[tuple[bytes, bytes | None]] = [
            (serialize_offset_commit_key(group_id, t, p), None) for t, p in targets]
        if tombstone_group:
            records.append((serialize_group_metadata_key(group_id), None))
        # Like Kafka, no acks are required: a lost tombstone is written again by the next
        # cleanup, and the cache is already right.
        error = self.topic.append(self.topic.partition_for(group_id), records, now_ms,
                                  required_acks=0)
        if error:
            log.warning("Failed to append %d tombstone(s) for group %s: %s", len(records),
                        group_id, error.name)
        return error

    def _remove(self, group_id: str, partitions: Iterable[TopicPartition] | None, now_ms: int,
                *, tombstone_group: bool) -> tuple[list[TopicPartition], ErrorCode]:
        """:meth:`_drop` and :meth:`_write_tombstones`. Returns the partitions that had an
        offset and the append's error."""
        targets = self._drop(group_id, partitions)
        return targets, self._write_tombstones(group_id, targets, now_ms,
                                               tombstone_group=tombstone_group)

    def delete_offsets(self, group_id: str, partitions: Iterable[TopicPartition], now_ms: int,
                       *, tombstone_group_if_empty: bool = False) -> list[TopicPartition]:
        """OffsetDelete: remove the given partitions' offsets, and what is pending for them;
        returns those that had a committed offset.

        With ``tombstone_group_if_empty`` the group's metadata tombstone joins the batch when
        the group is left without offsets (:meth:`has_offsets`; Kafka does so for an Empty
        group with generation > 0, which then dies).
        """
        targets = self._drop(group_id, partitions)
        emptied = not self.has_offsets(group_id)
        self._write_tombstones(group_id, targets, now_ms,
                               tombstone_group=tombstone_group_if_empty and emptied)
        return targets

    def delete_group_offsets(self, group_id: str, now_ms: int) -> list[TopicPartition]:
        """Remove every offset of a group, pending ones included (tombstones only for offsets
        that were committed)."""
        removed, _ = self._remove(group_id, None, now_ms, tombstone_group=False)
        return removed

    # -- the group store ---------------------------------------------------------------------
    def store_group(self, group_id: str, value: GroupMetadataValue | None,
                    now_ms: int) -> Outcome[ErrorCode]:
        """Persist a group's metadata (None writes its tombstone); the client-facing error, at
        once or once the ISR has it."""
        return self.topic.store_group(group_id, value, now_ms)

    def delete_group(self, group_id: str, now_ms: int, *, tombstone_group: bool = True) -> ErrorCode:
        """DeleteGroups: tombstones for all of the group's offsets and for its metadata, one
        batch. Pass ``tombstone_group=False`` for a group that never stored metadata
        (generation 0), as Kafka does. Pending offsets go too: a transaction that commits
        later no longer brings them back to this coordinator's cache (a replay of the log
        would, as Kafka's loader does)."""
        _, error = self._remove(group_id, None, now_ms, tombstone_group=tombstone_group)
        return commit_error_for(error) if error else ErrorCode.NONE

    # -- expiry ----------------------------------------------------------------------------
    def expired_offsets(self, group_id: str, now_ms: int,
                        view: GroupRetentionView | None) -> list[TopicPartition]:
        """The group's offsets past ``offsets.retention.minutes`` (Kafka 2.1+, KIP-211).

        - Empty group with a protocol: retention counts from when it became Empty (or from
          each commit when that time is unknown);
        - Stable consumer group that knows its subscriptions: offsets of topics it no
          longer subscribes to, counted from their commit;
        - group without a protocol (offset storage only; ``view`` None): from each commit;
        - otherwise nothing expires.

        An offset with its own expire timestamp (OffsetCommit v2-v4) expires at that time. An
        offset whose partition has a plain commit being replicated does not expire; a pending
        transactional offset does not hold the committed one back (as in Kafka).
        """
        committed = self._offsets.get(group_id)
        if not committed:
            return []
        retention = self.config.retention_ms
        protocol_type = view.protocol_type if view is not None else None
        skip: frozenset[str] = frozenset()
        if protocol_type is not None and view is not None and view.is_empty:
            state_ts = view.current_state_timestamp

            def base(c: CommittedOffset) -> int:
                return state_ts if state_ts is not None else c.commit_timestamp
        elif (protocol_type == CONSUMER_PROTOCOL_TYPE and view is not None and view.is_stable
              and view.subscribed_topics is not None):
            skip = view.subscribed_topics

            def base(c: CommittedOffset) -> int:
                return c.commit_timestamp
        elif protocol_type is None:
            def base(c: CommittedOffset) -> int:
                return c.commit_timestamp
        else:
            return []
        in_flight = self._in_flight.get(group_id, {})
        expired = []
        for tp, record in committed.items():
            c = record.committed
            if tp[0] in skip or tp in in_flight:
                continue
            if c.expire_timestamp != NO_TIMESTAMP:
                if now_ms >= c.expire_timestamp:
                    expired.append(tp)
            elif now_ms - base(c) >= retention:
                expired.append(tp)
        return expired

    def expire(self, now_ms: int, group_view: Callable[[str], GroupRetentionView | None],
               extra_groups: Iterable[str] = ()) -> ExpiryResult:
        """One pass of Kafka's ``delete-expired-group-metadata`` task.

        ``group_view(group_id)`` describes a group's membership, None for a group the
        membership layer does not know (offsets only). ``extra_groups`` are groups without
        offsets that should be checked too (an Empty group with nothing committed dies). Each
        group's tombstones, including its metadata tombstone when it died with a generation
        above 0, go out in one batch. A group with pending offsets (:meth:`has_offsets`) does
        not die, even if it has nothing committed.
        """
        result = ExpiryResult()
        for group_id in dict.fromkeys([*self._offsets, *extra_groups]):
            if not self.is_loaded(group_id):
                continue
            view = group_view(group_id)
            expired = self.expired_offsets(group_id, now_ms, view)
            empty = view is None or view.is_empty
            targets = self._drop(group_id, expired, pending=False) if expired else []
            dies = empty and not self.has_offsets(group_id)
            tombstone_group = dies and view is not None and view.generation > 0
            if targets or tombstone_group:
                self._write_tombstones(group_id, targets, now_ms,
                                       tombstone_group=tombstone_group)
                if targets:
                    result.removed[group_id] = targets
            if dies:
                result.dead_groups.append(group_id)
        if result.removed:
            log.info("Removed %d expired offset(s)", result.offsets_removed)
        return result
