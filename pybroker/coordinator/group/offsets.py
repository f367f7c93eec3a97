"""Committed offsets: the cache OffsetFetch answers from, kept in step with ``__consumer_offsets``.

The cache changes only after the log accepted the write (commits), or together with a
tombstone append whose loss is harmless because the next cleanup writes it again (deletes
and expiry, as Kafka's ``cleanupGroupMetadata`` does with acks=0). A partition's offsets are
filled by replaying its log when this broker becomes its coordinator.

:class:`OffsetManager` is also the membership layer's ``GroupStore`` (``coordinator.GroupStore``):
:meth:`~OffsetManager.store_group` and :meth:`~OffsetManager.delete_group` write group metadata
records to the group's partition, and :meth:`~OffsetManager.expire` reads groups through
:meth:`GroupRetentionView.of`.
"""

from __future__ import annotations

import asyncio
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
    CommittedOffset,
    OffsetsConfig,
    OffsetsTopic,
    TopicPartition,
    commit_error_for,
    serialize_group_metadata_key,
    serialize_offset_commit_key,
    serialize_offset_commit_value,
)

if TYPE_CHECKING:
    from pybroker.coordinator.group.group import ClassicGroup

__all__ = [
    "CommittedOffset",
    "ExpiryResult",
    "GroupRetentionView",
    "OffsetFetchResult",
    "OffsetManager",
    "OffsetToCommit",
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
    leads (Kafka's offset half of ``GroupMetadataManager``)."""

    def __init__(self, topic: OffsetsTopic, config: OffsetsConfig | None = None) -> None:
        self.topic = topic
        self.config = config or topic.config
        self._offsets: dict[str, dict[TopicPartition, CommittedOffset]] = {}
        self.loaded_partitions: set[int] = set()

    # -- loading ---------------------------------------------------------------------------
    def load_partition(self, partition: int) -> dict[str, GroupMetadataValue | None]:
        """Replay a partition into the offset cache; returns the groups the membership layer
        should load: each group with stored metadata, and each group known only through its
        offsets (as None: Kafka loads those as Empty groups). Groups whose metadata was
        deleted and that have no offsets are left out."""
        replayed = self.topic.replay(partition)
        self.unload_partition(partition)
        for group, offsets in replayed.offsets.items():
            self._offsets[group] = dict(offsets)
        self.loaded_partitions.add(partition)
        groups: dict[str, GroupMetadataValue | None] = {
            g: v for g, v in replayed.groups.items() if v is not None}
        for group in replayed.offsets:
            groups.setdefault(group, None)
        log.info("Loaded %s-%d: %d group(s), %d with stored metadata", self.topic.name, partition,
                 len(groups), sum(v is not None for v in groups.values()))
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
        """Drop the cached offsets of a partition's groups (leadership moved away)."""
        self.loaded_partitions.discard(partition)
        gone = [g for g in self._offsets if self.topic.partition_for(g) == partition]
        for group in gone:
            del self._offsets[group]
        return gone

    def is_loaded(self, group_id: str) -> bool:
        return self.topic.partition_for(group_id) in self.loaded_partitions

    # -- queries ---------------------------------------------------------------------------
    def groups(self) -> list[str]:
        """Groups with committed offsets (including offset-only groups without members)."""
        return list(self._offsets)

    def has_offsets(self, group_id: str) -> bool:
        return bool(self._offsets.get(group_id))

    def offsets_of(self, group_id: str) -> dict[TopicPartition, CommittedOffset]:
        return dict(self._offsets.get(group_id, {}))

    def fetch(self, group_id: str, partitions: Iterable[TopicPartition] | None = None,
              *, require_stable: bool = False) -> list[OffsetFetchResult]:
        """Committed offsets of ``partitions`` (None: every partition with one, sorted).

        A partition without a commit answers offset -1 and no error. ``require_stable``
        (OffsetFetch v7+) never waits: without transactional commits nothing is pending.
        """
        committed = self._offsets.get(group_id, {})
        wanted = sorted(committed) if partitions is None else list(partitions)
        results = []
        for topic, partition in wanted:
            c = committed.get((topic, partition))
            if c is None:
                results.append(OffsetFetchResult(topic, partition, -1, NO_LEADER_EPOCH, "",
                                                 ErrorCode.NONE))
            else:
                results.append(OffsetFetchResult(topic, partition, c.offset, c.leader_epoch,
                                                 c.metadata, ErrorCode.NONE))
        return results

    # -- commits ---------------------------------------------------------------------------
    def commit(self, group_id: str, offsets: Iterable[OffsetToCommit | tuple], now_ms: int,
               retention_ms_override: int = -1,
               ) -> dict[TopicPartition, ErrorCode] | asyncio.Future[dict[TopicPartition,
                                                                         ErrorCode]]:
        """Store an OffsetCommit request's offsets in one batch; per-partition errors, at once
        or, while the batch is being replicated to the ISR, as a future.

        Offsets whose metadata exceeds ``offset.metadata.max.bytes`` answer
        OFFSET_METADATA_TOO_LARGE and are not written; the others share the append's fate,
        and enter the cache (what OffsetFetch answers) only once the append succeeded, as
        Kafka's ``storeOffsets`` callback does. ``retention_ms_override`` (OffsetCommit v2-v4
        ``retention_time_ms``, -1 = broker default) gives the offsets an explicit expire
        timestamp.
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

        def settle(error: ErrorCode) -> dict[TopicPartition, ErrorCode]:
            if not error and not self.topic.is_leader(partition):
                error = ErrorCode.NOT_LEADER_OR_FOLLOWER  # moved while being replicated
            if error:
                mapped = commit_error_for(error)
                for tp in accepted:
                    errors[tp] = mapped
            else:
                self._offsets.setdefault(group_id, {}).update(accepted)
            return errors

        outcome = self.topic.append_replicated(partition, records, now_ms)
        if not isinstance(outcome, asyncio.Future):
            return settle(outcome)
        answered: asyncio.Future[dict[TopicPartition, ErrorCode]] = \
            outcome.get_loop().create_future()
        outcome.add_done_callback(
            lambda f: None if answered.done() else answered.set_result(settle(f.result())))
        return answered

    # -- deletes ---------------------------------------------------------------------------
    def _remove(self, group_id: str, partitions: Iterable[TopicPartition] | None, now_ms: int,
                *, tombstone_group: bool) -> tuple[list[TopicPartition], ErrorCode]:
        """Drop offsets from the cache and write their tombstones (and, if asked, the group's)
        in one batch. Returns the partitions that had an offset and the append's error."""
        committed = self._offsets.get(group_id, {})
        targets = list(committed) if partitions is None else [
            tp for tp in dict.fromkeys(partitions) if tp in committed]
        for tp in targets:
            del committed[tp]
        if not committed:
            self._offsets.pop(group_id, None)
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
        return targets, error

    def delete_offsets(self, group_id: str, partitions: Iterable[TopicPartition], now_ms: int,
                       *, tombstone_group_if_empty: bool = False) -> list[TopicPartition]:
        """OffsetDelete: remove the given partitions' offsets; returns those that existed.

        With ``tombstone_group_if_empty`` the group's metadata tombstone joins the batch when
        no offsets remain (Kafka does so for an Empty group with generation > 0).
        """
        partitions = list(partitions)
        committed = self._offsets.get(group_id, {})
        emptied = bool(committed) and all(tp in partitions for tp in committed)
        removed, _ = self._remove(group_id, partitions, now_ms,
                                  tombstone_group=tombstone_group_if_empty and emptied)
        return removed

    def delete_group_offsets(self, group_id: str, now_ms: int) -> list[TopicPartition]:
        """Remove every offset of a group (tombstones only for offsets that existed)."""
        removed, _ = self._remove(group_id, None, now_ms, tombstone_group=False)
        return removed

    # -- the group store ---------------------------------------------------------------------
    def store_group(self, group_id: str, value: GroupMetadataValue | None,
                    now_ms: int) -> ErrorCode | asyncio.Future[ErrorCode]:
        """Persist a group's metadata (None writes its tombstone); the client-facing error, at
        once or once the ISR has it."""
        return self.topic.store_group(group_id, value, now_ms)

    def delete_group(self, group_id: str, now_ms: int, *, tombstone_group: bool = True) -> ErrorCode:
        """DeleteGroups: tombstones for all of the group's offsets and for its metadata, one
        batch. Pass ``tombstone_group=False`` for a group that never stored metadata
        (generation 0), as Kafka does."""
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

        An offset with its own expire timestamp (OffsetCommit v2-v4) expires at that time.
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
        expired = []
        for tp, c in committed.items():
            if tp[0] in skip:
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
        above 0, go out in one batch.
        """
        result = ExpiryResult()
        for group_id in dict.fromkeys([*self._offsets, *extra_groups]):
            if not self.is_loaded(group_id):
                continue
            view = group_view(group_id)
            expired = self.expired_offsets(group_id, now_ms, view)
            empty = view is None or view.is_empty
            dies = empty and not any(tp not in expired for tp in self._offsets.get(group_id, {}))
            tombstone_group = dies and view is not None and view.generation > 0
            if expired or tombstone_group:
                removed, _ = self._remove(group_id, expired, now_ms, tombstone_group=tombstone_group)
                if removed:
                    result.removed[group_id] = removed
            if dies:
                result.dead_groups.append(group_id)
        if result.removed:
            log.info("Removed %d expired offset(s)", result.offsets_removed)
        return result

