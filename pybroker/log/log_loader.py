"""Opening a partition's log (Kafka's ``LogLoader``): the directory scanned and cleared of the
leftovers of interrupted operations, interrupted swaps of cleaned segments completed, the
segments from the recovery point re-validated after an unclean shutdown and cut at the first bad
byte, transaction indexes rebuilt from their markers, the producer state rebuilt from its latest
snapshot and the batch headers after it, and the leader epoch cache read or rebuilt."""

from __future__ import annotations

import bisect
import logging
import os
from pathlib import Path

from protocol.errors import KafkaError
from protocol.records.batch import HEADER_SIZE, BatchHeader
from protocol.records.control import EndTransactionMarker, read_end_txn_marker

from .checkpoints import CheckpointError, fsync_dir
from .index import IndexCorrupt
from .leader_epoch import (
    LEADER_EPOCH_CHECKPOINT,
    EpochEntry,
    LeaderEpochFileCache,
    read_leader_epoch_checkpoint,
)
from .local_log import _INDEX_SUFFIXES, _SEGMENT_SUFFIXES, _TEMP_SUFFIXES, LocalLog
from .producer_state import CompletedTxn, ProducerStateManager
from .segment import LOG_SUFFIX, LogSegment, file_name
from .txn_index import AbortedTxn

# the log logs under one name, whichever of its parts speaks
logger = logging.getLogger("pybroker.log.log")


class LogLoader(LocalLog):
    """Loading and recovery, the part of :class:`~pybroker.log.log.Log` run at open (and the
    producer-state rebuild a truncation reuses)."""

    def _load(self, recovery_point: int, log_start_offset: int, now_ms: int, clean: bool) -> None:
        bases = self._scan_dir()
        self.segments = [LogSegment(self.dir, base, self.config, now_ms) for base in bases]
        self._bases = list(bases)
        if not self.segments:
            self._add_segment(LogSegment(self.dir, log_start_offset, self.config, now_ms))

        first_unflushed = len(self.segments)
        if not clean:
            first_unflushed = max(0, bisect.bisect_right(self._bases, recovery_point) - 1)
        recovered_from = None if clean else self.segments[first_unflushed].base_offset

        last = len(self.segments) - 1
        for i, segment in enumerate(self.segments[:first_unflushed]):
            problem = segment.load(verify_indexes=i == last)
            if problem is None:
                problem = self._check_txn_index(segment)
                if problem is None:
                    continue
            logger.warning("%s: %s; rebuilding from the log", self._name, problem)
            self._recover_segment(segment)
            self._rebuild_txn_index(segment)
        self._recover_from(first_unflushed)
        for segment in self.segments:
            if segment.base_offset in self._swapped_bases:
                # a cleaned segment swapped in by start-up: its .txnindex did not survive
                self._rebuild_txn_index(segment)
        self._swapped_bases.clear()

        self.log_end_offset = self.segments[-1].next_offset
        self.log_start_offset = max(log_start_offset, self.segments[0].base_offset)
        if self.log_start_offset > self.log_end_offset:
            logger.warning(
                "%s: log start offset %d is past the log end %d; starting empty at %d",
                self._name, self.log_start_offset, self.log_end_offset, self.log_start_offset,
            )
            self._reset_at(self.log_start_offset, now_ms)
        self.recovery_point = self.log_end_offset
        self._rebuild_producer_state(take_snapshot=True)
        self._load_leader_epoch_cache(recovered_from)

    def _load_leader_epoch_cache(self, recovered_from: int | None = None) -> None:
        """Read ``leader-epoch-checkpoint``, or rebuild it from the batch headers when it is
        missing or unreadable; then cut it to the log's end and start, as Kafka's loading does
        (an epoch whose data a crash or a truncation took is forgotten). After a crash
        (``recovered_from``: the first offset recovery re-read) each epoch the re-read batches
        start above the cache's latest is added, as Kafka's segment recovery adds it: the
        checkpoint is written behind the appends (see :mod:`pybroker.log.leader_epoch`)."""
        path = self.dir / LEADER_EPOCH_CHECKPOINT
        try:
            entries = read_leader_epoch_checkpoint(path)
        except CheckpointError as e:
            logger.warning("%s: unreadable leader epoch checkpoint (%s); rebuilding it from the "
                           "log", self._name, e)
            entries = None
        rebuilt = entries is None
        if entries is None:
            entries = self._epochs_from_batches()
        io = self.leader_epoch_cache.io
        self.leader_epoch_cache = cache = LeaderEpochFileCache(path, entries, io=io)
        if rebuilt and (len(cache) or path.exists()):
            logger.info("%s: rebuilt the leader epoch cache from the log: %s", self._name, cache)
            cache.flush()
        cache.truncate_from_end(self.log_end_offset)
        if recovered_from is not None and not rebuilt:
            for segment in self._segments_from(recovered_from):
                for _, header in segment.headers_from(0):
                    epoch, latest = header.partition_leader_epoch, cache.latest_epoch
                    if epoch >= 0 and (latest is None or epoch > latest):
                        logger.info("%s: epoch %d at offset %d was not in the checkpoint; "
                                    "added from the recovered log", self._name, epoch,
                                    header.base_offset)
                        cache.assign(epoch, header.base_offset)
        cache.truncate_from_start(self.log_start_offset)

    def _epochs_from_batches(self) -> list[EpochEntry]:
        """Each epoch's first batch, from the headers of every segment (epochs only go up, as
        in Kafka's segment recovery: a lower epoch later in the log changes nothing)."""
        found: list[EpochEntry] = []
        for segment in self.segments:
            for _, header in segment.headers_from(0):
                epoch = header.partition_leader_epoch
                if epoch >= 0 and (not found or epoch > found[-1].epoch):
                    found.append(EpochEntry(epoch, header.base_offset))
        return found

    def _scan_dir(self) -> list[int]:
        """Segment base offsets in the directory; removes leftovers of interrupted operations."""
        self._complete_interrupted_swaps()
        logs: set[int] = set()
        indexes: list[tuple[int, Path]] = []
        for path in self.dir.iterdir():
            name = path.name
            if name.endswith(_TEMP_SUFFIXES):
                logger.info("%s: removing leftover file %s", self._name, name)
                path.unlink(missing_ok=True)
                continue
            stem, dot, suffix = name.partition(".")
            if not (dot and stem.isdigit() and len(stem) == 20):
                continue
            if "." + suffix == LOG_SUFFIX:
                logs.add(int(stem))
            elif "." + suffix in _INDEX_SUFFIXES:
                indexes.append((int(stem), path))
        for base, path in indexes:
            if base not in logs:
                logger.info("%s: removing index %s without a log file", self._name, path.name)
                path.unlink(missing_ok=True)
        return sorted(logs)

    def _recover_from(self, first: int) -> None:
        """Re-validate segments ``first..``; after a cut, later segments cannot be trusted.
        Their transaction indexes are rebuilt from their markers."""
        if first >= len(self.segments):
            return
        for i in range(first, len(self.segments)):
            segment = self.segments[i]
            if self._recover_segment(segment):
                self._drop_segments_after(i)
                break
        self._rebuild_txn_indexes_from(self.segments[first].base_offset)

    def _check_txn_index(self, segment: LogSegment) -> str | None:
        try:
            segment.txn_index.sanity_check()
        except IndexCorrupt as e:
            return f"transaction index {segment.txn_index.path.name}: {e}"
        return None

    def _rebuild_txn_index(self, segment: LogSegment) -> None:
        self._rebuild_txn_indexes_from(segment.base_offset, only=segment)

    def _rebuild_txn_indexes_from(self, offset: int, only: LogSegment | None = None) -> None:
        """Rewrite the transaction indexes of the segments from the one at ``offset`` (or of
        ``only``) from their markers, replaying producer state from the latest snapshot at or
        below that segment's base (Kafka's segment recovery)."""
        i = bisect.bisect_left(self._bases, offset)
        targets = [only] if only is not None else self.segments[i:]
        if not targets:
            return
        for segment in targets:
            segment.txn_index.reset()
        state = ProducerStateManager(self.dir)
        start = state.load_latest_snapshot(targets[0].base_offset, delete_later=False)
        start = start if start is not None else self.segments[0].base_offset
        end = targets[-1].next_offset
        indexed = {id(s) for s in targets}
        for segment in self._segments_from(start):
            if segment.base_offset >= end:
                break
            for position, header in self._headers_of(segment, start):
                completed = self._replay_batch(state, segment, position, header)
                if completed is not None and completed.is_aborted and id(segment) in indexed:
                    segment.txn_index.append(AbortedTxn(
                        completed.producer_id, completed.first_offset, completed.last_offset,
                        state.last_stable_offset_of(completed)))
                if completed is not None:
                    state.complete_txn(completed)
        for segment in targets:
            if len(segment.txn_index):
                logger.info("%s: rebuilt %s: %d aborted transaction(s)", self._name,
                            segment.txn_index.path.name, len(segment.txn_index))
            segment.txn_index.flush()

    @staticmethod
    def _headers_of(segment: LogSegment, start: int) -> list[tuple[int, BatchHeader]]:
        """``(position, header)`` of the segment's batches starting at or after ``start``."""
        found = segment.translate_offset(start)
        if found is None:
            return []
        return [(pos, h) for pos, h in segment.headers_from(found[0]) if h.base_offset >= start]

    def _replay_batch(self, state: ProducerStateManager, segment: LogSegment, position: int,
                      header: BatchHeader) -> CompletedTxn | None:
        """One batch of the log into ``state``: data batches by their header, markers read
        from the segment. Returns the transaction a marker completed (not yet moved out of
        the open ones)."""
        if not header.has_producer_id:
            return None
        if not header.is_control:
            state.replay(header)
            return None
        marker = self._marker_at(segment, position, header)
        if marker is None:
            return None
        return state.update_marker(header, marker, header.base_offset, header.max_timestamp)

    def _marker_at(self, segment: LogSegment, position: int, header: BatchHeader,
                   ) -> EndTransactionMarker | None:
        try:
            return read_end_txn_marker(segment.read_at(position, header.size))[1]
        except KafkaError as e:
            logger.warning("%s: unreadable control batch at offset %d: %s", self._name,
                           header.base_offset, e)
            return None

    def _rebuild_producer_state(self, take_snapshot: bool) -> None:
        """Latest snapshot at or below the log end, then the batch headers (and markers) after
        it; transactions completed there count as replicated once the high watermark passes
        them."""
        state = self.producer_state
        snap = state.load_latest_snapshot(self.log_end_offset)
        start = snap if snap is not None else self.segments[0].base_offset
        replayed = 0
        for segment in self._segments_from(start):
            for position, header in self._headers_of(segment, start):
                completed = self._replay_batch(state, segment, position, header)
                if completed is not None:
                    state.complete_txn(completed)
                replayed += 1
        if replayed and take_snapshot:
            state.take_snapshot(self.log_end_offset)

    def _complete_interrupted_swaps(self) -> None:
        """Finish swaps whose ``.log.swap`` was committed before a crash.

        As in Kafka, the swap replaces every segment whose base offset lies in
        ``[swap base, swap next offset)``; its indexes are rebuilt from the log. Segments
        past that range are kept: they only hold records the cleaner had dropped.
        """
        tail = LOG_SUFFIX + self.SWAP_SUFFIX
        swaps = sorted(self.dir.glob("*" + tail))
        for swap in swaps:
            stem = swap.name[: -len(tail)]
            if not (stem.isdigit() and len(stem) == 20):
                continue
            base = int(stem)
            end = max(self._next_offset_of(swap, base), base + 1)
            for path in self.dir.iterdir():
                name, dot, suffix = path.name.partition(".")
                if (dot and name.isdigit() and len(name) == 20 and base <= int(name) < end
                        and "." + suffix in _SEGMENT_SUFFIXES):
                    path.unlink()
            os.replace(swap, self.dir / file_name(base, LOG_SUFFIX))
            self._swapped_bases.add(base)
            logger.info("%s: completed the interrupted swap of cleaned segment %s", self._name, stem)
            segment = LogSegment(self.dir, base, self.config, 0)
            try:
                segment.recover()
                segment.flush()
            finally:
                segment.close()
        if swaps:
            fsync_dir(self.dir)

    @staticmethod
    def _next_offset_of(path: Path, base: int) -> int:
        """The offset after the last whole batch of the log file ``path``."""
        next_offset = base
        with open(path, "rb") as f:
            fd = f.fileno()
            size = os.fstat(fd).st_size
            pos = 0
            while size - pos >= HEADER_SIZE:
                try:
                    header = BatchHeader.parse(os.pread(fd, HEADER_SIZE, pos))
                except KafkaError:
                    break
                if header.size < HEADER_SIZE or pos + header.size > size:
                    break
                next_offset = header.next_offset
                pos += header.size
        return next_offset


__all__ = [
    "LogLoader",
]
