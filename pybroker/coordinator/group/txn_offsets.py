"""Transactional offset commits waiting for the end of their transaction (KIP-98, KIP-447).

A TxnOffsetCommit's offsets are written to the group's ``__consumer_offsets`` partition at
once, in one transactional batch of the producer, but they do not count as committed until the
transaction coordinator has written the transaction's marker to that partition: a COMMIT
marker makes them the group's committed offsets (unless a plain commit of the same partition
was written after them), an ABORT marker drops them. Until then OffsetFetch keeps answering
the previous offset, and with ``require_stable`` answers UNSTABLE_OFFSET_COMMIT for the
partition, so that a consumer taking over never starts from an offset that may still be
rolled back.

:class:`PendingTxnOffsets` keeps those offsets as Kafka's ``GroupMetadata`` does
(``pendingTransactionalOffsetCommits``, ``openGroupsForProducer``), but per
``__consumer_offsets`` partition, because that is what a marker names and what a change of
leadership moves: ``partition -> producer id -> group -> (topic, partition) -> offset``. It is
pure bookkeeping: the offset manager writes the batches, learns their offsets and applies what
:meth:`~PendingTxnOffsets.complete` returns.

An offset enters when its TxnOffsetCommit is accepted (:meth:`~PendingTxnOffsets.prepare`,
before the append, so that OffsetFetch with ``require_stable`` already sees it), learns its
batch's base offset when the append succeeded (:meth:`~PendingTxnOffsets.appended`), and leaves
when the append failed (:meth:`~PendingTxnOffsets.failed`), when its transaction completes
(:meth:`~PendingTxnOffsets.complete`), when OffsetDelete or DeleteGroups removes the group's
offsets (:meth:`~PendingTxnOffsets.remove`), or when this broker stops leading the partition
(:meth:`~PendingTxnOffsets.unload`). A reload rebuilds it from the log
(:meth:`~PendingTxnOffsets.load`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from pybroker.coordinator.group.storage import CommittedOffset, OffsetRecord
from pybroker.kernel.types import TopicPartition

__all__ = ["PendingTxnOffset", "PendingTxnOffsets"]

log = logging.getLogger(__name__)


class PendingTxnOffset(NamedTuple):
    """A transactional offset waiting for its marker."""

    committed: CommittedOffset
    #: the base offset of the batch that wrote it; None while that batch is being appended
    batch_offset: int | None = None

    def record(self) -> OffsetRecord | None:
        """As a committed record, once its batch's offset is known."""
        return None if self.batch_offset is None else OffsetRecord(self.batch_offset,
                                                                   self.committed)


#: group -> (topic, partition) -> pending offset
GroupsPending = dict[str, dict[TopicPartition, PendingTxnOffset]]


class PendingTxnOffsets:
    """The pending transactional offsets of the ``__consumer_offsets`` partitions this broker
    coordinates; see the module docstring."""

    def __init__(self) -> None:
        # __consumer_offsets partition -> producer id -> group -> (topic, partition) -> offset
        self._partitions: dict[int, dict[int, GroupsPending]] = {}

    # -- a TxnOffsetCommit's life ------------------------------------------------------------

    def prepare(self, partition: int, producer_id: int, group_id: str,
                offsets: Mapping[TopicPartition, CommittedOffset],
                ) -> dict[TopicPartition, PendingTxnOffset]:
        """A TxnOffsetCommit was accepted and its batch is about to be appended (Kafka's
        ``prepareTxnOffsetCommit``): its offsets are pending from now on, replacing what the
        same producer had pending for the same partitions. Returns what they replaced, for
        :meth:`failed` to put back."""
        if not offsets:
            return {}
        group = (self._partitions.setdefault(partition, {}).setdefault(producer_id, {})
                 .setdefault(group_id, {}))
        replaced = {tp: group[tp] for tp in offsets if tp in group}
        for tp, committed in offsets.items():
            group[tp] = PendingTxnOffset(committed)
        return replaced

    def appended(self, partition: int, producer_id: int, group_id: str,
                 offsets: Mapping[TopicPartition, CommittedOffset], batch_offset: int) -> None:
        """The batch of :meth:`prepare` is in the log at ``batch_offset``: the offsets still
        pending with the same values learn it (Kafka's ``onTxnOffsetCommitAppend``). Offsets
        removed meanwhile (the group deleted, the partition unloaded) stay removed."""
        group = self._group(partition, producer_id, group_id)
        if group is None:
            return
        for tp, committed in offsets.items():
            current = group.get(tp)
            if current is not None and current.committed == committed:
                group[tp] = PendingTxnOffset(committed, batch_offset)

    def failed(self, partition: int, producer_id: int, group_id: str,
               offsets: Mapping[TopicPartition, CommittedOffset],
               replaced: Mapping[TopicPartition, PendingTxnOffset] | None = None) -> None:
        """The batch of :meth:`prepare` was not written (Kafka's
        ``failPendingTxnOffsetCommit``): its offsets are no longer pending; the client is
        answered the error and retries. Where they replaced an offset already written for the
        same producer (``replaced``, from :meth:`prepare`), that one is pending again: a
        zombie's commit refused for its stale epoch must not take its successor's offset
        along (Kafka relies on the transaction verification it runs first)."""
        group = self._group(partition, producer_id, group_id)
        if group is None:
            return
        for tp, committed in offsets.items():
            current = group.get(tp)
            if current is None or current != PendingTxnOffset(committed):
                continue  # replaced or removed meanwhile
            previous = (replaced or {}).get(tp)
            if previous is not None and previous.batch_offset is not None:
                group[tp] = previous
            else:
                del group[tp]
        self._prune(partition, producer_id, group_id)

    def complete(self, partition: int, producer_id: int) -> GroupsPending:
        """The producer's transaction ended with a marker on ``partition``: its pending
        offsets there leave, returned for the caller to apply (a COMMIT) or forget (an
        ABORT). Nothing pending gives an empty mapping."""
        producers = self._partitions.get(partition)
        if producers is None:
            return {}
        groups = producers.pop(producer_id, {})
        if not producers:
            del self._partitions[partition]
        return groups

    # -- removals ----------------------------------------------------------------------------

    def remove(self, partition: int, group_id: str,
               offsets: Iterable[TopicPartition] | None = None) -> None:
        """OffsetDelete (the given partitions) or DeleteGroups (None: everything): the group's
        pending offsets go for every producer, as Kafka's ``removeOffsets`` drops them (and a
        deleted group takes the rest with it). A later marker finds nothing to apply."""
        producers = self._partitions.get(partition)
        if producers is None:
            return
        wanted = None if offsets is None else set(offsets)
        for producer_id in list(producers):
            group = producers[producer_id].get(group_id)
            if group is None:
                continue
            if wanted is None:
                group.clear()
            else:
                for tp in wanted:
                    group.pop(tp, None)
            self._prune(partition, producer_id, group_id)

    def load(self, partition: int,
             pending: Mapping[int, Mapping[str, Mapping[TopicPartition, OffsetRecord]]]) -> None:
        """What a replay of the partition left pending (transactions without a marker yet),
        replacing whatever was kept for it."""
        self.unload(partition)
        producers: dict[int, GroupsPending] = {}
        for producer_id, groups in pending.items():
            for group_id, offsets in groups.items():
                if offsets:
                    producers.setdefault(producer_id, {})[group_id] = {
                        tp: PendingTxnOffset(r.committed, r.batch_offset)
                        for tp, r in offsets.items()}
        if producers:
            self._partitions[partition] = producers

    def unload(self, partition: int) -> None:
        """This broker no longer coordinates the partition's groups: forget their pending
        offsets (the new coordinator replays them from the log)."""
        self._partitions.pop(partition, None)

    # -- queries -----------------------------------------------------------------------------

    def is_pending(self, partition: int, group_id: str, tp: TopicPartition) -> bool:
        """Whether any producer has a transactional offset of ``tp`` pending for the group
        (Kafka's ``hasPendingOffsetCommitsForTopicPartition``, transactional half)."""
        return any(tp in groups.get(group_id, ())
                   for groups in self._partitions.get(partition, {}).values())

    def has_pending(self, partition: int, group_id: str) -> bool:
        """Whether the group has any transactional offset pending."""
        return any(groups.get(group_id) for groups in self._partitions.get(partition, {}).values())

    def groups(self, partition: int) -> set[str]:
        """The groups of the partition with pending offsets."""
        return {g for groups in self._partitions.get(partition, {}).values() for g in groups}

    def producers(self, partition: int, group_id: str | None = None) -> list[int]:
        """The producers with offsets pending on the partition (for ``group_id`` only, if
        given), in id order."""
        return sorted(pid for pid, groups in self._partitions.get(partition, {}).items()
                      if group_id is None or group_id in groups)

    def of(self, partition: int, producer_id: int, group_id: str
           ) -> dict[TopicPartition, PendingTxnOffset]:
        """A copy of what the producer has pending for the group."""
        return dict(self._group(partition, producer_id, group_id) or {})

    # -- helpers -----------------------------------------------------------------------------

    def _group(self, partition: int, producer_id: int, group_id: str
               ) -> dict[TopicPartition, PendingTxnOffset] | None:
        return self._partitions.get(partition, {}).get(producer_id, {}).get(group_id)

    def _prune(self, partition: int, producer_id: int, group_id: str) -> None:
        producers = self._partitions[partition]
        groups = producers[producer_id]
        if not groups.get(group_id, True):
            del groups[group_id]
        if not groups:
            del producers[producer_id]
        if not producers:
            del self._partitions[partition]
