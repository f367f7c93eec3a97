"""Sparse offset and time indexes for one log segment.

The files use Kafka's entry layouts (big-endian, offsets relative to the segment's base offset):

* ``.index``     8 bytes per entry: int32 relative offset, int32 file position.
  An entry ``(offset, position)`` says the batch starting at ``position`` ends at ``offset``.
* ``.timeindex`` 12 bytes per entry: int64 timestamp, int32 relative offset.
  An entry ``(ts, offset)`` says no record at or before ``offset`` has a timestamp above ``ts``.

The entries live in memory as ``array`` columns so lookups are a ``bisect`` (O(log n)) and the
files are append-only: no preallocation, nothing to trim on close. ``max_entries`` mirrors
Kafka's ``segment.index.bytes`` so a full index still rolls the segment.

Opening an index checks only what is O(1) (file size, the last entry); the entries are parsed
and checked for order on first use (:meth:`verify`), so a broker with many old segments
starts without reading all of their indexes.

New offset and time index entries reach the file in bunches (``PENDING_BYTES`` of them, or on
flush, close, roll, truncation), not one ``write`` each (the transaction index, rarely written,
writes each entry at once): with batches larger than ``index.interval.bytes`` every
batch adds an entry to both indexes, two system calls beside the batch's own. Lookups use the
in-memory columns, so nothing waits for the file. Kafka's indexes are memory-mapped and reach
the disk when the OS writes them back; here entries not yet written are lost with the process
(kill -9), like the unflushed tail of a mapped index after a power loss: on the next start the
last entry in the file still matches the log and the segment walks the batches after it.
"""

from __future__ import annotations

import bisect
import os
import struct
import sys
from array import array
from itertools import islice
from operator import le, lt
from pathlib import Path

from .file_slice import SEGMENT_FILES, OpenFiles

_OFFSET_ENTRY = struct.Struct(">ii")
_TIME_ENTRY = struct.Struct(">qi")
#: index bytes kept in memory before they are written to the file
PENDING_BYTES = 4096


class IndexCorrupt(Exception):
    """An index file that cannot be trusted; the segment rebuilds it from the log."""


class _IndexFile:
    """The append-only file behind an index, created on the first write.

    The descriptor comes from an :class:`OpenFiles` cache on each write, so the index of a
    segment nobody writes to costs no descriptor.
    """

    entry_size: int
    #: entries collect in memory (PENDING_BYTES) before they are written; the offset and time
    #: indexes only, which recovery can rebuild from the log
    buffered = False

    def __init__(
        self, path: Path, base_offset: int, max_index_bytes: int, files: OpenFiles | None = None
    ) -> None:
        self.path = path
        self.base_offset = base_offset
        self.max_entries = max(1, max_index_bytes // self.entry_size)
        self._files = files if files is not None else SEGMENT_FILES
        self._dirty = False  # written since the last fsync
        self._pending = bytearray()  # entries not yet in the file

    def _write(self, data: bytes) -> None:
        self._pending += data
        if not self.buffered or len(self._pending) >= PENDING_BYTES:
            self.write_pending()

    def write_pending(self) -> None:
        """Write the entries kept in memory to the file (not fsync-ed)."""
        if not self._pending:
            return
        fd = self._files.get(self, self.path, create=True).fileno()
        view = memoryview(self._pending)
        try:
            while view:
                view = view[os.write(fd, view) :]
        finally:
            view.release()
        self._pending.clear()
        self._dirty = True

    def _truncate_file(self, entries: int) -> None:
        self.write_pending()
        try:
            os.truncate(self.path, entries * self.entry_size)
        except FileNotFoundError:
            return
        self._dirty = True

    def _read_file(self) -> bytes:
        self.write_pending()
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return b""

    def _replace_file(self, data: bytes) -> int | None:
        """Write the whole index to a temporary file and rename it over the old one.

        Returns the old file's size when it held entries that ``data`` does not (anything but
        a prefix of it: garbage, entries the log does not support), None otherwise. A file
        that already has exactly these bytes is left alone.
        """
        self.write_pending()
        old = self._read_file()
        if old == data and self.path.exists():
            return None
        self.close()
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, self.path)
        self._dirty = bool(data)  # a lost empty index is an empty index: no fsync needed
        return None if data.startswith(old) else len(old)

    def set_max_index_bytes(self, max_index_bytes: int) -> None:
        self.max_entries = max(1, max_index_bytes // self.entry_size)

    def flush(self) -> None:
        self.write_pending()
        if not self._dirty:
            return
        try:
            os.fsync(self._files.get(self, self.path).fileno())
        except FileNotFoundError:
            pass
        self._dirty = False

    def close(self) -> None:
        self.write_pending()
        self._files.forget(self)

    def discard_pending(self) -> None:
        """Forget the entries not yet written (the file is about to be deleted)."""
        self._pending.clear()

    def delete(self) -> None:
        self._pending.clear()
        self.close()
        self.path.unlink(missing_ok=True)

    def rename(self, path: Path) -> None:
        self.close()
        if self.path.exists():
            os.replace(self.path, path)
        self.path = path


def _increasing(values: array | list[int], strictly: bool = True) -> bool:
    """Order check at C speed (``map`` over ``operator.lt``), no Python-level loop."""
    return all(map(lt if strictly else le, values, islice(values, 1, None)))


def _ints_from_be(data: bytes) -> array:
    values = array("i")
    values.frombytes(data)
    if sys.byteorder == "little":
        values.byteswap()
    return values


class OffsetIndex(_IndexFile):
    """Maps a batch's last offset to the file position where that batch starts."""

    entry_size = 8
    buffered = True

    def __init__(
        self, path: Path, base_offset: int, max_index_bytes: int, files: OpenFiles | None = None
    ) -> None:
        super().__init__(path, base_offset, max_index_bytes, files)
        self._offsets = array("i")  # relative last offsets, strictly increasing
        self._positions = array("i")  # batch start positions, strictly increasing
        self._raw: bytes | None = None  # file content not parsed yet

    def __len__(self) -> int:
        if self._raw is not None:
            return len(self._raw) // self.entry_size
        return len(self._offsets)

    @property
    def is_full(self) -> bool:
        return len(self) >= self.max_entries

    def load(self, log_size: int) -> None:
        """Read the file and check its size and last entry; raises :class:`IndexCorrupt`."""
        data = self._read_file()
        if len(data) % self.entry_size:
            raise IndexCorrupt(f"size {len(data)} is not a multiple of {self.entry_size}")
        if data:
            rel, pos = _OFFSET_ENTRY.unpack_from(data, len(data) - self.entry_size)
            if rel < 0 or not 0 <= pos < log_size:
                raise IndexCorrupt(f"last entry ({self.base_offset + rel}, {pos}) lies outside the log")
        self._offsets, self._positions = array("i"), array("i")
        self._raw = data

    def verify(self) -> None:
        """Parse the entries and check their order; raises :class:`IndexCorrupt`."""
        if self._raw is None:
            return
        values = _ints_from_be(self._raw)
        offsets, positions = values[0::2], values[1::2]
        if offsets and (offsets[0] < 0 or positions[0] < 0):
            raise IndexCorrupt(f"first entry ({offsets[0]}, {positions[0]}) is negative")
        if not (_increasing(offsets) and _increasing(positions)):
            raise IndexCorrupt("entries are out of order")
        self._offsets, self._positions, self._raw = offsets, positions, None

    def append(self, offset: int, position: int) -> None:
        self.verify()
        rel = offset - self.base_offset
        if self._offsets and (rel <= self._offsets[-1] or position <= self._positions[-1]):
            raise ValueError(f"index entry ({offset}, {position}) is not after the last one")
        self._offsets.append(rel)
        self._positions.append(position)
        self._write(_OFFSET_ENTRY.pack(rel, position))

    def last_entry(self) -> tuple[int, int]:
        """``(offset, position)`` of the last entry, or ``(base_offset, 0)`` when empty."""
        if self._raw:
            rel, pos = _OFFSET_ENTRY.unpack_from(self._raw, len(self._raw) - self.entry_size)
            return self.base_offset + rel, pos
        if not self._offsets:
            return self.base_offset, 0
        return self.base_offset + self._offsets[-1], self._positions[-1]

    def lookup(self, offset: int) -> tuple[int, int]:
        """The last entry whose offset is <= ``offset``; ``(base_offset, 0)`` if there is none.

        A scan for ``offset`` may start at the returned position.
        """
        self.verify()
        i = bisect.bisect_right(self._offsets, offset - self.base_offset) - 1
        if i < 0:
            return self.base_offset, 0
        return self.base_offset + self._offsets[i], self._positions[i]

    def lookup_position(self, position: int) -> tuple[int, int]:
        """The last entry whose position is <= ``position``, as ``(offset, position)``."""
        self.verify()
        i = bisect.bisect_right(self._positions, position) - 1
        if i < 0:
            return self.base_offset, 0
        return self.base_offset + self._offsets[i], self._positions[i]

    def fetch_upper_bound_offset(self, position: int) -> int | None:
        """The offset of the first entry whose position is >= ``position`` (Kafka's
        ``fetchUpperBoundOffset``): no batch of a read ending at ``position`` goes past it.
        None when no entry is that far."""
        self.verify()
        i = bisect.bisect_left(self._positions, position)
        if i == len(self._positions):
            return None
        return self.base_offset + self._offsets[i]

    def truncate_to_position(self, position: int) -> None:
        """Drop entries for batches that start at or after ``position``."""
        self.verify()
        keep = bisect.bisect_left(self._positions, position)
        if keep < len(self._positions):
            del self._offsets[keep:]
            del self._positions[keep:]
            self._truncate_file(keep)

    def replace_entries(self, entries: list[tuple[int, int]]) -> int | None:
        """Rewrite the whole index (after a rebuild); returns the old file's size when it held
        entries that were dropped (see ``_replace_file``)."""
        self._raw = None
        self._offsets = array("i", (o - self.base_offset for o, _ in entries))
        self._positions = array("i", (p for _, p in entries))
        return self._replace_file(b"".join(_OFFSET_ENTRY.pack(o - self.base_offset, p) for o, p in entries))


class TimeIndex(_IndexFile):
    """Maps a timestamp to the last offset of the batch that first reached it."""

    entry_size = 12
    buffered = True

    def __init__(
        self, path: Path, base_offset: int, max_index_bytes: int, files: OpenFiles | None = None
    ) -> None:
        super().__init__(path, base_offset, max_index_bytes, files)
        self._timestamps = array("q")  # strictly increasing
        self._offsets = array("i")  # relative offsets, non-decreasing
        self._raw: bytes | None = None

    def __len__(self) -> int:
        if self._raw is not None:
            return len(self._raw) // self.entry_size
        return len(self._timestamps)

    @property
    def is_full(self) -> bool:
        return len(self) >= self.max_entries

    def load(self, max_offset: int | None = None) -> None:
        """Read the file and check its size and last entry; raises :class:`IndexCorrupt`."""
        data = self._read_file()
        if len(data) % self.entry_size:
            raise IndexCorrupt(f"size {len(data)} is not a multiple of {self.entry_size}")
        if data:
            _, rel = _TIME_ENTRY.unpack_from(data, len(data) - self.entry_size)
            if rel < 0 or (max_offset is not None and self.base_offset + rel > max_offset):
                raise IndexCorrupt(f"last entry offset {self.base_offset + rel} lies outside the log")
        self._timestamps, self._offsets = array("q"), array("i")
        self._raw = data

    def verify(self) -> None:
        """Parse the entries and check their order; raises :class:`IndexCorrupt`."""
        if self._raw is None:
            return
        timestamps: array = array("q")
        offsets: array = array("i")
        if self._raw:
            ts, rel = zip(*_TIME_ENTRY.iter_unpack(self._raw), strict=True)
            timestamps, offsets = array("q", ts), array("i", rel)
            if offsets[0] < 0:
                raise IndexCorrupt(f"first entry offset {self.base_offset + offsets[0]} is negative")
        if not (_increasing(timestamps) and _increasing(offsets, strictly=False)):
            raise IndexCorrupt("entries are out of order")
        self._timestamps, self._offsets, self._raw = timestamps, offsets, None

    def last_entry(self) -> tuple[int, int] | None:
        """``(timestamp, offset)`` of the last entry."""
        if self._raw:
            ts, rel = _TIME_ENTRY.unpack_from(self._raw, len(self._raw) - self.entry_size)
            return ts, self.base_offset + rel
        if not self._timestamps:
            return None
        return self._timestamps[-1], self.base_offset + self._offsets[-1]

    def maybe_append(self, timestamp: int, offset: int) -> None:
        """Add an entry when ``timestamp`` is a new maximum; older timestamps add nothing."""
        self.verify()
        if self._timestamps and timestamp <= self._timestamps[-1]:
            return
        rel = offset - self.base_offset
        if self._offsets and rel < self._offsets[-1]:
            raise ValueError(f"time index offset {offset} goes backwards")
        self._timestamps.append(timestamp)
        self._offsets.append(rel)
        self._write(_TIME_ENTRY.pack(timestamp, rel))

    def lookup_before(self, timestamp: int) -> tuple[int, int] | None:
        """The last entry with a timestamp strictly below ``timestamp``, as ``(ts, offset)``.

        Every record at or before that offset is older than ``timestamp``, so a search for
        the first record at ``timestamp`` or later can start just after it.
        """
        self.verify()
        i = bisect.bisect_left(self._timestamps, timestamp) - 1
        if i < 0:
            return None
        return self._timestamps[i], self.base_offset + self._offsets[i]

    def truncate_to_offset(self, offset: int) -> None:
        """Drop entries whose offset is >= ``offset``."""
        self.verify()
        keep = bisect.bisect_left(self._offsets, offset - self.base_offset)
        if keep < len(self._offsets):
            del self._timestamps[keep:]
            del self._offsets[keep:]
            self._truncate_file(keep)

    def replace_entries(self, entries: list[tuple[int, int]]) -> int | None:
        self._raw = None
        self._timestamps = array("q", (ts for ts, _ in entries))
        self._offsets = array("i", (o - self.base_offset for _, o in entries))
        return self._replace_file(b"".join(_TIME_ENTRY.pack(ts, o - self.base_offset) for ts, o in entries))
