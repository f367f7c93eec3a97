"""The transaction index of one log segment: ``<base offset>.txnindex``, Kafka's format.

One entry per aborted transaction whose ABORT marker lies in the segment, in the order the
markers were written (Kafka's ``AbortedTxn``, 34 bytes, big-endian)::

    version           int16  = 0
    producerId        int64
    firstOffset       int64  the transaction's first offset in this partition
    lastOffset        int64  the offset of its ABORT marker
    lastStableOffset  int64  the last stable offset once the marker was written

A consumer reading committed data gets, with each fetch, the aborted transactions whose
records overlap what it was sent, and drops their records itself (KIP-98). Those are found
segment by segment from the one the fetch starts in (:func:`collect_aborted_txns`): an entry
overlaps when its marker is at or after the fetch offset and its first offset below the upper
bound of the fetch; the search ends at the first entry whose last stable offset reaches the
upper bound, since every later entry's transaction starts after it.

The file is created with its first entry, so a segment without aborted transactions has none;
the entries are kept in memory after the first read (they are few: one per abort).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from .file_slice import OpenFiles
from .index import IndexCorrupt, _IndexFile

TXN_INDEX_SUFFIX = ".txnindex"
ABORTED_TXN_VERSION = 0
_ENTRY = struct.Struct(">hqqqq")
ENTRY_SIZE = _ENTRY.size  # 34


@dataclass(frozen=True, slots=True)
class AbortedTxn:
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int
    version: int = ABORTED_TXN_VERSION

    def to_bytes(self) -> bytes:
        return _ENTRY.pack(self.version, self.producer_id, self.first_offset, self.last_offset,
                           self.last_stable_offset)


@dataclass(frozen=True, slots=True)
class TxnIndexSearchResult:
    aborted: list[AbortedTxn]
    #: the search need not go on to later segments
    is_complete: bool


def parse_entries(data: bytes) -> list[AbortedTxn]:
    """The entries of a ``.txnindex`` file; IndexCorrupt for a torn one or an unknown
    version."""
    if len(data) % ENTRY_SIZE:
        raise IndexCorrupt(f"transaction index of {len(data)} bytes is not a whole number of "
                           f"{ENTRY_SIZE}-byte entries")
    out = []
    for pos in range(0, len(data), ENTRY_SIZE):
        version, pid, first, last, lso = _ENTRY.unpack_from(data, pos)
        if version != ABORTED_TXN_VERSION:
            raise IndexCorrupt(f"aborted transaction entry of unknown version {version}")
        out.append(AbortedTxn(pid, first, last, lso, version))
    return out


class TransactionIndex(_IndexFile):
    """The aborted transactions whose ABORT marker is in one segment."""

    entry_size = ENTRY_SIZE

    def __init__(self, path: Path, base_offset: int, files: OpenFiles | None = None) -> None:
        super().__init__(path, base_offset, 1 << 62, files)
        self._entries: list[AbortedTxn] | None = None

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def entries(self) -> list[AbortedTxn]:
        """Every entry, read from the file on first use."""
        if self._entries is None:
            self._entries = parse_entries(self._read_file())
        return self._entries

    def sanity_check(self) -> None:
        """IndexCorrupt when the file is not whole entries of a known version."""
        self._entries = None
        _ = self.entries

    def append(self, txn: AbortedTxn) -> None:
        entries = self.entries
        if entries and txn.last_offset <= entries[-1].last_offset:
            raise ValueError(f"The last offset of appended transactions must increase "
                             f"sequentially, but {txn.last_offset} is not greater than current "
                             f"last offset {entries[-1].last_offset} of index {self.path.name}")
        self._write(txn.to_bytes())
        entries.append(txn)

    def truncate_to(self, offset: int) -> None:
        """Drop the entries of markers at or after ``offset``."""
        entries = self.entries
        keep = len(entries)
        while keep and entries[keep - 1].last_offset >= offset:
            keep -= 1
        if keep < len(entries):
            self.close()
            self._truncate_file(keep)
            del entries[keep:]

    def reset(self) -> None:
        """Empty the index (recovery rebuilds it from the segment's markers)."""
        self.delete()
        self._entries = []

    def replace_all(self, entries: list[AbortedTxn]) -> None:
        """Write exactly ``entries`` (the cleaner's copy of a cleaned segment's index)."""
        data = b"".join(e.to_bytes() for e in entries)
        if data:
            self._replace_file(data)
        else:
            self.delete()
        self._entries = list(entries)

    def collect(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        """Kafka's ``collectAbortedTxns``: the entries overlapping [fetch offset, upper
        bound)."""
        found = []
        for txn in self.entries:
            if txn.last_offset >= fetch_offset and txn.first_offset < upper_bound_offset:
                found.append(txn)
            if txn.last_stable_offset >= upper_bound_offset:
                return TxnIndexSearchResult(found, True)
        return TxnIndexSearchResult(found, False)

    def delete(self) -> None:
        super().delete()
        self._entries = []
