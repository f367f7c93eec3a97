"""One log segment: ``<base offset>.log`` plus its ``.index``, ``.timeindex`` and (once a
transaction was aborted in it) ``.txnindex``.

Batches are appended byte for byte as they arrive (offsets already assigned). Reads and
recovery walk batch headers with ``os.pread``; nothing here decodes individual records.

A segment holds no descriptor of its own: it asks an :class:`OpenFiles` cache for one on each
disk access, so only recently used segments have open files and a broker with thousands of
partitions stays within ``ulimit -n``. A brand-new segment's file is created at once (a log
directory always shows its active segment), an existing one is only ``stat``-ed until used.
"""

from __future__ import annotations

import bisect
import logging
import os
import random
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from protocol.errors import KafkaError
from protocol.records.batch import (
    HEADER_SIZE,
    LOG_OVERHEAD,
    MAGIC,
    PREFIX_SIZE,
    BatchHeader,
    compute_crc,
    read_prefix,
)

from .config import INT_MAX, LogConfig
from .file_slice import SEGMENT_FILES, LazyFile, OpenFiles, SharedFile
from .index import IndexCorrupt, OffsetIndex, TimeIndex
from .txn_index import TXN_INDEX_SUFFIX, TransactionIndex

logger = logging.getLogger(__name__)

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"

_MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD
_SCAN_CHUNK = 4 << 20


def file_name(base_offset: int, suffix: str) -> str:
    """Kafka's naming: the base offset as 20 zero-padded digits."""
    return f"{base_offset:020d}{suffix}"


class Peek(NamedTuple):
    base_offset: int
    size: int
    last_offset: int


class _ChunkReader:
    """Serves byte ranges of a file from large ``pread`` chunks (for full scans)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buf = b""
        self._start = 0

    def get(self, pos: int, size: int) -> memoryview:
        end = self._start + len(self._buf)
        if pos < self._start or pos + size > end:
            self._buf = os.pread(self._fd, max(size, _SCAN_CHUNK), pos)
            self._start = pos
        rel = pos - self._start
        return memoryview(self._buf)[rel : rel + size]


class _RecentBatches:
    """Every batch appended lately, so tail reads find positions without peeking headers.

    The sparse offset index leaves up to ``index.interval.bytes`` of batches to walk; for
    consumers following the log end with small batches that walk would cost dozens of
    ``pread`` calls per fetch. The window is bounded (``_KEEP`` .. 2 x ``_KEEP`` batches).
    """

    _KEEP = 512

    def __init__(self) -> None:
        self.bases = array("q")
        self.lasts = array("q")
        self.positions = array("q")

    def add(self, base: int, last: int, position: int) -> None:
        self.bases.append(base)
        self.lasts.append(last)
        self.positions.append(position)
        if len(self.bases) > 2 * self._KEEP:
            for column in (self.bases, self.lasts, self.positions):
                del column[: self._KEEP]

    def clear(self) -> None:
        self.bases, self.lasts, self.positions = array("q"), array("q"), array("q")

    def find(self, offset: int, segment_size: int) -> tuple[int, Peek] | None:
        """The batch whose last offset is the first >= ``offset``, if the window covers it."""
        if not self.bases or offset < self.bases[0]:
            return None
        i = bisect.bisect_left(self.lasts, offset)
        if i == len(self.lasts):
            return None
        end = self.positions[i + 1] if i + 1 < len(self.positions) else segment_size
        return self.positions[i], Peek(self.bases[i], end - self.positions[i], self.lasts[i])

    def jump(self, limit: int, max_offset: int | None) -> int:
        """A batch start <= ``limit`` before which every batch ends below the limits, or 0."""
        if not self.positions:
            return 0
        i = bisect.bisect_right(self.positions, limit) - 1
        if max_offset is not None:
            i = min(i, bisect.bisect_left(self.lasts, max_offset) - 1)
        return self.positions[i] if i >= 0 else 0


class LogSegment:
    """A ``.log`` file and its two sparse indexes; not thread-safe (one event loop owns it)."""

    def __init__(
        self,
        dir: Path,
        base_offset: int,
        config: LogConfig,
        now_ms: int,
        *,
        files: OpenFiles | None = None,
    ) -> None:
        self.dir = dir
        self.base_offset = base_offset
        self.config = config
        self.log_path = dir / file_name(base_offset, LOG_SUFFIX)
        self._files = files if files is not None else SEGMENT_FILES
        self._lazy = LazyFile(self.shared_file)
        self._closed = False
        self._dirty = False  # appended or truncated since the last fsync
        try:
            self.size = os.stat(self.log_path).st_size
        except FileNotFoundError:
            self._files.get(self, self.log_path, create=True)
            self.size = 0
            self._dirty = True  # the new directory entry is not durable yet
        self.offset_index = OffsetIndex(
            dir / file_name(base_offset, INDEX_SUFFIX), base_offset, config.segment_index_bytes, self._files
        )
        self.time_index = TimeIndex(
            dir / file_name(base_offset, TIME_INDEX_SUFFIX), base_offset, config.segment_index_bytes, self._files
        )
        #: the aborted transactions whose marker is in this segment
        self.txn_index = TransactionIndex(dir / file_name(base_offset, TXN_INDEX_SUFFIX),
                                          base_offset, self._files)
        self.next_offset = base_offset
        self.max_timestamp = -1
        self.offset_of_max_timestamp = base_offset
        self.created_ms = now_ms
        self.rolling_base_ms: int | None = None  # when the segment's age starts counting
        self._bytes_since_index = 0
        self._recent = _RecentBatches()
        self._indexes_verified = True  # False after load() until first use
        self._jitter_ms = random.randrange(config.segment_jitter_ms) if config.segment_jitter_ms else 0

    def __repr__(self) -> str:
        return f"LogSegment({self.log_path}, size={self.size}, next_offset={self.next_offset})"

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def file(self) -> LazyFile:
        """The ``.log`` file for :class:`FileSlice`: opened only when a slice is read or sent."""
        return self._lazy

    def shared_file(self) -> SharedFile:
        """The open ``.log`` file, opened now if the cache had closed it."""
        if self._closed:
            raise ValueError(f"{self.log_path.name}: segment is closed")
        return self._files.get(self, self.log_path)

    def fileno(self) -> int:
        """A descriptor valid until the next access to another file (use it at once)."""
        return self.shared_file().fileno()

    @property
    def is_open(self) -> bool:
        """Whether the ``.log`` file currently holds a descriptor in the cache."""
        return self._files.peek(self) is not None

    @contextmanager
    def _pinned(self) -> Iterator[int]:
        """A descriptor that stays valid for the whole ``with`` block (long scans)."""
        shared = self.shared_file()
        shared.retain()
        try:
            yield shared.fileno()
        finally:
            shared.release()

    def load(self, *, verify_indexes: bool = False) -> str | None:
        """Open an existing segment trusting its content; returns why it needs recovery, if it does.

        The indexes are sanity-checked (size, bounds, the last offset entry must point at a
        batch ending at that offset) and the tail after the last index entry is walked to find
        the next offset. The order of all entries is checked now with ``verify_indexes``,
        otherwise on first use.
        """
        self._indexes_verified = False
        try:
            self.offset_index.load(self.size)
            last_offset, last_pos = self.offset_index.last_entry()
            if len(self.offset_index):
                peek = self.peek(last_pos)
                if peek is None or peek.last_offset != last_offset:
                    raise IndexCorrupt(f"last entry ({last_offset}, {last_pos}) does not match the log")
        except IndexCorrupt as e:
            return f"offset index {self.offset_index.path.name}: {e}"
        problem = self._scan_tail()
        if problem:
            return problem
        try:
            self.time_index.load(max_offset=self.next_offset - 1)
        except IndexCorrupt as e:
            return f"time index {self.time_index.path.name}: {e}"
        last_time = self.time_index.last_entry()
        if last_time is not None and last_time[0] > self.max_timestamp:
            self.max_timestamp, self.offset_of_max_timestamp = last_time
        self.rolling_base_ms = self._first_batch_timestamp()
        if verify_indexes:
            try:
                self.offset_index.verify()
                self.time_index.verify()
            except IndexCorrupt as e:
                return f"index of {self.log_path.name}: {e}"
            self._indexes_verified = True
        return None

    def _ensure_indexes(self) -> None:
        """Verify indexes loaded lazily; a damaged one is rebuilt from the log."""
        if self._indexes_verified:
            return
        try:
            self.offset_index.verify()
            self.time_index.verify()
        except IndexCorrupt as e:
            logger.warning("%s: index damaged (%s); rebuilding from the log", self.log_path.name, e)
            dropped, reason = self.recover()
            if dropped:
                logger.warning(
                    "%s: dropped %d bytes at position %d (%s)", self.log_path.name, dropped, self.size, reason
                )
        self._indexes_verified = True

    def _scan_tail(self) -> str | None:
        """Walk from the last offset index entry to the end: next offset and max timestamp."""
        _, pos = self.offset_index.last_entry()
        next_offset = self.base_offset
        while pos < self.size:
            header = self.header_at(pos)
            if header is None or pos + header.size > self.size:
                return f"{self.log_path.name}: torn batch at position {pos}"
            next_offset = header.next_offset
            if header.max_timestamp > self.max_timestamp:
                self.max_timestamp, self.offset_of_max_timestamp = header.max_timestamp, header.last_offset
            pos += header.size
        self.next_offset = next_offset
        self._bytes_since_index = 0
        return None

    def _first_batch_timestamp(self) -> int | None:
        if not self.size:
            return None
        header = self.header_at(0)
        if header is None or header.max_timestamp < 0:
            return self.created_ms
        return header.max_timestamp

    def recover(self) -> tuple[int, str | None]:
        """Validate every batch and rebuild both indexes from the log.

        Stops at the first batch that is torn, too short, not magic 2, fails its CRC or has
        offsets going backwards, and cuts the file there. Returns ``(bytes dropped, reason)``.
        """
        with self._pinned() as fd:
            return self._recover(fd)

    def _recover(self, fd: int) -> tuple[int, str | None]:
        file_size = os.fstat(fd).st_size
        reader = _ChunkReader(fd)
        interval = self.config.index_interval_bytes
        offset_entries: list[tuple[int, int]] = []
        time_entries: list[tuple[int, int]] = []
        next_offset = self.base_offset
        max_ts, offset_of_max = -1, self.base_offset
        since_index = 0
        pos = 0
        reason: str | None = None
        while pos < file_size:
            if file_size - pos < HEADER_SIZE:
                reason = "torn batch header"
                break
            base, length, _, magic, crc, _, last_delta = read_prefix(reader.get(pos, PREFIX_SIZE))
            size = length + LOG_OVERHEAD
            if length < _MIN_BATCH_LENGTH:
                reason = f"batch length {length} is too small"
                break
            if pos + size > file_size:
                reason = f"torn batch of {size} bytes"
                break
            if magic != MAGIC:
                reason = f"magic {magic}"
                break
            buf = reader.get(pos, size)
            if compute_crc(buf, 0, size) != crc:
                reason = "CRC mismatch"
                break
            if last_delta < 0 or base < next_offset or base + last_delta - self.base_offset > INT_MAX:
                reason = f"offsets {base}..{base + last_delta} out of order (expected >= {next_offset})"
                break
            header = BatchHeader.parse(buf)
            last = header.last_offset
            if header.max_timestamp > max_ts:
                max_ts, offset_of_max = header.max_timestamp, last
            if since_index > interval:
                offset_entries.append((last, pos))
                if max_ts >= 0 and (not time_entries or max_ts > time_entries[-1][0]):
                    time_entries.append((max_ts, offset_of_max))
                since_index = 0
            since_index += size
            next_offset = last + 1
            pos += size
        dropped = file_size - pos
        if dropped:
            os.ftruncate(fd, pos)
            self._dirty = True
        else:
            reason = None
        self.size = pos
        self.next_offset = next_offset
        self.max_timestamp, self.offset_of_max_timestamp = max_ts, offset_of_max
        self._bytes_since_index = since_index
        self._recent.clear()
        self._indexes_verified = True
        if max_ts >= 0 and (not time_entries or max_ts > time_entries[-1][0]):
            time_entries.append((max_ts, offset_of_max))  # what close() would have added
        # A lost tail of index entries is normal after a crash; anything else is worth a word.
        # (A time index may also differ by the final entry of an earlier clean shutdown.)
        for index, entries in ((self.offset_index, offset_entries), (self.time_index, time_entries)):
            old_size = index.replace_entries(entries)
            if old_size is not None and (index is self.offset_index or old_size % index.entry_size):
                logger.warning(
                    "%s: %s: rebuilt %s from the log: dropped its %d bytes (now %d entries)",
                    self.dir.name, self.log_path.name, index.path.name, old_size, len(entries),
                )
        self.rolling_base_ms = self._first_batch_timestamp()
        return dropped, reason

    def update_config(self, config: LogConfig) -> None:
        self.config = config
        self.offset_index.set_max_index_bytes(config.segment_index_bytes)
        self.time_index.set_max_index_bytes(config.segment_index_bytes)

    def flush(self) -> None:
        """fsync the log and both indexes (a segment not written since is left alone)."""
        if self._dirty and not self._closed:
            os.fsync(self.fileno())
            self._dirty = False
        self.offset_index.flush()
        self.time_index.flush()
        self.txn_index.flush()

    def on_become_inactive(self, *, flush: bool = True) -> None:
        """Called on roll: record the final max timestamp and make the segment durable; with
        ``flush=False`` only write what the indexes keep in memory, for an fsync of
        :meth:`files` done elsewhere."""
        self._final_time_entry()
        self._recent.clear()
        if flush:
            self.flush()
        else:
            self.offset_index.write_pending()
            self.time_index.write_pending()
            self.txn_index.write_pending()

    def files(self) -> list[Path]:
        """The segment's log and index files, as they are named now."""
        return [self.log_path, self.offset_index.path, self.time_index.path, self.txn_index.path]

    def _final_time_entry(self) -> None:
        if self.max_timestamp >= 0:
            self.time_index.maybe_append(self.max_timestamp, self.offset_of_max_timestamp)

    def close(self, *, final_time_entry: bool = True) -> None:
        """Close the files; ``final_time_entry=False`` when they are about to be deleted: then
        index entries still kept in memory are dropped, not written (the directory may have
        been renamed for deletion already)."""
        if self._closed:
            return
        if final_time_entry and self._indexes_verified:
            self._final_time_entry()
        if not final_time_entry:
            self.offset_index.discard_pending()
            self.time_index.discard_pending()
        self.offset_index.close()
        self.time_index.close()
        self.txn_index.close()
        self._files.forget(self)
        self._closed = True

    def largest_timestamp(self) -> int:
        """The max record timestamp, or the file's mtime when no batch carries one (as Kafka)."""
        if self.max_timestamp >= 0:
            return self.max_timestamp
        try:
            return int(os.stat(self.log_path).st_mtime * 1000)
        except FileNotFoundError:
            return -1

    def mark_deleted(self) -> None:
        """Rename the files ``*.deleted`` (Kafka's convention) ahead of the actual deletion.

        Slices already handed out open it under the new name, and a send in progress keeps
        its descriptor, so fetches holding them finish until the file is finally deleted.
        """
        suffix = ".deleted"
        self.offset_index.rename(self.offset_index.path.with_name(self.offset_index.path.name + suffix))
        self.time_index.rename(self.time_index.path.with_name(self.time_index.path.name + suffix))
        self.txn_index.rename(self.txn_index.path.with_name(self.txn_index.path.name + suffix))
        deleted = self.log_path.with_name(self.log_path.name + suffix)
        os.replace(self.log_path, deleted)
        self.log_path = deleted

    def delete(self) -> None:
        self.offset_index.delete()
        self.time_index.delete()
        self.txn_index.delete()
        self._files.forget(self)
        self._closed = True
        self.log_path.unlink(missing_ok=True)

    # -- append ----------------------------------------------------------------------------

    def should_roll(self, batch_size: int, last_offset: int, now_ms: int) -> bool:
        """Kafka's roll conditions, checked before appending a batch of ``batch_size`` bytes."""
        if self.size == 0:
            return False
        cfg = self.config
        return (
            self.size + batch_size > cfg.segment_bytes
            or (
                self.rolling_base_ms is not None
                and now_ms - self.rolling_base_ms > cfg.segment_ms - self._jitter_ms
            )
            or self.offset_index.is_full
            or self.time_index.is_full
            or last_offset - self.base_offset > INT_MAX
        )

    def append(
        self,
        batch: bytes | bytearray | memoryview,
        first_offset: int,
        last_offset: int,
        max_timestamp: int,
        now_ms: int,
    ) -> int:
        """Write one batch whose offsets are assigned; returns its file position.

        A write that fails part-way (a full disk writes what fits, then raises ENOSPC) is cut
        back off the file before the error is raised, so the file never holds bytes the
        segment's size, indexes and next offset do not account for; if even that fails, the
        caller's log dir goes offline and recovery cuts the torn batch at the next start."""
        position = self.size
        n = len(batch)
        fd = self.fileno()
        try:
            written = os.write(fd, batch)
            if written != n:  # a short write (e.g. a signal, a disk filling up); finish it
                view = memoryview(batch)[written:]
                while view:
                    view = view[os.write(fd, view) :]
        except OSError:
            self._dirty = True
            try:
                os.ftruncate(fd, position)
            except OSError as e:
                logger.error("%s: could not cut a failed append back to position %d: %s",
                             self.log_path.name, position, e)
            raise
        self._dirty = True
        if self.rolling_base_ms is None:
            self.rolling_base_ms = now_ms
        if max_timestamp > self.max_timestamp:
            self.max_timestamp, self.offset_of_max_timestamp = max_timestamp, last_offset
        index = self._bytes_since_index > self.config.index_interval_bytes
        self._bytes_since_index = n if index else self._bytes_since_index + n
        self._recent.add(first_offset, last_offset, position)
        self.size += n
        self.next_offset = last_offset + 1
        # last: the batch is accounted for even if writing an index entry fails (the
        # entries are in memory before they are written; recovery rebuilds a short file)
        if index:
            self.offset_index.append(last_offset, position)
            if self.max_timestamp >= 0:
                self.time_index.maybe_append(self.max_timestamp, self.offset_of_max_timestamp)
        return position

    # -- reads -----------------------------------------------------------------------------

    def peek(self, position: int) -> Peek | None:
        """Offsets and size of the batch at ``position`` from a short header read."""
        data = os.pread(self.fileno(), PREFIX_SIZE, position)
        if len(data) < PREFIX_SIZE:
            return None
        base, length, _, _, _, _, last_delta = read_prefix(data)
        if length < _MIN_BATCH_LENGTH:
            return None
        return Peek(base, length + LOG_OVERHEAD, base + last_delta)

    def header_at(self, position: int) -> BatchHeader | None:
        data = os.pread(self.fileno(), HEADER_SIZE, position)
        if len(data) < HEADER_SIZE:
            return None
        try:
            header = BatchHeader.parse(data)
        except KafkaError:
            return None
        return header if header.batch_length >= _MIN_BATCH_LENGTH else None

    def headers_from(self, position: int) -> Iterator[tuple[int, BatchHeader]]:
        """``(position, header)`` of each batch from ``position`` to the end of the segment."""
        while position < self.size:
            header = self.header_at(position)
            if header is None:
                return
            yield position, header
            position += header.size

    def read_at(self, position: int, size: int) -> bytes:
        return os.pread(self.fileno(), size, position)

    def translate_offset(self, offset: int) -> tuple[int, Peek] | None:
        """Position and peek of the first batch whose last offset is >= ``offset``."""
        recent = self._recent.find(offset, self.size)
        if recent is not None:
            return recent
        self._ensure_indexes()
        _, pos = self.offset_index.lookup(offset)
        size = self.size
        while pos < size:
            peek = self.peek(pos)
            if peek is None:
                return None
            if peek.last_offset >= offset:
                return pos, peek
            pos += peek.size
        return None

    def end_of_read(self, start: int, max_bytes: int, max_offset: int | None) -> int:
        """The furthest batch boundary after ``start`` within ``max_bytes`` and below ``max_offset``.

        The offset index jumps close to the limit so only the batches near it are peeked.
        """
        self._ensure_indexes()
        limit = min(self.size, start + max_bytes)
        _, pos = self.offset_index.lookup_position(limit)
        if max_offset is not None:
            pos = min(pos, self.offset_index.lookup(max_offset - 1)[1])
        pos = max(pos, self._recent.jump(limit, max_offset), start)
        while pos < self.size:
            peek = self.peek(pos)
            if peek is None or pos + peek.size > limit:
                break
            if max_offset is not None and peek.base_offset >= max_offset:
                break
            pos += peek.size
        return pos

    def find_timestamp_candidates(
        self, timestamp: int, starting_offset: int
    ) -> Iterator[tuple[int, BatchHeader]]:
        """Batches, in order, that may hold the first record with a timestamp >= ``timestamp``."""
        self._ensure_indexes()
        entry = self.time_index.lookup_before(timestamp)
        pos = self.offset_index.lookup(entry[1])[1] if entry else 0
        pos = max(pos, self.offset_index.lookup(starting_offset)[1])
        for position, header in self.headers_from(pos):
            if header.max_timestamp >= timestamp and header.last_offset >= starting_offset:
                yield position, header

    # -- truncation ------------------------------------------------------------------------

    def truncate_to(self, offset: int) -> int:
        """Remove the batch containing ``offset`` and everything after it; returns bytes removed."""
        self._ensure_indexes()
        found = self.translate_offset(offset)
        if found is None:
            return 0
        pos, peek = found
        removed = self.size - pos
        self._recent.clear()
        os.ftruncate(self.fileno(), pos)
        self._dirty = True
        self.size = pos
        self.offset_index.truncate_to_position(pos)
        self.time_index.truncate_to_offset(peek.base_offset)
        self.txn_index.truncate_to(peek.base_offset)
        self.max_timestamp, self.offset_of_max_timestamp = -1, self.base_offset
        last_time = self.time_index.last_entry()
        if last_time is not None:
            self.max_timestamp, self.offset_of_max_timestamp = last_time
        self.next_offset = self.base_offset
        self._scan_tail()
        if self.size == 0:
            self.rolling_base_ms = None
        return removed
