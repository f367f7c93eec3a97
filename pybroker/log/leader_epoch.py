"""The leader epoch cache of one partition log and its ``leader-epoch-checkpoint`` file
(Kafka's ``LeaderEpochFileCache`` and ``LeaderEpochCheckpointFile``).

The cache maps each leader epoch to the first offset written in it, e.g. ``{0: 0, 2: 150,
5: 312}``: epochs 1, 3 and 4 wrote nothing. Leaders stamp their epoch into every batch they
append (``partitionLeaderEpoch``), so the map can always be rebuilt from the batch headers; the
file keeps it cheap to load. It is what replicas compare to find where their logs part
(OffsetForLeaderEpoch, a follower's ``LastFetchedEpoch``), so that a follower truncates only
what its leader never had (KIP-101, KIP-279).

The rules, as in Kafka:

* :meth:`LeaderEpochFileCache.assign` ``(e, o)`` does nothing when ``e`` is already the latest
  epoch and ``o`` is not below its start; otherwise it drops every entry whose epoch is ``>= e``
  or whose start is ``>= o`` and adds ``(e, o)``. Called by a new leader with ``(epoch, log end
  offset)``, and on every append with each batch's epoch and base offset.
* :meth:`~LeaderEpochFileCache.truncate_from_end` ``(x)`` drops the entries starting at or
  after ``x`` (the log was truncated to ``x``, or an epoch has no data past the log end).
* :meth:`~LeaderEpochFileCache.truncate_from_start` ``(y)`` drops the entries starting at or
  below ``y`` and puts the last of them back starting at ``y`` (the log start moved to ``y``).
* :meth:`~LeaderEpochFileCache.end_offset_for` answers OffsetForLeaderEpoch (§12.2 of the
  cluster notes).

The file sits in the partition directory and reads::

    0          <- format version
    3          <- entry count
    0 0        <- epoch start offset
    2 150
    5 312

It is rewritten whole on every change: ``leader-epoch-checkpoint.tmp``, fsync, rename, fsync of
the directory, so a crash leaves the old or the new file. Changes are rare (a new epoch, a
truncation, a move of the log start) but come in bursts: a broker that becomes leader of a
thousand partitions assigns a thousand epochs. A broker therefore hands the writes to its
storage thread (``io``, :class:`~pybroker.log.manager.BackgroundIO`), which does them in the
order they were asked for, each one the whole cache as it was then; only a cache without ``io``
writes at once. Kafka writes an assignment at once (on a request handler thread, never the
network's) and a truncation later; here neither may hold up the event loop.

What a crash can lose is the last writes not yet done. That is safe because:

* the storage thread also writes ``recovery-point-offset-checkpoint``, in the same order, so
  no recovery point on disk passes data whose epoch entry is not on disk before it;
* a log loaded after a crash re-reads every batch past its recovery point, and its cache then
  gains each epoch found there above the cache's latest (as in Kafka's segment recovery),
  after being cut to the recovered log end;
* a clean shutdown drains the storage thread before it writes the clean-shutdown markers.

Concurrency notes: owned by the log's event loop; nothing here awaits. Only the file write runs
elsewhere, with a copy of the entries and a descriptor of the directory taken on the loop.
"""

from __future__ import annotations

import bisect
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .checkpoints import (
    CHECKPOINT_VERSION,
    CheckpointError,
    atomic_write,
    atomic_write_at,
    open_dir,
)

logger = logging.getLogger(__name__)

#: runs ``fn(*args)`` later, off the event loop, in the order asked (``BackgroundIO.submit``)
Submit = Callable[..., object]

LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"
#: OffsetForLeaderEpoch's "no such epoch" answer: (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


@dataclass(frozen=True, slots=True)
class EpochEntry:
    epoch: int
    start_offset: int


def format_leader_epoch_checkpoint(entries: Iterable[EpochEntry]) -> bytes:
    items = list(entries)
    lines = [str(CHECKPOINT_VERSION), str(len(items))]
    lines += [f"{e.epoch} {e.start_offset}" for e in items]
    return ("\n".join(lines) + "\n").encode()


def read_leader_epoch_checkpoint(path: Path) -> list[EpochEntry] | None:
    """The entries of a ``leader-epoch-checkpoint`` file; None when there is no file. An empty
    file (Kafka creates one with each log) holds no entries. Anything else that does not parse
    raises :class:`CheckpointError`."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as e:
        raise CheckpointError(f"{path}: {e}") from None
    if not text:
        return []
    lines = text.splitlines()
    try:
        if int(lines[0]) != CHECKPOINT_VERSION:
            raise CheckpointError(f"{path}: unrecognised version {lines[0]!r}")
        count = int(lines[1]) if len(lines) > 1 else -1
        entries = [line for line in lines[2:] if line.strip()]
        if count < 0 or len(entries) != count:
            raise CheckpointError(f"{path}: expected {count} entries, found {len(entries)}")
        result = []
        for line in entries:
            fields = line.split()
            if len(fields) != 2:
                raise CheckpointError(f"{path}: malformed entry {line!r}")
            result.append(EpochEntry(int(fields[0]), int(fields[1])))
    except ValueError as e:
        if isinstance(e, CheckpointError):
            raise
        raise CheckpointError(f"{path}: {e}") from None
    return result


class LeaderEpochFileCache:
    """Epochs in increasing order, each with the first offset written in it, kept in ``path``
    (None: in memory only). Entries read from a file go through :meth:`assign`'s rules, so a
    file whose entries are out of order loads as the consistent prefix Kafka keeps."""

    def __init__(self, path: Path | None, entries: Iterable[EpochEntry] = (), *,
                 io: Submit | None = None) -> None:
        self.path = path
        self.io = io
        self._entries: list[EpochEntry] = []
        self._epochs: list[int] = []  # the entries' epochs, for bisect
        for entry in entries:
            self._assign(entry)

    def __repr__(self) -> str:
        body = ", ".join(f"{e.epoch}:{e.start_offset}" for e in self._entries)
        return f"LeaderEpochFileCache({{{body}}})"

    # -- reading ---------------------------------------------------------------------------
    @property
    def entries(self) -> tuple[EpochEntry, ...]:
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def latest_entry(self) -> EpochEntry | None:
        return self._entries[-1] if self._entries else None

    @property
    def latest_epoch(self) -> int | None:
        return self._entries[-1].epoch if self._entries else None

    @property
    def earliest_entry(self) -> EpochEntry | None:
        return self._entries[0] if self._entries else None

    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> tuple[int, int]:
        """``(epoch, end offset)`` of ``requested_epoch`` as OffsetForLeaderEpoch answers it:
        the largest known epoch not above it and the start of the next known epoch (the log end
        offset when it is the latest epoch); ``(-1, -1)`` when it is undefined (-1, or above
        every known epoch); ``(requested_epoch, start of the first epoch)`` when it is below
        every known epoch, whose data is gone anyway."""
        if requested_epoch == UNDEFINED_EPOCH or not self._entries:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if requested_epoch == self._entries[-1].epoch:
            return requested_epoch, log_end_offset
        higher = bisect.bisect_right(self._epochs, requested_epoch)
        if higher == len(self._entries):
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if higher == 0:
            return requested_epoch, self._entries[0].start_offset
        return self._entries[higher - 1].epoch, self._entries[higher].start_offset

    # -- changes ---------------------------------------------------------------------------
    def assign(self, epoch: int, start_offset: int) -> bool:
        """Record that ``epoch`` starts at ``start_offset``; written out when it changed
        anything. Returns whether it did."""
        if self._entries:  # the common case, every append in the current epoch: no change
            latest = self._entries[-1]
            if epoch == latest.epoch and start_offset >= latest.start_offset:
                return False
        if not self._assign(EpochEntry(epoch, start_offset)):
            return False
        self.flush()
        return True

    def _assign(self, entry: EpochEntry) -> bool:
        if entry.epoch < 0 or entry.start_offset < 0:
            raise ValueError(f"invalid partition leader epoch entry {entry}")
        latest = self.latest_entry
        if latest is not None and entry.epoch == latest.epoch \
                and entry.start_offset >= latest.start_offset:
            return False
        removed = self._remove_from_end(
            lambda e: e.epoch >= entry.epoch or e.start_offset >= entry.start_offset)
        if len(removed) > 1 or (removed and removed[0].start_offset != entry.start_offset):
            logger.warning("%s: new epoch entry %s replaced %s", self._name, entry, removed)
        self._entries.append(entry)
        self._epochs.append(entry.epoch)
        return True

    def truncate_from_end(self, end_offset: int) -> bool:
        """Drop the entries that start at or after ``end_offset``. Returns whether any went."""
        latest = self.latest_entry
        if end_offset < 0 or latest is None or latest.start_offset < end_offset:
            return False
        removed = self._remove_from_end(lambda e: e.start_offset >= end_offset)
        logger.debug("%s: truncated epochs from end offset %d: removed %s", self._name,
                     end_offset, removed)
        self.flush()
        return True

    def truncate_from_start(self, start_offset: int) -> bool:
        """The log now starts at ``start_offset``: drop the entries starting at or below it and
        let the last of them start there. Returns whether anything changed."""
        keep_from = 0
        while keep_from < len(self._entries) and \
                self._entries[keep_from].start_offset <= start_offset:
            keep_from += 1
        if keep_from == 0:
            return False
        first = EpochEntry(self._entries[keep_from - 1].epoch, start_offset)
        if keep_from == 1 and self._entries[0] == first:
            return False
        self._entries[:keep_from] = [first]
        self._epochs[:keep_from] = [first.epoch]
        logger.debug("%s: truncated epochs from start offset %d: first entry now %s",
                     self._name, start_offset, first)
        self.flush()
        return True

    def clear_and_flush(self) -> None:
        self._entries.clear()
        self._epochs.clear()
        self.flush()

    def _remove_from_end(self, doomed: Callable[[EpochEntry], bool]) -> list[EpochEntry]:
        removed: list[EpochEntry] = []
        while self._entries and doomed(self._entries[-1]):
            removed.append(self._entries.pop())
            self._epochs.pop()
        removed.reverse()
        return removed

    # -- the file --------------------------------------------------------------------------
    def flush(self) -> None:
        """Write the whole cache to its file (atomically, fsynced): through ``io`` when there is
        one, else at once."""
        if self.path is None:
            return
        data = format_leader_epoch_checkpoint(self._entries)
        if self.io is None:
            atomic_write(self.path, data)
            return
        try:
            dir_fd = open_dir(self.path.parent)
        except FileNotFoundError:
            return  # the log's directory is gone, and its epochs with it
        try:
            self.io(_write_in_dir, dir_fd, self.path.name, data, self._name)
        except BaseException:
            os.close(dir_fd)
            raise

    @property
    def _name(self) -> str:
        return self.path.parent.name if self.path is not None else "leader epoch cache"


def _write_in_dir(dir_fd: int, name: str, data: bytes, label: str) -> None:
    """The storage thread's half of :meth:`LeaderEpochFileCache.flush`."""
    try:
        atomic_write_at(dir_fd, name, data)
    except FileNotFoundError:
        logger.debug("%s: directory removed before its leader epoch checkpoint was written",
                     label)
    except OSError:
        logger.exception("%s: writing the leader epoch checkpoint failed", label)


__all__ = [
    "Submit",
    "LEADER_EPOCH_CHECKPOINT",
    "UNDEFINED_EPOCH",
    "UNDEFINED_EPOCH_OFFSET",
    "EpochEntry",
    "LeaderEpochFileCache",
    "format_leader_epoch_checkpoint",
    "read_leader_epoch_checkpoint",
]
