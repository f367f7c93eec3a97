"""One cleaning pass over one log (Kafka's ``Cleaner``): the offset map built over the dirty
section, segments grouped by size, every batch filtered into ``.cleaned`` segments with their
indexes (tombstones, transaction markers and producers' last batches as the module docstring of
:mod:`pybroker.log.cleaner` tells), and each group swapped in. Each step is bounded and checks
that the log did not change under it."""

from __future__ import annotations

import logging
import os
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import (
    COMPRESSION_MASK,
    DELETE_HORIZON_MASK,
    HEADER_SIZE,
    LOG_OVERHEAD,
    BatchHeader,
    peek_offset_and_length,
    write_crc,
)
from protocol.records.compression import CompressionType, compress
from protocol.records.control import ControlRecordType, parse_control_key
from protocol.records.record import Record, _encode_record, decode_batch, iter_batches

from .cleaner_manager import LogCleanerManager, LogToClean, _segments_from
from .config import INT_MAX, LogConfig
from .index import OffsetIndex, TimeIndex
from .log import Log
from .offset_map import OffsetMap
from .segment import INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, LogSegment, file_name
from .txn_index import TXN_INDEX_SUFFIX, AbortedTxn, TransactionIndex

# the cleaner logs under one name, whichever of its parts speaks
logger = logging.getLogger("pybroker.log.cleaner")


class _CleaningAborted(Exception):
    """The log changed under the cleaner; the pass is abandoned without touching it."""


@dataclass(slots=True)
class CleanerStats:
    """The outcome of one pass over one log."""

    topic: str
    partition: int
    first_dirty_offset: int
    end_offset: int = -1  # the new first dirty offset
    segments_before: int = 0
    segments_after: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    records_read: int = 0
    records_removed: int = 0
    aborted: bool = False
    #: the log's cleanable share when it was chosen (Kafka's ``dirtiestLogCleanableRatio``)
    cleanable_ratio: float = 0.0
    #: how full the offset map got (Kafka's ``bufferUtilization``)
    buffer_utilization: float = 0.0

    @property
    def progressed(self) -> bool:
        return not self.aborted and self.end_offset > self.first_dirty_offset


def group_segments_by_size(
    segments: Sequence[LogSegment], max_size: int, max_index_bytes: int
) -> list[list[LogSegment]]:
    """Consecutive segments merged while the group stays within ``segment.bytes``, both index
    limits and 32-bit offsets relative to its first segment (Kafka's ``groupSegmentsBySize``)."""
    groups: list[list[LogSegment]] = []
    i = 0
    while i < len(segments):
        group = [segments[i]]
        size = segments[i].size
        index_bytes = len(segments[i].offset_index) * OffsetIndex.entry_size
        time_bytes = len(segments[i].time_index) * TimeIndex.entry_size
        i += 1
        while i < len(segments):
            s = segments[i]
            s_index = len(s.offset_index) * OffsetIndex.entry_size
            s_time = len(s.time_index) * TimeIndex.entry_size
            if (
                size + s.size > max_size
                or index_bytes + s_index > max_index_bytes
                or time_bytes + s_time > max_index_bytes
                or (s.size and s.next_offset - 1 - group[0].base_offset > INT_MAX)
            ):
                break
            group.append(s)
            size, index_bytes, time_bytes = size + s.size, index_bytes + s_index, time_bytes + s_time
            i += 1
        groups.append(group)
    return groups


def encode_batch(header: BatchHeader, records: Sequence[Record], delete_horizon: int | None) -> bytearray:
    """``records`` as a batch that keeps ``header``'s offset range, producer fields, leader
    epoch, codec and timestamp type (the last offset delta is kept so the producer's last
    sequence stays intact, as Kafka does).

    With a ``delete_horizon`` the base timestamp carries it (KIP-534) and the record
    timestamps are encoded relative to it. An empty batch is a bare header.
    """
    # build_batch always bases timestamps on the first record, hence the record encoder here.
    if delete_horizon is not None:
        base_timestamp = delete_horizon
    elif records:
        base_timestamp = records[0].timestamp
    else:
        base_timestamp = header.max_timestamp
    body = bytearray()
    for r in records:
        _encode_record(
            body, r.offset - header.base_offset, r.timestamp - base_timestamp, r.key, r.value, r.headers, r.attributes
        )
    if header.is_log_append_time or not records:
        max_timestamp = header.max_timestamp
    else:
        max_timestamp = max(r.timestamp for r in records)
    codec = header.compression if records else CompressionType.NONE
    payload = compress(codec, body) if codec != CompressionType.NONE else body
    attributes = header.attributes & ~(COMPRESSION_MASK | DELETE_HORIZON_MASK) | codec
    if delete_horizon is not None:
        attributes |= DELETE_HORIZON_MASK
    out = bytearray(HEADER_SIZE)
    out += payload
    header._replace(
        batch_length=len(out) - LOG_OVERHEAD,
        crc=0,
        attributes=attributes,
        base_timestamp=base_timestamp,
        max_timestamp=max_timestamp,
        records_count=len(records),
    ).pack_into(out)
    write_crc(out)
    return out


def delete_horizon_of(header: BatchHeader) -> int | None:
    return header.base_timestamp if header.attributes & DELETE_HORIZON_MASK else None


class CleanedTransactionMetadata:
    """Which transactions the batches a pass reads belong to (Kafka's
    ``CleanedTransactionMetadata``): fed the aborted transactions of the section it reads (from
    the ``.txnindex`` files) and each batch in log order, it says which data batches were
    aborted and which markers may go; the entries of ABORT markers that stay are collected in
    ``cleaned_index`` for the cleaned segment."""

    def __init__(self, aborted: Sequence[AbortedTxn] = ()) -> None:
        self._aborted: list[AbortedTxn] = []
        self._known: set[tuple[int, int]] = set()
        #: producers whose committed (not aborted) transaction the pass has met records of
        self.ongoing_committed: set[int] = set()
        #: producer id -> (aborted transaction, last offset of its last batch met, or -1)
        self.ongoing_aborted: dict[int, tuple[AbortedTxn, int]] = {}
        self.cleaned_index: list[AbortedTxn] = []
        self.add_aborted(aborted)

    def add_aborted(self, aborted: Sequence[AbortedTxn]) -> None:
        for txn in aborted:
            if (txn.producer_id, txn.first_offset) not in self._known:
                self._known.add((txn.producer_id, txn.first_offset))
                self._aborted.append(txn)
        self._aborted.sort(key=lambda t: t.first_offset, reverse=True)  # pop() takes the first

    def _consume_up_to(self, offset: int) -> None:
        while self._aborted and self._aborted[-1].first_offset <= offset:
            txn = self._aborted.pop()
            self.ongoing_aborted.setdefault(txn.producer_id, (txn, -1))

    def on_batch_read(self, header: BatchHeader) -> bool:
        """A data batch: whether it belongs to an aborted transaction."""
        self._consume_up_to(header.last_offset)
        if not header.is_transactional:
            return False
        aborted = self.ongoing_aborted.get(header.producer_id)
        if aborted is not None:
            self.ongoing_aborted[header.producer_id] = (aborted[0], header.last_offset)
            return True
        self.ongoing_committed.add(header.producer_id)
        return False

    def on_control_batch_read(self, header: BatchHeader,
                              control_type: ControlRecordType | None) -> bool:
        """A control batch (``control_type`` None when it has no record left): whether it may
        be discarded once its delete horizon has passed."""
        self._consume_up_to(header.last_offset)
        if control_type is None:
            return True  # emptied by an earlier pass
        pid = header.producer_id
        if control_type is ControlRecordType.ABORT:
            aborted = self.ongoing_aborted.pop(pid, None)
            if aborted is not None and aborted[1] >= 0:
                self.cleaned_index.append(aborted[0])
                return False
            return True
        if control_type is ControlRecordType.COMMIT:
            if pid in self.ongoing_committed:
                self.ongoing_committed.discard(pid)
                return False
            return True
        return False


#: producer id -> (last offset of its last data batch, or None when it has none; its epoch)
LastRecords = dict[int, tuple[int | None, int]]


@dataclass(slots=True)
class _Filter:
    """Decides, batch by batch, what a pass keeps (Kafka's ``shouldRetainRecord`` and
    ``checkBatchRetention``)."""

    offset_map: OffsetMap
    now_ms: int
    delete_retention_ms: int
    last_records: LastRecords
    stats: CleanerStats
    txn: CleanedTransactionMetadata | None = None

    def _is_last_of_producer(self, header: BatchHeader) -> bool:
        """The batch holding an active producer's last sequence, or its last marker when the
        producer has no data batch left in its epoch (Kafka's ``isBatchLastRecordOfProducer``)."""
        if header.producer_id < 0:
            return False
        last = self.last_records.get(header.producer_id)
        if last is None:
            return False
        last_data_offset, epoch = last
        if last_data_offset is not None:
            return header.last_offset == last_data_offset
        return header.is_control and header.producer_epoch == epoch

    def _control_batch(self, header: BatchHeader, data: memoryview,
                       txn: CleanedTransactionMetadata,
                       ) -> bytes | memoryview | bytearray | None:
        _, records = decode_batch(data)
        control_type = parse_control_key(records[0].key) if records else None
        can_discard = txn.on_control_batch_read(header, control_type)
        horizon = delete_horizon_of(header)
        discard_records = can_discard and horizon is not None and horizon <= self.now_ms
        if self._is_last_of_producer(header):
            if discard_records:
                return data if not records else encode_batch(header, (), None)
        elif discard_records or not records:
            return None
        if can_discard and horizon is None and records:
            return encode_batch(header, records, self.now_ms + self.delete_retention_ms)
        return data

    def batch(self, header: BatchHeader, data: memoryview) -> bytes | memoryview | bytearray | None:
        """The batch to write for ``data`` (itself when untouched), or None to drop it."""
        txn = self.txn
        if txn is None:
            txn = self.txn = CleanedTransactionMetadata()
        if header.is_control:
            return self._control_batch(header, data, txn)
        if txn.on_batch_read(header):
            # an aborted transaction's batch: its records go
            self.stats.records_read += header.records_count
            self.stats.records_removed += header.records_count
            if self._is_last_of_producer(header):
                return data if header.records_count == 0 else encode_batch(header, (), None)
            return None
        _, records = decode_batch(data)
        horizon = delete_horizon_of(header)
        latest = self.offset_map.latest_offset
        kept: list[Record] = []
        tombstones = False
        for r in records:
            if r.offset > latest:
                keep = True
            elif r.key is None:
                keep = False
            else:
                keep = r.offset >= self.offset_map.get(r.key) and (
                    r.value is not None or horizon is None or self.now_ms < horizon
                )
            if keep:
                kept.append(r)
                tombstones = tombstones or r.value is None
        self.stats.records_read += len(records)
        self.stats.records_removed += len(records) - len(kept)
        if kept:
            stamp = tombstones and horizon is None
            if len(kept) == len(records) and not stamp:
                return data
            return encode_batch(header, kept, self.now_ms + self.delete_retention_ms if stamp else horizon)
        if self._is_last_of_producer(header):
            return data if not records else encode_batch(header, (), None)
        return None


# -- writing a cleaned segment ---------------------------------------------------------------


class _CleanedSegment:
    """``<base>.log.cleaned`` and its two indexes, built as batches are appended.

    Index entries follow the segment's own rule (one per ``index.interval.bytes``), so the
    swap only has to rename files and load them.
    """

    def __init__(self, dir: Path, base_offset: int, config: LogConfig) -> None:
        self.base_offset = base_offset
        self.config = config
        self.paths = {
            suffix: dir / (file_name(base_offset, suffix) + Log.CLEANED_SUFFIX)
            for suffix in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX)
        }
        #: the aborted transactions whose markers the cleaned segment keeps
        self.aborted: list[AbortedTxn] = []
        self._fd = os.open(self.paths[LOG_SUFFIX], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        self.size = 0
        self._offset_entries: list[tuple[int, int]] = []
        self._time_entries: list[tuple[int, int]] = []
        self._since_index = 0
        self._max_timestamp = -1
        self._offset_of_max = base_offset

    def append(self, batch: bytes | bytearray | memoryview) -> None:
        header = BatchHeader.parse(batch)
        if header.max_timestamp > self._max_timestamp:
            self._max_timestamp, self._offset_of_max = header.max_timestamp, header.last_offset
        if self._since_index > self.config.index_interval_bytes:
            self._offset_entries.append((header.last_offset, self.size))
            self._add_time_entry()
            self._since_index = 0
        view = memoryview(batch)
        while view:
            view = view[os.write(self._fd, view) :]
        self._since_index += len(batch)
        self.size += len(batch)

    def _add_time_entry(self) -> None:
        if self._max_timestamp >= 0 and (not self._time_entries or self._max_timestamp > self._time_entries[-1][0]):
            self._time_entries.append((self._max_timestamp, self._offset_of_max))

    def finish(self, mtime_ns: int) -> None:
        """Write the indexes, make everything durable and give the log the sources' mtime."""
        self._add_time_entry()  # the final entry an inactive segment gets on roll
        size = self.config.segment_index_bytes
        OffsetIndex(self.paths[INDEX_SUFFIX], self.base_offset, size).replace_entries(self._offset_entries)
        TimeIndex(self.paths[TIME_INDEX_SUFFIX], self.base_offset, size).replace_entries(self._time_entries)
        suffixes = [INDEX_SUFFIX, TIME_INDEX_SUFFIX]
        if self.aborted:
            txn_index = TransactionIndex(self.paths[TXN_INDEX_SUFFIX], self.base_offset)
            txn_index.replace_all(self.aborted)
            txn_index.close()
            suffixes.append(TXN_INDEX_SUFFIX)
        os.fsync(self._fd)
        os.close(self._fd)
        self._fd = -1
        for suffix in suffixes:
            fd = os.open(self.paths[suffix], os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        os.utime(self.paths[LOG_SUFFIX], ns=(mtime_ns, mtime_ns))

    def discard(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        for path in self.paths.values():
            path.unlink(missing_ok=True)
            path.with_name(path.name + ".tmp").unlink(missing_ok=True)


def _read_batches(segment: LogSegment, position: int, chunk: int) -> Iterator[list[tuple[BatchHeader, memoryview]]]:
    """The segment's batches from ``position``, a list per ``chunk`` bytes read."""
    end = segment.size
    while position < end:
        data = segment.read_at(position, min(chunk, end - position))
        batches = [(h, memoryview(data)[p : p + h.size]) for p, h in iter_batches(data)]
        if not batches:  # a batch larger than the chunk
            if len(data) < LOG_OVERHEAD:
                raise KafkaError(ErrorCode.CORRUPT_MESSAGE, f"{segment.log_path.name}: torn batch at {position}")
            _, length = peek_offset_and_length(data)
            data = segment.read_at(position, length + LOG_OVERHEAD)
            batches = [(h, memoryview(data)) for _, h in iter_batches(data)]
            if not batches:
                raise KafkaError(ErrorCode.CORRUPT_MESSAGE, f"{segment.log_path.name}: torn batch at {position}")
        yield batches
        position += sum(h.size for h, _ in batches)


class Cleaner(LogCleanerManager):
    """One pass over the filthiest log, in steps (a generator the drivers of
    :class:`~pybroker.log.cleaner.LogCleaner` run); the cleaner's ``__init__`` sets these
    attributes."""

    max_map_entries: int
    step_bytes: int

    # -- one pass ----------------------------------------------------------------------------

    def _pass(self, now_ms: int) -> Generator[None, None, CleanerStats | None]:
        ltc = self.grab_filthiest_log(now_ms)
        if ltc is None:
            return None
        tp = (ltc.topic, ltc.partition)
        stats = CleanerStats(ltc.topic, ltc.partition, ltc.first_dirty_offset,
                             cleanable_ratio=ltc.cleanable_ratio)
        try:
            yield from self._clean(ltc, now_ms, stats)
        except _CleaningAborted as e:
            logger.info("Cleaning of %s-%d abandoned: %s", *tp, e)
            stats.aborted = True
        except OSError as e:  # Kafka's cleaner: an I/O error fails the log dir
            self.log_manager.failures.maybe_add_offline_log_dir(
                ltc.log.dir.parent, f"Failed to clean up log for {tp[0]}-{tp[1]} in dir "
                                    f"{ltc.log.dir.parent} due to an I/O error", e)
            self.uncleanable.add(tp)
            stats.aborted = True
        except (KafkaError, ValueError):  # corrupt data, a segment closed under us
            logger.exception("Cleaning of %s-%d failed; the partition is marked uncleanable", *tp)
            self.uncleanable.add(tp)
            stats.aborted = True
        return stats

    def _check(self, ltc: LogToClean, segments: Sequence[LogSegment]) -> None:
        if self.log_manager.get_log(ltc.topic, ltc.partition) is not ltc.log or not ltc.log.is_cleanable_run(segments):
            raise _CleaningAborted("the log changed during the pass")
        if self.log_manager.is_cleaning_paused(ltc.topic, ltc.partition):
            raise _CleaningAborted("cleaning of the partition is paused (it is being moved)")

    def _clean(self, ltc: LogToClean, now_ms: int, stats: CleanerStats) -> Generator[None, None, None]:
        log = ltc.log
        cfg = log.config
        offset_map = OffsetMap(self.max_map_entries)
        end_offset = yield from self._build_offset_map(ltc, offset_map)
        stats.buffer_utilization = len(offset_map) / self.max_map_entries

        segments = [s for s in log.segments[:-1] if s.base_offset < end_offset]
        stats.segments_before = len(segments)
        producers: LastRecords = {
            pid: (entry.batches[-1].last_offset if entry.batches else None, entry.epoch)
            for pid, entry in log.producer_state.producers.items()
        }
        record_filter = _Filter(offset_map, now_ms, cfg.delete_retention_ms, producers, stats)
        for group in group_segments_by_size(segments, cfg.segment_bytes, cfg.segment_index_bytes):
            yield from self._clean_group(ltc, group, record_filter, now_ms)
            stats.segments_after += 1

        stats.end_offset = end_offset
        self._update_checkpoint(ltc.topic, ltc.partition, log, end_offset)
        logger.info(
            "Cleaned %s-%d up to offset %d: %d segments -> %d, %d -> %d bytes, %d of %d records removed",
            ltc.topic, ltc.partition, end_offset, stats.segments_before, stats.segments_after,
            stats.bytes_read, stats.bytes_written, stats.records_removed, stats.records_read,
        )

    def _build_offset_map(self, ltc: LogToClean, offset_map: OffsetMap) -> Generator[None, None, int]:
        """Map the dirty section; returns where the pass ends (exclusive)."""
        start, end = ltc.first_dirty_offset, ltc.first_uncleanable_offset
        dirty = _segments_from(ltc.log.segments, start, end)
        offset_map.latest_offset = start - 1
        txn = CleanedTransactionMetadata(ltc.log.collect_aborted_transactions(start, end))
        for segment in dirty:
            found = segment.translate_offset(start)
            if found is None:
                continue
            for batches in _read_batches(segment, found[0], self.step_bytes):
                for header, data in batches:
                    if header.last_offset < start:
                        continue
                    if header.is_control:
                        records = decode_batch(data)[1]
                        txn.on_control_batch_read(
                            header, parse_control_key(records[0].key) if records else None)
                    elif not txn.on_batch_read(header):
                        full = len(offset_map) + header.records_count > offset_map.max_entries
                        if full and offset_map.latest_offset >= start:
                            return offset_map.latest_offset + 1
                        for r in decode_batch(data)[1]:
                            if r.key is not None and r.offset >= start:
                                offset_map.put(r.key, r.offset)
                    offset_map.latest_offset = header.last_offset
                yield
                self._check(ltc, dirty)
        return end

    def _clean_group(
        self, ltc: LogToClean, group: list[LogSegment], record_filter: _Filter, now_ms: int
    ) -> Generator[None, None, None]:
        log = ltc.log
        stats = record_filter.stats
        out = _CleanedSegment(log.dir, group[0].base_offset, log.config)
        txn = record_filter.txn = CleanedTransactionMetadata()
        swapped = False
        try:
            for i, segment in enumerate(group):
                upper = (group[i + 1].base_offset if i + 1 < len(group)
                         else segment.next_offset)
                txn.add_aborted(log.collect_aborted_transactions(segment.base_offset, upper))
                for batches in _read_batches(segment, 0, self.step_bytes):
                    for header, data in batches:
                        stats.bytes_read += header.size
                        kept = record_filter.batch(header, data)
                        if kept is not None:
                            out.append(kept)
                    yield
                    self._check(ltc, group)
            out.aborted = txn.cleaned_index
            out.finish(max(os.stat(s.log_path).st_mtime_ns for s in group))
            if log.replace_segments(group, now_ms) is None:
                raise _CleaningAborted("the segments were replaced or removed")
            swapped = True
            stats.bytes_written += out.size
        finally:
            if not swapped:
                out.discard()


__all__ = [
    "CleanedTransactionMetadata",
    "Cleaner",
    "CleanerStats",
    "encode_batch",
    "group_segments_by_size",
]
