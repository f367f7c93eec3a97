"""The segments of a partition's log on disk (Kafka's ``LocalLog``, with its ``LogSegments``):
the list of segments and their base offsets, the failure of the log's dir (KIP-112: Kafka's
``maybeHandleIOException`` and ``closeHandlers``) and the cleaner's swap of cleaned segments.
:class:`~pybroker.log.log.Log` is built on it."""

from __future__ import annotations

import bisect
import functools
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from protocol.errors import KafkaError

from .checkpoints import fsync_dir
from .config import LogConfig
from .dir_failure import LogDirFailureChannel, storage_error
from .leader_epoch import LeaderEpochFileCache
from .producer_state import ProducerStateManager
from .segment import INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, LogSegment, file_name
from .txn_index import TXN_INDEX_SUFFIX

# the log logs under one name, whichever of its parts speaks
logger = logging.getLogger("pybroker.log.log")

_TEMP_SUFFIXES = (".tmp", ".deleted", ".cleaned", ".swap")
_INDEX_SUFFIXES = (INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX)
_SEGMENT_SUFFIXES = (LOG_SUFFIX, *_INDEX_SUFFIXES)


_F = TypeVar("_F", bound=Callable[..., Any])


def storage_operation(what: str) -> Callable[[_F], _F]:
    """A :class:`Log` operation that touches the disk, as Kafka's ``maybeHandleIOException``:
    on a log whose dir went offline it fails at once with KAFKA_STORAGE_ERROR; an I/O error
    (``OSError``) reports the dir's failure and fails the operation with KAFKA_STORAGE_ERROR
    ("``what`` <partition> in dir <log dir>")."""
    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def operation(self: LocalLog, *args: Any, **kwargs: Any) -> Any:
            if self.offline:
                raise self._offline_error()
            try:
                return fn(self, *args, **kwargs)
            except OSError as e:
                raise self.storage_failure(what, e) from e
        return operation  # type: ignore[return-value]
    return wrap


class LocalLog:
    """A log's segments and what is done to them as a whole. :class:`~pybroker.log.log.Log`
    sets the state below in its ``__init__``."""

    dir: Path
    config: LogConfig
    topic: str
    partition: int
    segments: list[LogSegment]
    _bases: list[int]
    log_start_offset: int
    log_end_offset: int
    recovery_point: int
    producer_state: ProducerStateManager
    _closed: bool
    _pending_deletes: list[tuple[int, LogSegment]]
    _swapped_bases: set[int]
    leader_epoch_cache: LeaderEpochFileCache
    failures: LogDirFailureChannel | None
    offline: bool

    # -- the segments ----------------------------------------------------------------------

    def _recover_segment(self, segment: LogSegment) -> int:
        dropped, reason = segment.recover()
        if dropped:
            logger.warning(
                "%s: %s: dropped %d bytes at position %d (%s)",
                self._name, segment.log_path.name, dropped, segment.size, reason,
            )
        segment.flush()
        return dropped

    def _drop_segments_after(self, index: int) -> None:
        for segment in self.segments[index + 1 :]:
            logger.warning(
                "%s: deleting segment %s (%d bytes) after the recovered tail",
                self._name, segment.log_path.name, segment.size,
            )
            segment.delete()
        del self.segments[index + 1 :]
        del self._bases[index + 1 :]

    def _reset_at(self, offset: int, now_ms: int) -> None:
        """Drop every segment and start an empty log at ``offset``."""
        for segment in self.segments:
            segment.delete()
        self.segments, self._bases = [], []
        self._add_segment(LogSegment(self.dir, offset, self.config, now_ms))
        self.log_start_offset = self.log_end_offset = offset
        self.producer_state.delete_snapshots_after(-1)
        self.producer_state.clear()

    def _add_segment(self, segment: LogSegment) -> None:
        self.segments.append(segment)
        self._bases.append(segment.base_offset)

    def _segments_from(self, offset: int) -> list[LogSegment]:
        i = max(0, bisect.bisect_right(self._bases, offset) - 1)
        return self.segments[i:]

    @property
    def _name(self) -> str:
        return f"{self.topic}-{self.partition}"

    # -- log dir failures ------------------------------------------------------------------

    def storage_failure(self, what: str, error: OSError) -> KafkaError:
        """Report an I/O error met while doing ``what`` as the failure of this log's dir; the
        KAFKA_STORAGE_ERROR to fail the operation with."""
        message = f"{what} {self._name} in dir {self.dir.parent}"
        if self.failures is not None:
            # this log takes nothing more at once; the rest of the dir follows when the
            # broker's handler takes it offline
            self.offline = True
            self.failures.maybe_add_offline_log_dir(self.dir.parent, message, error)
        return storage_error(f"{message}: {error}")

    def _offline_error(self) -> KafkaError:
        return storage_error(f"The log dir {self.dir.parent} of {self._name} is offline")

    def mark_offline(self) -> None:
        """The log's dir failed (Kafka's ``closeHandlers``): close the files without writing
        anything more (no index entries kept in memory, no producer snapshot, no fsync); from
        now on every operation fails with KAFKA_STORAGE_ERROR. A restart recovers the log from
        its last recovery point."""
        self.offline = True
        if self._closed:
            return
        self._closed = True
        for segment in [*self.segments, *(s for _, s in self._pending_deletes)]:
            try:
                segment.close(final_time_entry=False)
            except OSError as e:
                logger.debug("%s: closing %s: %s", self._name, segment.log_path.name, e)
        self._pending_deletes.clear()

    # -- properties ------------------------------------------------------------------------

    @property
    def active_segment(self) -> LogSegment:
        return self.segments[-1]

    @property
    def size_in_bytes(self) -> int:
        return sum(s.size for s in self.segments)

    def _delete_due_segments(self, now_ms: int) -> None:
        keep = []
        for due, segment in self._pending_deletes:
            if due <= now_ms:
                segment.delete()
            else:
                keep.append((due, segment))
        self._pending_deletes = keep

    # -- compaction ------------------------------------------------------------------------
    #
    # The cleaner writes a group's survivors to ``<base>.log.cleaned`` (+ ``.index.cleaned``,
    # ``.timeindex.cleaned``), ``base`` being the group's first segment, then calls
    # :meth:`replace_segments`. The swap is Kafka's: renaming the log to ``.log.swap`` is the
    # commit point; after it the old segments go ``.deleted`` and the new files take their
    # final names. A crash before the commit leaves ``.cleaned`` files that start-up deletes;
    # a crash after it leaves a ``.log.swap`` that start-up completes.

    CLEANED_SUFFIX = ".cleaned"
    SWAP_SUFFIX = ".swap"

    def is_cleanable_run(self, segments: Sequence[LogSegment]) -> bool:
        """Whether ``segments`` are still consecutive inactive segments of this open log
        (retention, truncation or a close since the cleaner looked make them stale)."""
        if self._closed or not segments:
            return False
        try:
            i = next(i for i, s in enumerate(self.segments) if s is segments[0])
        except StopIteration:
            return False
        run = self.segments[i : i + len(segments)]
        return i + len(segments) < len(self.segments) and all(a is b for a, b in zip(run, segments, strict=True))

    @storage_operation("Error while replacing cleaned segments of")
    def replace_segments(self, old: Sequence[LogSegment], now_ms: int) -> LogSegment | None:
        """Swap the cleaned files of ``old[0].base_offset`` in for the segments ``old``.

        Returns the new segment, or None (nothing touched) when ``old`` is no longer a run of
        inactive segments of this log. The old files are renamed ``*.deleted`` and removed
        ``file.delete.delay.ms`` later, so fetches holding slices of them still finish.
        """
        if not self.is_cleanable_run(old):
            return None
        base = old[0].base_offset
        cleaned = {suffix: self.dir / (file_name(base, suffix) + self.CLEANED_SUFFIX)
                   for suffix in _SEGMENT_SUFFIXES}
        swap = self.dir / (file_name(base, LOG_SUFFIX) + self.SWAP_SUFFIX)
        os.replace(cleaned[LOG_SUFFIX], swap)
        fsync_dir(self.dir)  # committed: from here on start-up completes the swap
        for segment in old:
            segment.mark_deleted()
            self._pending_deletes.append((now_ms + self.config.file_delete_delay_ms, segment))
        for suffix in _INDEX_SUFFIXES:
            if cleaned[suffix].exists():
                os.replace(cleaned[suffix], self.dir / file_name(base, suffix))
        os.replace(swap, self.dir / file_name(base, LOG_SUFFIX))
        fsync_dir(self.dir)

        segment = LogSegment(self.dir, base, self.config, now_ms)
        problem = segment.load(verify_indexes=True)
        if problem is not None:
            logger.warning("%s: cleaned segment: %s; rebuilding its indexes", self._name, problem)
            self._recover_segment(segment)
        i = next(i for i, s in enumerate(self.segments) if s is old[0])
        self.segments[i : i + len(old)] = [segment]
        self._bases[i : i + len(old)] = [base]
        return segment


__all__ = [
    "LocalLog",
    "storage_operation",
]
