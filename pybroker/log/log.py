"""The log of one partition: an ordered list of segments in ``<topic>-<partition>``.

Appends touch only the batch header (validate, assign offsets, stamp the leader epoch) and
write the bytes as they came, so the per-append cost does not depend on the record count.
Reads return a :class:`FileSlice` of whole batches from a single segment, as Kafka does.

Transactions: the producer state tracks each producer's open transaction from its batch
headers; a transaction marker (a control batch, the one record ever decoded on the append
path) ends it, and an aborted one is written to the ``.txnindex`` of the segment holding its
marker. The last stable offset is the producer state's for a given high watermark; a read for
a consumer of committed data collects the aborted transactions overlapping what it returns.

The log's parts follow Kafka's later split of ``UnifiedLog``: :class:`Log` (this module:
appends, reads, retention, truncation, flushes) stands on
:class:`~pybroker.log.log_loader.LogLoader` (loading and recovery at open),
:class:`~pybroker.log.log_lookups.LogLookups` (offsets by timestamp, aborted transactions, leader
epochs) and :class:`~pybroker.log.local_log.LocalLog` (the segments on disk, the log dir's
failures, the cleaner's swap). Everything imports :class:`Log` from here.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import os
import re
import shutil
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import HEADER_SIZE, BatchHeader, crc_is_valid
from protocol.records.control import EndTransactionMarker, read_end_txn_marker

from .checkpoints import fsync_paths
from .config import LogConfig
from .dir_failure import LogDirFailureChannel, reporting
from .file_slice import FileSlice
from .leader_epoch import LEADER_EPOCH_CHECKPOINT, LeaderEpochFileCache, Submit
from .local_log import _SEGMENT_SUFFIXES, storage_operation
from .log_loader import LogLoader
from .log_lookups import LogLookups
from .producer_state import AppendOrigin, ProducerStateManager, VerificationGuard
from .segment import LogSegment, file_name
from .txn_index import AbortedTxn
from .validator import LogValidator

logger = logging.getLogger(__name__)


_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)$")


def parse_partition_dir(name: str) -> tuple[str, int] | None:
    """``("my-topic", 3)`` for ``my-topic-3``; None for anything else (metadata, ``*-delete``)."""
    m = _PARTITION_DIR.match(name)
    if m is None:
        return None
    partition = int(m.group("partition"))
    return (m.group("topic"), partition) if partition <= 0x7FFFFFFF else None


def partition_dir_name(topic: str, partition: int) -> str:
    return f"{topic}-{partition}"


@dataclass(slots=True)
class AppendInfo:
    """What a produce response reports for one appended (or deduplicated) batch."""

    first_offset: int
    last_offset: int
    max_timestamp: int
    log_append_time: int  # -1 unless the topic uses LogAppendTime
    log_start_offset: int
    duplicate: bool
    record_count: int


@dataclass(frozen=True, slots=True)
class ReplicaAppendInfo:
    """What a follower's append of replicated batches did."""

    batches: int
    first_offset: int  # -1 when nothing was appended
    last_offset: int  # -1 when nothing was appended
    #: the partition leader epoch of the last batch appended (-1 when none)
    last_leader_epoch: int
    valid_bytes: int


@dataclass(frozen=True, slots=True)
class FetchDataInfo:
    """Batches read for a fetch: ``records`` is a FileSlice, or ``b""`` when there is nothing."""

    records: FileSlice | bytes
    first_offset: int  # the offset the read asked for
    #: for a read of committed data, the aborted transactions overlapping it; else None
    aborted_transactions: list[AbortedTxn] | None = None

    @property
    def size(self) -> int:
        return len(self.records)


_EMPTY = b""


class Log(LogLoader, LogLookups):
    """Segments, offsets and producer state of one partition. Use :meth:`open`."""

    def __init__(self, dir: Path, config: LogConfig, topic: str, partition: int) -> None:
        self.dir = dir
        self.config = config
        self.topic = topic
        self.partition = partition
        self.segments: list[LogSegment] = []
        self._bases: list[int] = []
        self.log_start_offset = 0
        self.log_end_offset = 0
        self.recovery_point = 0
        self.last_flush_ms = 0
        self.producer_state = ProducerStateManager(dir)
        self._closed = False
        self._pending_deletes: list[tuple[int, LogSegment]] = []  # (due ms, segment)
        #: segments whose interrupted swap start-up completed (their .txnindex is rebuilt)
        self._swapped_bases: set[int] = set()
        self.validator = LogValidator(config, f"{topic}-{partition}")
        #: epoch -> first offset written in it (``leader-epoch-checkpoint``)
        self.leader_epoch_cache = LeaderEpochFileCache(dir / LEADER_EPOCH_CHECKPOINT)
        #: the storage thread: a rolled segment's fsync and the epoch checkpoints go there
        self.io: Submit | None = None
        self._truncations = 0  # bumped by every truncation: an fsync behind it proves nothing
        #: where I/O errors in this log's dir are reported (KIP-112); None: only raised
        self.failures: LogDirFailureChannel | None = None
        #: the log dir failed: every operation fails with KAFKA_STORAGE_ERROR
        self.offline = False

    def __repr__(self) -> str:
        return (
            f"Log({self.topic}-{self.partition}, start={self.log_start_offset}, "
            f"end={self.log_end_offset}, segments={len(self.segments)})"
        )

    # -- opening and recovery --------------------------------------------------------------

    @classmethod
    def open(
        cls,
        dir: Path,
        config: LogConfig,
        *,
        recovery_point: int = 0,
        log_start_offset: int = 0,
        now_ms: int,
        clean_shutdown: bool = False,
        topic_partition: tuple[str, int] | None = None,
        io: Submit | None = None,
        failures: LogDirFailureChannel | None = None,
    ) -> Log:
        """Load (and if needed recover) the log in ``dir``, creating it when absent.

        After an unclean shutdown every segment from the one holding ``recovery_point`` is
        re-validated batch by batch and cut at the first bad byte. ``topic_partition`` names
        the partition of a directory whose name does not (a future log's
        ``<topic>-<partition>.<id>-future``). ``io``: where the leader epoch checkpoint is
        written (the storage thread; at once without it). ``failures``: where an I/O error in
        the log's dir is reported, also one met on the storage thread (the error is raised
        either way: ``OSError`` while opening, KAFKA_STORAGE_ERROR afterwards).
        """
        dir = Path(dir)
        parsed = topic_partition or parse_partition_dir(dir.name)
        if parsed is None:
            raise ValueError(f"{dir.name!r} is not a <topic>-<partition> directory")
        log = cls(dir, config, *parsed)
        log.failures = failures
        if io is not None and failures is not None:
            io = reporting(io, failures, dir.parent,
                           f"Error while writing to the storage of {log._name}")
        log.io = log.leader_epoch_cache.io = io
        dir.mkdir(parents=True, exist_ok=True)
        log.last_flush_ms = now_ms
        log._load(recovery_point, log_start_offset, now_ms, clean_shutdown)
        return log

    def update_config(self, config: LogConfig) -> None:
        self.config = config
        self.validator = LogValidator(config, self._name)
        for segment in self.segments:
            segment.update_config(config)

    # -- append ----------------------------------------------------------------------------

    def append_as_leader(
        self, batch: bytearray | memoryview, *, leader_epoch: int, now_ms: int,
        origin: AppendOrigin = AppendOrigin.CLIENT,
        verification_guard: VerificationGuard | None = None,
        header: BatchHeader | None = None,
    ) -> AppendInfo:
        """Validate one produced v2 batch, assign its offsets in place and append it
        (``header``: the batch's, when the caller read it already; read here otherwise).

        A batch the idempotent producer already wrote (one of its last five) is not appended
        again: the answer carries the original offsets. Control batches (transaction markers)
        are accepted from the coordinator only (``origin``). A transactional batch opening a
        transaction here needs ``verification_guard`` when the producer state verifies
        transactions (:meth:`maybe_start_transaction_verification`). An I/O error fails the
        log's dir (as :func:`storage_operation`, written out here: the produce path)."""
        if self.offline:
            raise self._offline_error()
        validated = self.validator.validate(batch, now_ms, origin, header)
        header = validated.header
        batch = validated.batch
        marker = None
        duplicate = None
        if header.is_control:
            marker = self._leader_marker(batch, header, origin)
        elif header.producer_id >= 0:
            duplicate = self.producer_state.check(header, origin, verification_guard)
        if duplicate is not None:
            return AppendInfo(
                first_offset=duplicate.first_offset,
                last_offset=duplicate.last_offset,
                max_timestamp=duplicate.timestamp,
                log_append_time=-1,
                log_start_offset=self.log_start_offset,
                duplicate=True,
                record_count=header.records_count,
            )
        first = self.log_end_offset
        last = first + header.last_offset_delta
        max_timestamp, append_time = self.validator.assign(batch, header, first, leader_epoch,
                                                           now_ms)
        try:
            if leader_epoch >= 0:
                self.leader_epoch_cache.assign(leader_epoch, first)
            self._append_batch(batch, header, first, last, max_timestamp, now_ms, marker)
        except OSError as e:
            raise self.storage_failure("Error while appending records to", e) from e
        return AppendInfo(
            first_offset=first,
            last_offset=last,
            max_timestamp=max_timestamp,
            log_append_time=append_time,
            log_start_offset=self.log_start_offset,
            duplicate=False,
            record_count=header.records_count,
        )

    def maybe_start_transaction_verification(self, producer_id: int, sequence: int,
                                             epoch: int, now_ms: int,
                                             ) -> VerificationGuard | None:
        """The guard the producer's next transactional append here must present, once its
        transaction coordinator has said the partition is in the transaction; None when the
        producer's transaction is already open here (Kafka's UnifiedLog method)."""
        return self.producer_state.maybe_start_transaction_verification(producer_id, sequence,
                                                                        epoch, now_ms)

    def _leader_marker(self, batch: bytearray | memoryview, header: BatchHeader,
                       origin: AppendOrigin) -> EndTransactionMarker | None:
        """The marker of a coordinator's control batch, checked against the producer state."""
        _, marker = read_end_txn_marker(batch)
        if marker is None:
            return None
        self.producer_state.check_marker(header, marker, origin)
        return marker

    def append_as_follower(self, records: bytes | bytearray | memoryview, now_ms: int, *,
                           allow_offset_gaps: bool = False) -> ReplicaAppendInfo:
        """Append batches as the leader wrote them (offsets, epochs and timestamps assigned,
        validated there): the first must start at the log end offset and each at the end of
        the one before. As in Kafka, every batch's CRC is checked before anything is written
        (CORRUPT_MESSAGE otherwise), and each batch's epoch goes into the leader epoch cache.
        Idempotent producer state is rebuilt from the batch headers, so deduplication survives
        a change of leader. A partial batch at the end is left out (a fetch response may cut
        its last batch short). ``allow_offset_gaps``: a batch may also start later than that
        (never earlier), as the batches of a compacted log do where the cleaner removed whole
        batches; the copy of a log into another log dir needs it. An I/O error fails the log's
        dir (as :func:`storage_operation`; the replication path)."""
        if self.offline:
            raise self._offline_error()
        buf = memoryview(records)
        batches: list[tuple[int, BatchHeader]] = []
        pos, expected = 0, self.log_end_offset
        while len(buf) - pos >= HEADER_SIZE:
            header = BatchHeader.parse(buf, pos)
            end = pos + header.size
            if end > len(buf):
                break
            if header.base_offset != expected and not (
                    allow_offset_gaps and header.base_offset > expected):
                raise KafkaError(
                    ErrorCode.UNKNOWN_SERVER_ERROR,
                    f"{self._name}: a replicated batch starts at offset {header.base_offset}, "
                    f"not at {expected} (the log end offset is {self.log_end_offset})",
                )
            if not crc_is_valid(buf, pos, header):
                raise KafkaError(
                    ErrorCode.CORRUPT_MESSAGE,
                    f"{self._name}: the replicated batch at offset {header.base_offset} is "
                    f"corrupt (stored crc = {header.crc})",
                )
            batches.append((pos, header))
            pos, expected = end, header.next_offset
        if not batches:
            return ReplicaAppendInfo(0, -1, -1, -1, 0)
        try:
            for start, header in batches:
                if header.partition_leader_epoch >= 0:
                    self.leader_epoch_cache.assign(header.partition_leader_epoch,
                                                   header.base_offset)
                data = buf[start : start + header.size]
                marker = None
                if header.is_control and header.has_producer_id:
                    try:
                        marker = read_end_txn_marker(data)[1]
                    except KafkaError as e:
                        logger.warning("%s: unreadable replicated control batch at offset %d: "
                                       "%s", self._name, header.base_offset, e)
                    if marker is not None:
                        self.producer_state.check_marker(header, marker,
                                                         AppendOrigin.REPLICATION)
                self._append_batch(data, header, header.base_offset, header.last_offset,
                                   header.max_timestamp, now_ms, marker)
        except OSError as e:
            raise self.storage_failure("Error while appending replicated records to", e) from e
        first, last = batches[0][1], batches[-1][1]
        return ReplicaAppendInfo(len(batches), first.base_offset, last.last_offset,
                                 last.partition_leader_epoch, pos)

    def _append_batch(self, batch: bytearray | memoryview, header: BatchHeader, first: int,
                      last: int, max_timestamp: int, now_ms: int,
                      marker: EndTransactionMarker | None = None) -> None:
        segment = self.active_segment
        if segment.should_roll(len(batch), last, now_ms):
            segment = self._roll(now_ms)
        segment.append(batch, first, last, max_timestamp, now_ms)
        self.log_end_offset = last + 1
        if header.producer_id >= 0:
            state = self.producer_state
            if marker is not None:
                completed = state.update_marker(header, marker, first, max_timestamp)
                if completed is not None:
                    if completed.is_aborted:
                        segment.txn_index.append(AbortedTxn(
                            completed.producer_id, completed.first_offset,
                            completed.last_offset, state.last_stable_offset_of(completed)))
                    state.complete_txn(completed)
            elif not header.is_control:
                state.update(header, first, last, max_timestamp)
        if self.log_end_offset - self.recovery_point >= self.config.flush_messages:
            self.flush(now_ms=now_ms)

    @storage_operation("Error while rolling the log segment of")
    def roll(self, now_ms: int) -> LogSegment:
        """Start a new segment at the log end offset (no-op when the active one is empty)."""
        if self.active_segment.size == 0:
            return self.active_segment
        return self._roll(now_ms)

    def _roll(self, now_ms: int) -> LogSegment:
        rolled = self.active_segment
        loop = self._loop_for_io()
        # with a storage thread the rolled segment is fsynced there, as Kafka's roll schedules
        # its flush: a whole segment's writeback must not hold up the event loop
        rolled.on_become_inactive(flush=loop is None)
        base = self.log_end_offset
        for suffix in _SEGMENT_SUFFIXES:
            # Files already at the new base offset are leftovers and cannot hold live data.
            (self.dir / file_name(base, suffix)).unlink(missing_ok=True)
        segment = LogSegment(self.dir, base, self.config, now_ms)
        self._add_segment(segment)
        self.producer_state.take_snapshot(self.log_end_offset,
                                          io=None if loop is None else self.io)
        if loop is None:
            self.recovery_point = self.log_end_offset
        else:
            self._flush_behind(loop, rolled, base)
        self.last_flush_ms = now_ms
        return segment

    def _loop_for_io(self) -> asyncio.AbstractEventLoop | None:
        """The running event loop when there is a storage thread to hand work to."""
        if self.io is None:
            return None
        try:
            return asyncio.get_running_loop()
        except RuntimeError:  # opened and rolled outside a loop (tools, tests): do it here
            return None

    def _flush_behind(self, loop: asyncio.AbstractEventLoop, rolled: LogSegment,
                      base: int) -> None:
        """fsync ``rolled`` (and the directory, which gained the new segment's files) on the
        storage thread; once that is done, the recovery point moves to ``base`` on the loop."""
        assert self.io is not None
        truncations = self._truncations
        done = self.io(fsync_paths, [*rolled.files(), self.dir])

        def landed(fsynced: Future[None]) -> None:  # on the storage thread
            try:
                loop.call_soon_threadsafe(self._flushed_behind, fsynced, base, truncations)
            except RuntimeError:
                pass  # the loop is closed: shutdown flushed every log itself

        if isinstance(done, Future):
            done.add_done_callback(landed)

    def _flushed_behind(self, fsynced: Future[None], base: int, truncations: int) -> None:
        error = fsynced.exception()
        if error is not None:
            logger.error("%s: fsync of the segment rolled at %d failed: %s", self._name, base,
                         error)
            return
        # a truncation since may have replaced what was fsynced with data that was not
        if not self._closed and truncations == self._truncations \
                and self.recovery_point < base <= self.log_end_offset:
            self.recovery_point = base

    # -- reads -----------------------------------------------------------------------------

    def _check_offset(self, offset: int) -> None:
        if offset < self.log_start_offset or offset > self.log_end_offset:
            raise KafkaError(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                f"Received request for offset {offset} for partition {self._name}, but we only "
                f"have log segments in the range {self.log_start_offset} to {self.log_end_offset}.",
            )

    def read(
        self,
        offset: int,
        max_bytes: int,
        *,
        max_offset: int | None = None,
        min_one_batch: bool = True,
        with_aborted: bool = False,
    ) -> FetchDataInfo:
        """Whole batches from the one containing ``offset``, up to ``max_bytes``.

        ``max_offset`` (exclusive: the high watermark, or the last stable offset for committed
        data) stops the read before any batch that starts at or after it. With
        ``min_one_batch`` the first batch is returned even when it alone exceeds
        ``max_bytes``. With ``with_aborted`` (a consumer of committed data) the answer lists
        the aborted transactions overlapping what was read. An I/O error fails the log's dir
        (as :func:`storage_operation`; the fetch path).
        """
        if self.offline:
            raise self._offline_error()
        self._check_offset(offset)
        none: list[AbortedTxn] | None = [] if with_aborted else None
        if offset == self.log_end_offset or (max_offset is not None and offset >= max_offset):
            return FetchDataInfo(_EMPTY, offset, none)
        i = max(0, bisect.bisect_right(self._bases, offset) - 1)
        try:
            for k in range(i, len(self.segments)):
                segment = self.segments[k]
                found = segment.translate_offset(offset)
                if found is None:
                    continue
                position, first = found
                if max_offset is not None and first.base_offset >= max_offset:
                    break
                end = segment.end_of_read(position, max_bytes, max_offset)
                if end == position:
                    if not min_one_batch:
                        break
                    end = position + first.size
                aborted = (self._collect_aborted_txns(k, offset, end) if with_aborted
                           else None)
                return FetchDataInfo(FileSlice(segment.file, position, end - position),
                                     offset, aborted)
        except OSError as e:
            raise self.storage_failure("Exception while reading from", e) from e
        return FetchDataInfo(_EMPTY, offset, none)

    # -- log start offset ----------------------------------------------------------------------

    @storage_operation("Exception while increasing the log start offset of")
    def delete_records_before(self, offset: int, now_ms: int) -> int:
        """Move the log start offset up to ``offset`` (DeleteRecords) and drop the segments
        wholly below it; returns the new log start offset. The caller bounds ``offset`` by the
        high watermark, as Kafka does."""
        if offset <= self.log_start_offset:
            return self.log_start_offset
        if offset > self.log_end_offset:
            raise KafkaError(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                f"Cannot increment the log start offset to {offset} of partition {self._name} "
                f"since it is larger than the log end offset {self.log_end_offset}",
            )
        self.log_start_offset = offset
        doomed = 0
        for segment in self.segments[:-1]:
            if segment.next_offset > offset:
                break
            doomed += 1
        for segment in self.segments[:doomed]:
            logger.info("%s: deleting segment %s below the new log start offset %d",
                        self._name, segment.log_path.name, offset)
            segment.mark_deleted()
            self._pending_deletes.append((now_ms + self.config.file_delete_delay_ms, segment))
        del self.segments[:doomed]
        del self._bases[:doomed]
        self.leader_epoch_cache.truncate_from_start(self.log_start_offset)
        return self.log_start_offset

    # -- durability ------------------------------------------------------------------------

    @property
    def unflushed_messages(self) -> int:
        return self.log_end_offset - self.recovery_point

    @storage_operation("Error while flushing log for")
    def flush(self, up_to: int | None = None, *, now_ms: int | None = None) -> None:
        """fsync the segments holding offsets below ``up_to`` (default: everything)."""
        target = self.log_end_offset if up_to is None else min(up_to, self.log_end_offset)
        if target > self.recovery_point:
            i = max(0, bisect.bisect_right(self._bases, self.recovery_point) - 1)
            for segment in self.segments[i:]:
                if segment.base_offset >= target:
                    break
                segment.flush()
            self.recovery_point = target
        if now_ms is not None:
            self.last_flush_ms = now_ms

    def remove_expired_producers(self, now_ms: int) -> int:
        return self.producer_state.remove_expired(now_ms)

    # -- retention -------------------------------------------------------------------------

    @storage_operation("Error while deleting segments for")
    def enforce_retention(self, now_ms: int) -> int:
        """Delete old segments per ``retention.ms`` / ``retention.bytes``; returns how many.

        As in Kafka, only whole segments go and the active segment stays; the log start
        offset moves to the first remaining segment. Files are renamed ``*.deleted`` and
        removed ``file.delete.delay.ms`` later so in-flight reads of them can finish.
        """
        self._delete_due_segments(now_ms)
        cfg = self.config
        if "delete" not in cfg.cleanup_policy.split(","):
            return 0
        doomed = 0
        excess = self.size_in_bytes - cfg.retention_bytes if cfg.retention_bytes >= 0 else 0
        for segment in self.segments[:-1]:
            expired = cfg.retention_ms >= 0 and now_ms - segment.largest_timestamp() > cfg.retention_ms
            too_big = excess > 0 and excess >= segment.size
            if not (expired or too_big):
                break
            excess -= segment.size
            doomed += 1
        if not doomed:
            return 0
        self.log_start_offset = max(self.log_start_offset, self.segments[doomed].base_offset)
        for segment in self.segments[:doomed]:
            logger.info(
                "%s: deleting segment %s (%d bytes) past retention", self._name, segment.log_path.name, segment.size
            )
            segment.mark_deleted()
            self._pending_deletes.append((now_ms + cfg.file_delete_delay_ms, segment))
        del self.segments[:doomed]
        del self._bases[:doomed]
        self.leader_epoch_cache.truncate_from_start(self.log_start_offset)
        self._delete_due_segments(now_ms)
        return doomed

    # -- truncation and teardown -----------------------------------------------------------

    @storage_operation("Error while truncating the log of")
    def truncate_to(self, offset: int) -> None:
        """Drop everything from the batch containing ``offset`` on (a follower's divergent tail).

        The log end becomes the start of that batch, i.e. ``offset`` when it is a batch boundary.
        The leader epoch cache loses the epochs starting at or after the new log end, even when
        nothing else is cut: an epoch with no data there (a leader elected that never appended)
        must not be taken for one the log has.
        """
        if offset >= self.log_end_offset:
            self.leader_epoch_cache.truncate_from_end(self.log_end_offset)
            return
        if offset < self.log_start_offset or offset <= self.segments[0].base_offset:
            self.truncate_fully_and_start_at(offset, self.segments[-1].created_ms)
            return
        self._truncations += 1
        while len(self.segments) > 1 and self.segments[-1].base_offset >= offset:
            self.segments.pop().delete()
            self._bases.pop()
        segment = self.active_segment
        segment.truncate_to(offset)
        self.log_end_offset = segment.next_offset
        self.recovery_point = min(self.recovery_point, self.log_end_offset)
        self.leader_epoch_cache.truncate_from_end(self.log_end_offset)
        self._rebuild_producer_state(take_snapshot=False)

    @storage_operation("Error while truncating the entire log of")
    def truncate_fully_and_start_at(self, offset: int, now_ms: int) -> None:
        """Drop every segment and start empty at ``offset``, which becomes the log start too (a
        follower whose log ends below its leader's log start; truncation below the start)."""
        self._truncations += 1
        self._reset_at(offset, now_ms)
        self.recovery_point = offset
        self.leader_epoch_cache.clear_and_flush()

    def close(self) -> None:
        """Snapshot producer state at the log end and close the files (no fsync of data)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.producer_state.take_snapshot(self.log_end_offset)
        finally:
            for segment in self.segments:
                segment.close()
            for _, segment in self._pending_deletes:
                segment.delete()
            self._pending_deletes.clear()

    def delete(self, remove_dir: Callable[[Path], None] | None = None) -> None:
        """Close the log and remove its directory (through ``remove_dir`` when given)."""
        if not self._closed:
            self._closed = True
            for segment in self.segments:
                segment.close(final_time_entry=False)
            for _, segment in self._pending_deletes:
                segment.delete()
            self._pending_deletes.clear()
        if remove_dir is not None:
            remove_dir(self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def files(self) -> list[str]:
        """File names in the partition directory (for diagnostics and tests)."""
        return sorted(os.listdir(self.dir))


__all__ = [
    "AppendInfo",
    "FetchDataInfo",
    "ReplicaAppendInfo",
    "Log",
    "parse_partition_dir",
    "partition_dir_name",
]
