"""What a log answers about its offsets without reading records for a client: the aborted
transactions overlapping a range (``collectAbortedTransactions``), the last stable offset, offsets
by timestamp for ListOffsets, and the leader epochs for OffsetForLeaderEpoch."""

from __future__ import annotations

import bisect

from protocol.records.record import decode_batch

from .leader_epoch import UNDEFINED_EPOCH_OFFSET
from .local_log import LocalLog, storage_operation
from .txn_index import AbortedTxn


class LogLookups(LocalLog):
    """Offset and epoch lookups, a part of :class:`~pybroker.log.log.Log`."""

    def _collect_aborted_txns(self, k: int, offset: int, end_position: int) -> list[AbortedTxn]:
        """The aborted transactions overlapping a read from ``offset`` that ends at
        ``end_position`` of segment ``k`` (Kafka's ``addAbortedTransactions``): the upper bound
        is the offset index's first entry at or after that position, else the next segment's
        base, else the log end; the indexes are searched from segment ``k`` on."""
        segment = self.segments[k]
        upper = segment.offset_index.fetch_upper_bound_offset(end_position)
        if upper is None:
            upper = (self.segments[k + 1].base_offset if k + 1 < len(self.segments)
                     else self.log_end_offset)
        return self.collect_aborted_transactions(offset, upper, k)

    @storage_operation("Exception while reading the transaction index of")
    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int,
                                     first_segment: int | None = None) -> list[AbortedTxn]:
        """Aborted transactions with a marker at or after ``start_offset`` and a first offset
        below ``upper_bound_offset`` (Kafka's ``collectAbortedTransactions``)."""
        if first_segment is None:
            first_segment = max(0, bisect.bisect_right(self._bases, start_offset) - 1)
        out: list[AbortedTxn] = []
        for segment in self.segments[first_segment:]:
            result = segment.txn_index.collect(start_offset, upper_bound_offset)
            out.extend(result.aborted)
            if result.is_complete:
                break
        return out

    def last_stable_offset(self, high_watermark: int) -> int:
        """The offset below which every transaction is decided and replicated, bounded by the
        high watermark (Kafka's ``lastStableOffset``)."""
        return self.producer_state.last_stable_offset(high_watermark, self.log_start_offset)

    @storage_operation("Error while fetching offset by timestamp for")
    def offset_for_timestamp(self, timestamp: int) -> tuple[int, int] | None:
        """``(offset, timestamp)`` of the first record whose timestamp is >= ``timestamp``."""
        start = self.log_start_offset
        for segment in self.segments:
            if segment.max_timestamp < timestamp or segment.next_offset <= start:
                continue
            for position, header in segment.find_timestamp_candidates(timestamp, start):
                if header.is_log_append_time:
                    return max(header.base_offset, start), header.max_timestamp
                _, records = decode_batch(segment.read_at(position, header.size), verify_crc=False)
                for record in records:
                    if record.offset >= start and record.timestamp >= timestamp:
                        return record.offset, record.timestamp
        return None

    @storage_operation("Error while fetching the max timestamp of")
    def max_timestamp_and_offset(self) -> tuple[int, int] | None:
        """``(offset, timestamp)`` of the record with the largest timestamp (ListOffsets
        MAX_TIMESTAMP, KIP-734): the first such record if several share it. None when empty."""
        start = self.log_start_offset
        live = [s for s in self.segments if s.next_offset > start and s.max_timestamp >= 0]
        if not live:
            return None
        best = max(s.max_timestamp for s in live)
        for segment in live:
            if segment.max_timestamp != best:
                continue
            for position, header in segment.headers_from(0):
                if header.max_timestamp != best or header.next_offset <= start:
                    continue
                if header.is_log_append_time:
                    return max(header.base_offset, start), best
                _, records = decode_batch(segment.read_at(position, header.size), verify_crc=False)
                for record in records:
                    if record.offset >= start and record.timestamp == best:
                        return record.offset, best
        return None

    # -- leader epochs ---------------------------------------------------------------------

    @property
    def latest_epoch(self) -> int | None:
        """The epoch of the last entry of the leader epoch cache (None when it is empty)."""
        return self.leader_epoch_cache.latest_epoch

    @storage_operation("Error while writing the leader epochs of")
    def assign_epoch_start_offset(self, leader_epoch: int, start_offset: int) -> None:
        """A new leader records where its epoch starts (its log end offset at election)."""
        self.leader_epoch_cache.assign(leader_epoch, start_offset)

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int] | None:
        """``(epoch, end offset)`` for OffsetForLeaderEpoch (Kafka's ``endOffsetForEpoch``):
        the largest epoch not above ``leader_epoch`` and the offset where it ended (the log
        end offset for the latest epoch); None when undefined."""
        epoch, offset = self.leader_epoch_cache.end_offset_for(leader_epoch,
                                                               self.log_end_offset)
        return None if offset == UNDEFINED_EPOCH_OFFSET else (epoch, offset)


__all__ = [
    "LogLookups",
]
