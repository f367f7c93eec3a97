"""Producer state of one partition log: producer id -> epoch, recent batches and transaction.

The rules are Kafka's (``ProducerStateManager`` / ``ProducerAppendInfo``):

* a batch without a producer id is not checked;
* an unknown producer id is accepted at any sequence (there is no state to compare with);
* an epoch below the known one is ``INVALID_PRODUCER_EPOCH``;
* a newer epoch must start at sequence 0, else ``OUT_OF_ORDER_SEQUENCE_NUMBER``;
* within an epoch, a batch equal in sequence range to one of the last five is a duplicate and
  is answered with the original offsets; otherwise it must start at last sequence + 1
  (wrapping from 2**31-1 to 0), else ``OUT_OF_ORDER_SEQUENCE_NUMBER``. Sequences and duplicates
  are checked for clients' batches only; the coordinators' own appends are checked for epochs.

Transactions (KIP-98), as Kafka tracks them:

* a transactional batch opens the producer's transaction at its first offset, or continues the
  one that is open; a non-transactional batch of a producer with an open transaction is
  ``INVALID_TXN_STATE``;
* a COMMIT or ABORT marker ends it. A marker from a coordinator epoch below the last one seen
  for the producer is ``TRANSACTION_COORDINATOR_FENCED``, one with a producer epoch below the
  producer's ``INVALID_PRODUCER_EPOCH`` (both only logged for replicated markers, which the
  leader has already checked). A marker of a producer with an open transaction completes it
  (:class:`CompletedTxn`); a marker without one (a transaction with no data here) changes no
  offsets;
* an open transaction holds the partition's *first unstable offset* at its first offset; a
  completed one keeps holding it until the high watermark passes its marker (Kafka's
  "unreplicated transactions"), so a consumer reading committed data never sees a transaction's
  outcome before it is replicated. The last stable offset is the smaller of the first unstable
  offset and the high watermark (:meth:`ProducerStateManager.last_stable_offset`);
* producers with an open transaction never expire.

Transaction verification (KIP-890 part 1, with ``transaction.partition.verification.enable``):

* before the leader appends a producer's first transactional batch of a transaction here (no
  transaction open for it in this partition), it asks the transaction coordinator whether the
  partition is in the transaction. :meth:`ProducerStateManager.maybe_start_transaction_verification`
  starts that: it keeps a :class:`VerificationStateEntry` for the producer whose
  :class:`VerificationGuard` the append must then present;
* a transactional batch from a client or a coordinator without an open transaction and without
  the entry's guard is ``INVALID_TXN_STATE``: a marker written while the verification was on its
  way has removed the entry (any transactional batch or marker does), so a stale answer can
  never open a transaction the coordinator no longer knows (Kafka's ``VerificationGuard``);
* while the entry lives, a client's batch with a sequence above the lowest one seen in it is
  ``OUT_OF_ORDER_SEQUENCE_NUMBER``, so a later batch cannot overtake a first one whose
  verification failed and is retried. Entries are not persisted, survive truncation, and
  expire as producers do.

The state is rebuilt on open from a ``<offset>.snapshot`` file plus the batch headers (and the
markers) after that offset. Snapshot layout (big-endian), this module's own::

    magic "PBPS" | version u16 = 2 | crc32c u32 of everything after it | count i32
    count x [ producerId i64 | epoch i16 | lastTimestamp i64 | coordinatorEpoch i32 |
              currentTxnFirstOffset i64 | n i8 |
              n x (firstSeq i32 | lastSeq i32 | firstOffset i64 | lastOffset i64 | timestamp i64) ]

Version 1 (read, never written) had no ``coordinatorEpoch`` and ``currentTxnFirstOffset``.
"""

from __future__ import annotations

import enum
import itertools
import logging
import os
import struct
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from crc32c import crc32c

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import NO_SEQUENCE, TRANSACTIONAL_MASK, BatchHeader
from protocol.records.control import EndTransactionMarker

from .checkpoints import atomic_write, fsync_paths

logger = logging.getLogger(__name__)

MAX_CACHED_BATCHES = 5
SNAPSHOT_SUFFIX = ".snapshot"
SNAPSHOTS_KEPT = 3
PRODUCER_ID_EXPIRATION_MS = 86_400_000  # Kafka's producer.id.expiration.ms
NO_OFFSET = -1
NO_COORDINATOR_EPOCH = -1
NO_PRODUCER_EPOCH = -1

_MAGIC = b"PBPS"
_VERSION = 2
_PREFIX = struct.Struct(">4sHI")
_COUNT = struct.Struct(">i")
_PRODUCER_V1 = struct.Struct(">qhqb")
_PRODUCER = struct.Struct(">qhqiqb")
_BATCH = struct.Struct(">iiqqq")


class AppendOrigin(enum.Enum):
    """Who appends a batch (Kafka's ``AppendOrigin``): a client's Produce, the broker's own
    coordinators (group metadata and offsets, transaction markers) or a follower copying its
    leader. Control batches come only from the coordinator; sequence numbers and duplicates are
    checked for clients only; a replicated batch is never refused here."""

    CLIENT = "client"
    COORDINATOR = "coordinator"
    REPLICATION = "replication"


class SnapshotCorrupt(Exception):
    pass


@dataclass(frozen=True, slots=True)
class BatchMetadata:
    first_seq: int
    last_seq: int
    first_offset: int
    last_offset: int
    timestamp: int


@dataclass(frozen=True, slots=True)
class CompletedTxn:
    """A transaction a marker has just ended: its first offset and the marker's offset."""

    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


@dataclass(slots=True)
class ProducerEntry:
    producer_id: int
    epoch: int
    last_timestamp: int = -1
    batches: deque[BatchMetadata] = field(default_factory=lambda: deque(maxlen=MAX_CACHED_BATCHES))
    #: the epoch of the coordinator that wrote this producer's last marker
    coordinator_epoch: int = NO_COORDINATOR_EPOCH
    #: the first offset of the producer's open transaction; -1 when none is open
    current_txn_first_offset: int = NO_OFFSET

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else NO_SEQUENCE

    def find_duplicate(self, first_seq: int, last_seq: int) -> BatchMetadata | None:
        for batch in self.batches:
            if batch.first_seq == first_seq and batch.last_seq == last_seq:
                return batch
        return None

    def update_epoch(self, epoch: int) -> None:
        """A new epoch forgets the batches of the old one (Kafka's
        ``maybeUpdateProducerEpoch``)."""
        if epoch != self.epoch:
            self.batches.clear()
            self.epoch = epoch


class VerificationGuard:
    """A token unique to one verification of a producer's transaction on one partition (Kafka's
    ``VerificationGuard``): the append that follows the coordinator's answer presents it, and it
    holds only while the state entry that made it is still there."""

    __slots__ = ("value",)
    _values = itertools.count(1)

    def __init__(self) -> None:
        self.value = next(VerificationGuard._values)

    def verify(self, presented: VerificationGuard | None) -> bool:
        return presented is self

    def __repr__(self) -> str:
        return f"VerificationGuard({self.value})"


@dataclass(slots=True)
class VerificationStateEntry:
    """A producer's verification in progress on one partition (Kafka's
    ``VerificationStateEntry``): its guard, when it started, and the lowest sequence (of the
    newest epoch) seen while verifying."""

    timestamp: int
    lowest_sequence: int
    epoch: int
    guard: VerificationGuard = field(default_factory=VerificationGuard)

    def maybe_update_lowest_sequence_and_epoch(self, sequence: int, epoch: int) -> None:
        """A lower sequence of the same epoch lowers the bar; a newer epoch resets it."""
        if epoch == self.epoch and sequence < self.lowest_sequence:
            self.lowest_sequence = sequence
        if epoch > self.epoch:
            self.epoch = epoch
            self.lowest_sequence = sequence


def _in_sequence(last_seq: int, next_seq: int) -> bool:
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == 0x7FFFFFFF)


def snapshot_path(dir: Path, offset: int) -> Path:
    return dir / f"{offset:020d}{SNAPSHOT_SUFFIX}"


class ProducerStateManager:
    """Per-log producer table, open transactions, and Kafka-like snapshot files in the
    partition directory."""

    def __init__(self, dir: Path) -> None:
        self.dir = dir
        self.producers: dict[int, ProducerEntry] = {}
        #: open transactions: first offset -> producer id
        self.ongoing_txns: dict[int, int] = {}
        #: completed transactions whose marker the high watermark has not passed yet:
        #: first offset -> marker offset
        self.unreplicated_txns: dict[int, int] = {}
        #: whether transactional batches need a verified guard to open a transaction
        #: (``transaction.partition.verification.enable``, set by the replica manager)
        self.transaction_verification_enabled = False
        #: producer id -> its verification in progress (kept across truncation, never
        #: persisted)
        self.verification_states: dict[int, VerificationStateEntry] = {}

    def __len__(self) -> int:
        return len(self.producers)

    # -- validation ------------------------------------------------------------------------

    def check(self, header: BatchHeader, origin: AppendOrigin = AppendOrigin.CLIENT,
              verification_guard: VerificationGuard | None = None) -> BatchMetadata | None:
        """Validate a data batch before it is appended on the leader; returns the original
        batch when a client's batch is a duplicate. ``verification_guard``: the guard of the
        verification the append follows, if any (see the module's notes)."""
        pid = header.producer_id
        if pid < 0:
            return None
        entry = self.producers.get(pid)
        epoch, first_seq = header.producer_epoch, header.base_sequence
        client = origin is AppendOrigin.CLIENT
        if client and entry is not None and epoch == entry.epoch:
            duplicate = entry.find_duplicate(first_seq, header.last_sequence)
            if duplicate is not None:
                return duplicate
        if (header.attributes & TRANSACTIONAL_MASK and self.transaction_verification_enabled
                and origin is not AppendOrigin.REPLICATION
                and (entry is None or entry.current_txn_first_offset < 0)):
            verifying = self.verification_states.get(pid)
            if verifying is None or not verifying.guard.verify(verification_guard):
                raise KafkaError(ErrorCode.INVALID_TXN_STATE,
                                 "Record was not part of an ongoing transaction")
        if entry is not None and epoch < entry.epoch:
            self._check_producer_epoch(entry, epoch, header.base_offset, origin)
        if client and self.verification_states:
            verifying = self.verification_states.get(pid)
            if verifying is not None and first_seq > verifying.lowest_sequence:
                raise KafkaError(
                    ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                    f"Out of order sequence number for producer {pid}: {first_seq} (incoming "
                    f"seq. number), {verifying.lowest_sequence} (earliest seen sequence)",
                )
        if entry is None:
            return None
        if client:
            if epoch > entry.epoch:
                if first_seq != 0 and entry.epoch != NO_PRODUCER_EPOCH:
                    raise KafkaError(
                        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                        f"Invalid sequence number for new epoch {epoch} of producer "
                        f"{header.producer_id}: {first_seq} (expected 0)",
                    )
            elif not _in_sequence(entry.last_seq, first_seq):
                raise KafkaError(
                    ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                    f"Out of order sequence number for producer {header.producer_id}: "
                    f"{first_seq} (incoming seq. number), {entry.last_seq} (current end "
                    f"sequence number)",
                )
        if entry.current_txn_first_offset >= 0 and not header.attributes & TRANSACTIONAL_MASK:
            raise KafkaError(
                ErrorCode.INVALID_TXN_STATE,
                f"Expected transactional write from producer {header.producer_id}: its "
                f"transaction is open since offset {entry.current_txn_first_offset}",
            )
        return None

    def check_marker(self, header: BatchHeader, marker: EndTransactionMarker,
                     origin: AppendOrigin = AppendOrigin.COORDINATOR) -> None:
        """Validate a transaction marker (Kafka's ``checkProducerEpoch`` and
        ``checkCoordinatorEpoch``); a replicated one is only logged."""
        entry = self.producers.get(header.producer_id)
        if entry is None:
            return
        self._check_producer_epoch(entry, header.producer_epoch, header.base_offset, origin)
        if entry.coordinator_epoch > marker.coordinator_epoch:
            message = (f"Invalid coordinator epoch for producerId {header.producer_id}: "
                       f"{marker.coordinator_epoch} (zombie), {entry.coordinator_epoch} "
                       f"(current)")
            if origin is AppendOrigin.REPLICATION:
                logger.info("%s: %s", self.dir.name, message)
            else:
                raise KafkaError(ErrorCode.TRANSACTION_COORDINATOR_FENCED, message)

    def _check_producer_epoch(self, entry: ProducerEntry, epoch: int, offset: int,
                              origin: AppendOrigin) -> None:
        if epoch >= entry.epoch:
            return
        message = (f"Epoch of producer {entry.producer_id} at offset {offset} in "
                   f"{self.dir.name} is {epoch}, which is smaller than the last seen epoch "
                   f"{entry.epoch}")
        if origin is AppendOrigin.REPLICATION:
            logger.warning(message)
            return
        raise KafkaError(ErrorCode.INVALID_PRODUCER_EPOCH, message)

    # -- verification (KIP-890) --------------------------------------------------------------

    def oldest_ongoing_txn_timestamp(self) -> int:
        """The last batch timestamp of the producer whose open transaction began first here
        (-1: none open); what Kafka's ``hasLateTransaction`` ages."""
        if not self.ongoing_txns:
            return -1
        entry = self.producers.get(self.ongoing_txns[min(self.ongoing_txns)])
        return entry.last_timestamp if entry is not None else -1

    def has_ongoing_transaction(self, producer_id: int) -> bool:
        entry = self.producers.get(producer_id)
        return entry is not None and entry.current_txn_first_offset >= 0

    def maybe_start_transaction_verification(self, producer_id: int, sequence: int, epoch: int,
                                             now_ms: int) -> VerificationGuard | None:
        """The guard an append of the producer's transactional batch must present once the
        coordinator has verified the partition is in its transaction; None when its
        transaction is already open here (nothing to verify). Kafka's
        ``maybeStartTransactionVerification``."""
        if self.has_ongoing_transaction(producer_id):
            return None
        entry = self.verification_states.get(producer_id)
        if entry is None:
            entry = self.verification_states[producer_id] = VerificationStateEntry(
                now_ms, sequence, epoch)
        entry.maybe_update_lowest_sequence_and_epoch(sequence, epoch)
        return entry.guard

    def verification_guard(self, producer_id: int) -> VerificationGuard | None:
        entry = self.verification_states.get(producer_id)
        return entry.guard if entry is not None else None

    # -- updates ---------------------------------------------------------------------------

    def update(self, header: BatchHeader, first_offset: int, last_offset: int,
               timestamp: int) -> None:
        """Record an appended data batch (also used to replay the log on open): its sequence
        range, and the transaction it opens."""
        pid = header.producer_id
        if pid < 0:
            return
        seq = header.base_sequence
        transactional = header.attributes & TRANSACTIONAL_MASK
        if seq < 0 and not transactional:
            return
        entry = self.producers.get(pid)
        if entry is None:
            entry = self.producers[pid] = ProducerEntry(pid, header.producer_epoch)
        elif entry.epoch != header.producer_epoch:
            entry.update_epoch(header.producer_epoch)
        if seq >= 0:
            entry.batches.append(BatchMetadata(seq, header.last_sequence, first_offset,
                                               last_offset, timestamp))
        if timestamp > entry.last_timestamp:
            entry.last_timestamp = timestamp
        if transactional and entry.current_txn_first_offset < 0:
            entry.current_txn_first_offset = first_offset
            self.ongoing_txns[first_offset] = pid
        if transactional and self.verification_states:
            # the transaction is open here now: its verification has served
            self.verification_states.pop(pid, None)

    def update_marker(self, header: BatchHeader, marker: EndTransactionMarker, offset: int,
                      timestamp: int) -> CompletedTxn | None:
        """Record an appended marker; returns the transaction it completes (None when the
        producer had none open here). The caller indexes an aborted one, then calls
        :meth:`complete_txn`."""
        pid = header.producer_id
        entry = self.producers.get(pid)
        if entry is None:
            entry = self.producers[pid] = ProducerEntry(pid, header.producer_epoch)
        completed = None
        if entry.current_txn_first_offset >= 0:
            completed = CompletedTxn(pid, entry.current_txn_first_offset, offset, marker.is_abort)
        entry.update_epoch(header.producer_epoch)
        entry.coordinator_epoch = marker.coordinator_epoch
        entry.current_txn_first_offset = NO_OFFSET
        entry.last_timestamp = max(entry.last_timestamp, timestamp)
        # a verification still on its way belongs to the transaction this marker ends
        self.verification_states.pop(pid, None)
        return completed

    def last_stable_offset_of(self, completed: CompletedTxn) -> int:
        """The last stable offset an aborted transaction's index entry records (Kafka's
        ``lastStableOffset(completedTxn)``): the first offset of the earliest transaction of
        another producer still open, else the offset after the marker."""
        others = [first for first, pid in self.ongoing_txns.items()
                  if pid != completed.producer_id]
        return min(others) if others else completed.last_offset + 1

    def complete_txn(self, completed: CompletedTxn) -> None:
        """Move a completed transaction from the open ones to those waiting for the high
        watermark to pass their marker."""
        if self.ongoing_txns.pop(completed.first_offset, None) is None:
            raise ValueError(f"{self.dir.name}: no open transaction at offset "
                             f"{completed.first_offset} to complete ({completed})")
        self.unreplicated_txns[completed.first_offset] = completed.last_offset

    def on_high_watermark_updated(self, high_watermark: int) -> None:
        """Forget the completed transactions whose marker is below the high watermark."""
        if self.unreplicated_txns:
            self.unreplicated_txns = {first: last
                                      for first, last in self.unreplicated_txns.items()
                                      if last >= high_watermark}

    def first_unstable_offset(self) -> int | None:
        """The first offset of the earliest transaction not yet both decided and replicated."""
        if not self.ongoing_txns and not self.unreplicated_txns:
            return None
        return min(chain(self.ongoing_txns, self.unreplicated_txns))

    def last_stable_offset(self, high_watermark: int, log_start_offset: int = 0) -> int:
        """The last stable offset for a high watermark (Kafka's ``lastStableOffset``): the first
        unstable offset (not below the log start) when it is below the high watermark, else
        the high watermark."""
        self.on_high_watermark_updated(high_watermark)
        first = self.first_unstable_offset()
        if first is None:
            return high_watermark
        return min(max(first, log_start_offset), high_watermark)

    def replay(self, header: BatchHeader) -> None:
        self.update(header, header.base_offset, header.last_offset, header.max_timestamp)

    def remove_expired(self, now_ms: int, expiration_ms: int = PRODUCER_ID_EXPIRATION_MS) -> int:
        """Forget producers idle longer than ``expiration_ms`` and without an open transaction;
        returns how many."""
        expired = [pid for pid, e in self.producers.items()
                   if now_ms - e.last_timestamp > expiration_ms
                   and e.current_txn_first_offset < 0]
        for pid in expired:
            del self.producers[pid]
        # verifications never answered (Kafka expires them with the producers)
        for pid in [pid for pid, v in self.verification_states.items()
                    if now_ms - v.timestamp >= expiration_ms]:
            del self.verification_states[pid]
        return len(expired)

    def clear(self) -> None:
        self.producers.clear()
        self.ongoing_txns.clear()
        self.unreplicated_txns.clear()

    def _load_entries(self, producers: dict[int, ProducerEntry]) -> None:
        self.clear()
        self.producers = producers
        for entry in producers.values():
            if entry.current_txn_first_offset >= 0:
                self.ongoing_txns[entry.current_txn_first_offset] = entry.producer_id

    # -- snapshots -------------------------------------------------------------------------

    def snapshot_offsets(self) -> list[int]:
        """Offsets of the snapshot files on disk, ascending."""
        offsets = []
        for path in self.dir.glob(f"*{SNAPSHOT_SUFFIX}"):
            stem = path.name[: -len(SNAPSHOT_SUFFIX)]
            if stem.isdigit():
                offsets.append(int(stem))
        return sorted(offsets)

    def take_snapshot(self, offset: int, *, io: Callable[..., object] | None = None) -> Path:
        """Write the state as of ``offset`` (the log end offset) and prune old snapshots.

        With ``io`` (the storage thread, at a segment roll) the file is written and renamed
        into place here but fsynced there, as Kafka's roll flushes its snapshot in the
        background: a crash may then lose or tear it, and a torn one fails its CRC and is
        dropped at load, which rebuilds the state from the log instead."""
        parts = [_COUNT.pack(len(self.producers))]
        for entry in self.producers.values():
            parts.append(_PRODUCER.pack(entry.producer_id, entry.epoch, entry.last_timestamp,
                                        entry.coordinator_epoch, entry.current_txn_first_offset,
                                        len(entry.batches)))
            parts.extend(
                _BATCH.pack(b.first_seq, b.last_seq, b.first_offset, b.last_offset, b.timestamp)
                for b in entry.batches
            )
        body = b"".join(parts)
        path = snapshot_path(self.dir, offset)
        data = _PREFIX.pack(_MAGIC, _VERSION, crc32c(body)) + body
        if io is None:
            atomic_write(path, data)
        else:
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
            io(fsync_paths, [path, self.dir])
        for old in self.snapshot_offsets()[:-SNAPSHOTS_KEPT]:
            snapshot_path(self.dir, old).unlink(missing_ok=True)
        return path

    def delete_snapshots_after(self, offset: int) -> None:
        for snap in self.snapshot_offsets():
            if snap > offset:
                snapshot_path(self.dir, snap).unlink(missing_ok=True)

    def load_latest_snapshot(self, max_offset: int, min_offset: int = 0, *,
                             delete_later: bool = True) -> int | None:
        """Load the newest valid snapshot in [min_offset, max_offset]; returns its offset.

        Snapshots past ``max_offset`` describe data that is gone and are deleted (unless
        ``delete_later`` is False: recovery reads an earlier one to rebuild what follows), as
        are unreadable ones.
        """
        self.clear()
        if delete_later:
            self.delete_snapshots_after(max_offset)
        for snap in reversed(self.snapshot_offsets()):
            if snap > max_offset:
                continue
            if snap < min_offset:
                break
            path = snapshot_path(self.dir, snap)
            try:
                self._load_entries(_read_snapshot(path.read_bytes()))
                return snap
            except (OSError, SnapshotCorrupt) as e:
                logger.warning("Deleting unreadable producer snapshot %s: %s", path, e)
                self.clear()
                path.unlink(missing_ok=True)
        return None


def _read_snapshot(data: bytes) -> dict[int, ProducerEntry]:
    if len(data) < _PREFIX.size + _COUNT.size:
        raise SnapshotCorrupt("file is too short")
    magic, version, crc = _PREFIX.unpack_from(data)
    if magic != _MAGIC or version not in (1, _VERSION):
        raise SnapshotCorrupt(f"unknown format {magic!r} v{version}")
    body = memoryview(data)[_PREFIX.size :]
    if crc32c(body) != crc:
        raise SnapshotCorrupt("CRC mismatch")
    try:
        (count,) = _COUNT.unpack_from(body)
        pos = _COUNT.size
        producers: dict[int, ProducerEntry] = {}
        for _ in range(count):
            if version == 1:
                pid, epoch, last_ts, n = _PRODUCER_V1.unpack_from(body, pos)
                entry = ProducerEntry(pid, epoch, last_ts)
                pos += _PRODUCER_V1.size
            else:
                pid, epoch, last_ts, coordinator_epoch, txn_first, n = \
                    _PRODUCER.unpack_from(body, pos)
                entry = ProducerEntry(pid, epoch, last_ts, coordinator_epoch=coordinator_epoch,
                                      current_txn_first_offset=txn_first)
                pos += _PRODUCER.size
            for _ in range(n):
                entry.batches.append(BatchMetadata(*_BATCH.unpack_from(body, pos)))
                pos += _BATCH.size
            producers[pid] = entry
    except struct.error as e:
        raise SnapshotCorrupt(str(e)) from None
    if pos != len(body):
        raise SnapshotCorrupt("trailing bytes")
    return producers
