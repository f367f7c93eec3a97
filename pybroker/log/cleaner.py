"""Log compaction for topics whose ``cleanup.policy`` includes ``compact`` (Kafka's LogCleaner).

One pass, as in Kafka's ``Cleaner.doClean``:

1. **Pick a log.** Per log, the *dirty* section runs from the checkpointed first dirty offset
   (``cleaner-offset-checkpoint`` in each log dir) up to the first uncleanable offset: the
   active segment, or an earlier segment holding a record newer than
   ``min.compaction.lag.ms``, or holding the log's first unstable offset (an open
   transaction, or one decided but not yet replicated: the cleaner never moves past the last
   stable offset). The log is cleanable when dirty bytes / (clean + dirty bytes)
   exceeds ``min.cleanable.dirty.ratio`` (strictly, as Kafka compares), or when a dirty
   segment's first batch is older than ``max.compaction.lag.ms``. The filthiest log goes first.
2. **Offset map.** Key -> latest offset over the dirty section. Keys are stored as MD5
   digests, as Kafka's ``SkimpyOffsetMap`` does, so memory per key is fixed. When the map is
   full the pass covers only the batches mapped so far and the next pass continues.
3. **Rewrite.** Every segment from the log start to the end of the mapped section is
   rewritten, consecutive segments grouped so a group still fits ``segment.bytes``, the index
   limit and 32-bit relative offsets (``groupSegmentsBySize``). A record survives when it is
   the latest for its key or lies past the mapped section. Offsets never change: a batch that
   loses records is rebuilt with its original base offset, last offset delta, producer id,
   epoch, base sequence, leader epoch, codec and timestamp type.
4. **Swap.** Each group is written to ``<base>.log.cleaned`` with its indexes and swapped in
   by :meth:`Log.replace_segments` (``.swap`` as the commit point, old files ``.deleted``
   and removed after ``file.delete.delay.ms``, so fetches holding slices of them finish).

Rules worth knowing:

* **Tombstones** (a key with a null value) follow KIP-534: the pass that first keeps a
  tombstone stamps its batch with a *delete horizon* of ``now + delete.retention.ms``
  (attribute bit 6; the base timestamp holds the horizon and record timestamps are deltas from
  it, so every client still reads the original timestamps). A later pass at or after the
  horizon drops the tombstone. So a tombstone outlives its cleaning by at least
  ``delete.retention.ms``, whatever the segment's age, which is the guarantee Kafka documents
  for consumers reading from the start. Like Kafka, no pass is scheduled just to expire
  tombstones; one happens when the log is cleanable again.
* **Records without a key** are dropped by the cleaner, as Kafka's cleaner does with such
  ("invalid") records. Produce refuses them on a compacted topic (the validator), so they come
  only from the time the topic was not compacted yet.
* **Producer state.** A batch that loses all its records is kept as an empty batch (header
  only) when it is the last batch of a producer the log still tracks, so its last sequence
  survives a rebuild of the producer state from the log; otherwise it goes. A producer whose
  last record is a transaction marker keeps that marker (its epoch fences zombies).
* **Transactions** (Kafka's ``CleanedTransactionMetadata``): the aborted transactions come
  from the ``.txnindex`` files. Records of aborted transactions never enter the offset map and
  are removed; committed transactional records are compacted like any other. An ABORT marker
  stays, and keeps its ``.txnindex`` entry in the cleaned segment, while the pass still met
  records of its transaction; a marker whose transaction has no records left (an ABORT whose
  records are gone, a COMMIT none of whose records the pass met) is stamped with a delete
  horizon like a tombstone and removed by a pass after it.

Responsiveness: the cleaner runs on the event loop in bounded steps. Each step reads at most
``step_bytes`` of batches (building the map, or filtering into a cleaned file) and the async
drivers yield to the loop between steps; the swap of a group is one short step. Between steps
the log may change under the cleaner (retention, DeleteRecords, truncation, deletion); each
step first checks that the segments it works on are still current and otherwise abandons the
pass, deleting its ``.cleaned`` files. Work is CPU-bound Python (decoding and re-encoding
records), so a worker thread would not run in parallel with the loop anyway.

The parts follow Kafka's: :class:`LogCleaner` (this module) drives passes on the event loop;
:class:`~pybroker.log.cleaner_manager.LogCleanerManager` keeps the cleaner checkpoints and picks
the filthiest log; :class:`~pybroker.log.cleaner_pass.Cleaner` runs one pass (map, filter,
rewrite, swap) over :class:`~pybroker.log.offset_map.OffsetMap`.
"""

from __future__ import annotations

import asyncio
import logging

from pybroker.kernel.clock import Clock
from pybroker.kernel.types import TopicPartition

from .cleaner_pass import Cleaner, CleanerStats
from .log import Log
from .manager import LogManager

logger = logging.getLogger(__name__)

DEFAULT_MAX_MAP_ENTRIES = 1_000_000
DEFAULT_STEP_BYTES = 1 << 20
DEFAULT_BACKOFF_MS = 15_000  # log.cleaner.backoff.ms


class LogCleaner(Cleaner):
    """Compacts the logs of a :class:`LogManager`, one log per pass.

    ``clean_once(now_ms)`` runs a whole pass synchronously (tests, tools);
    ``await clean(now_ms)`` runs the same pass yielding to the event loop between steps;
    ``run(clock)`` is Kafka's cleaner thread as a task: clean the filthiest log, go again at
    once when a pass made progress, otherwise sleep ``backoff_ms``.
    """

    def __init__(
        self,
        log_manager: LogManager,
        *,
        max_map_entries: int = DEFAULT_MAX_MAP_ENTRIES,
        step_bytes: int = DEFAULT_STEP_BYTES,
        backoff_ms: int = DEFAULT_BACKOFF_MS,
    ) -> None:
        if max_map_entries < 1 or step_bytes < 1:
            raise ValueError("max_map_entries and step_bytes must be positive")
        self.log_manager = log_manager
        self.max_map_entries = max_map_entries
        self.step_bytes = step_bytes
        self.backoff_ms = backoff_ms
        self.uncleanable: set[TopicPartition] = set()  # failed with an error; skipped until restart
        #: the last pass that cleaned a log, and how long it took (the cleaner's metrics)
        self.last_stats: CleanerStats | None = None
        self.last_elapsed_s = 0.0
        #: when the last pass (cleaning or not) ended, in ms of the run's clock (-1: never)
        self.last_run_ms = -1
        self._first_dirty: dict[TopicPartition, tuple[Log, int]] | None = None
        log_manager.add_log_replaced_listener(self._on_log_replaced)

    # -- drivers -----------------------------------------------------------------------------

    def clean_once(self, now_ms: int) -> CleanerStats | None:
        """Clean the filthiest log in one go; None when no log needs cleaning."""
        steps = self._pass(now_ms)
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value

    async def clean(self, now_ms: int) -> CleanerStats | None:
        """:meth:`clean_once`, yielding to the event loop after every step."""
        steps = self._pass(now_ms)
        try:
            while True:
                try:
                    next(steps)
                except StopIteration as done:
                    return done.value
                await asyncio.sleep(0)
        finally:
            steps.close()  # cancelled mid-pass: the generator discards its .cleaned files

    async def run(self, clock: Clock) -> None:
        """Clean forever (until cancelled), each pass at the ``clock``'s time."""
        while True:
            started = clock.monotonic()
            try:
                stats = await self.clean(clock.milliseconds())
            except Exception:
                logger.exception("Log cleaner pass failed")
                stats = None
            self.last_run_ms = clock.milliseconds()
            if stats is not None and not stats.aborted:
                self.last_stats = stats
                self.last_elapsed_s = clock.monotonic() - started
            await asyncio.sleep(0 if stats is not None and stats.progressed else self.backoff_ms / 1000)


__all__ = [
    "LogCleaner",
]
