"""Idempotent producer state of one partition log: producer id -> epoch and recent batches.

The rules are Kafka's (``ProducerStateManager`` / ``ProducerAppendInfo``):

* a batch without a producer id is not checked;
* an unknown producer id is accepted at any sequence (there is no state to compare with);
* an epoch below the known one is ``INVALID_PRODUCER_EPOCH``;
* a newer epoch must start at sequence 0, else ``OUT_OF_ORDER_SEQUENCE_NUMBER``;
* within an epoch, a batch equal in sequence range to one of the last five is a duplicate and
  is answered with the original offsets; otherwise it must start at last sequence + 1
  (wrapping from 2**31-1 to 0), else ``OUT_OF_ORDER_SEQUENCE_NUMBER``.

The state is rebuilt on open from a ``<offset>.snapshot`` file plus the batch headers after
that offset. Snapshot layout (big-endian), this module's own::

    magic "PBPS" | version u16 = 1 | crc32c u32 of everything after it | count i32
    count x [ producerId i64 | epoch i16 | lastTimestamp i64 | n i8 |
              n x (firstSeq i32 | lastSeq i32 | firstOffset i64 | lastOffset i64 | timestamp i64) ]
"""

from __future__ import annotations

import logging
import struct
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from crc32c import crc32c

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import NO_SEQUENCE, BatchHeader

from .checkpoints import atomic_write

logger = logging.getLogger(__name__)

MAX_CACHED_BATCHES = 5
SNAPSHOT_SUFFIX = ".snapshot"
SNAPSHOTS_KEPT = 3
PRODUCER_ID_EXPIRATION_MS = 86_400_000  # Kafka's producer.id.expiration.ms

_MAGIC = b"PBPS"
_VERSION = 1
_PREFIX = struct.Struct(">4sHI")
_COUNT = struct.Struct(">i")
_PRODUCER = struct.Struct(">qhqb")
_BATCH = struct.Struct(">iiqqq")


class SnapshotCorrupt(Exception):
    pass


@dataclass(frozen=True, slots=True)
class BatchMetadata:
    first_seq: int
    last_seq: int
    first_offset: int
    last_offset: int
    timestamp: int


@dataclass(slots=True)
class ProducerEntry:
    producer_id: int
    epoch: int
    last_timestamp: int = -1
    batches: deque[BatchMetadata] = field(default_factory=lambda: deque(maxlen=MAX_CACHED_BATCHES))

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else NO_SEQUENCE

    def find_duplicate(self, first_seq: int, last_seq: int) -> BatchMetadata | None:
        for batch in self.batches:
            if batch.first_seq == first_seq and batch.last_seq == last_seq:
                return batch
        return None


def _in_sequence(last_seq: int, next_seq: int) -> bool:
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == 0x7FFFFFFF)


def snapshot_path(dir: Path, offset: int) -> Path:
    return dir / f"{offset:020d}{SNAPSHOT_SUFFIX}"


class ProducerStateManager:
    """Per-log producer table with Kafka-like snapshot files in the partition directory."""

    def __init__(self, dir: Path) -> None:
        self.dir = dir
        self.producers: dict[int, ProducerEntry] = {}

    def __len__(self) -> int:
        return len(self.producers)

    # -- validation and updates ------------------------------------------------------------

    def check(self, header: BatchHeader) -> BatchMetadata | None:
        """Validate a client batch; returns the original batch when it is a duplicate."""
        if not header.has_producer_id:
            return None
        entry = self.producers.get(header.producer_id)
        if entry is None:
            return None
        epoch, first_seq = header.producer_epoch, header.base_sequence
        if epoch < entry.epoch:
            raise KafkaError(
                ErrorCode.INVALID_PRODUCER_EPOCH,
                f"Epoch of producer {header.producer_id} is {epoch}, "
                f"which is smaller than the last seen epoch {entry.epoch}",
            )
        if epoch > entry.epoch:
            if first_seq != 0:
                raise KafkaError(
                    ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                    f"Invalid sequence number for new epoch {epoch} of producer "
                    f"{header.producer_id}: {first_seq} (expected 0)",
                )
            return None
        duplicate = entry.find_duplicate(first_seq, header.last_sequence)
        if duplicate is not None:
            return duplicate
        if not _in_sequence(entry.last_seq, first_seq):
            raise KafkaError(
                ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                f"Out of order sequence number for producer {header.producer_id}: "
                f"{first_seq} (incoming seq. number), {entry.last_seq} (current end sequence number)",
            )
        return None

    def update(self, header: BatchHeader, first_offset: int, last_offset: int, timestamp: int) -> None:
        """Record an appended batch (also used to replay the log on open)."""
        if not header.has_producer_id or header.base_sequence < 0:
            return
        pid = header.producer_id
        entry = self.producers.get(pid)
        if entry is None or entry.epoch != header.producer_epoch:
            entry = ProducerEntry(pid, header.producer_epoch)
            self.producers[pid] = entry
        entry.batches.append(
            BatchMetadata(header.base_sequence, header.last_sequence, first_offset, last_offset, timestamp)
        )
        entry.last_timestamp = max(entry.last_timestamp, timestamp)

    def replay(self, header: BatchHeader) -> None:
        self.update(header, header.base_offset, header.last_offset, header.max_timestamp)

    def remove_expired(self, now_ms: int, expiration_ms: int = PRODUCER_ID_EXPIRATION_MS) -> int:
        """Forget producers idle longer than ``expiration_ms``; returns how many."""
        expired = [pid for pid, e in self.producers.items() if now_ms - e.last_timestamp > expiration_ms]
        for pid in expired:
            del self.producers[pid]
        return len(expired)

    def clear(self) -> None:
        self.producers.clear()

    # -- snapshots -------------------------------------------------------------------------

    def snapshot_offsets(self) -> list[int]:
        """Offsets of the snapshot files on disk, ascending."""
        offsets = []
        for path in self.dir.glob(f"*{SNAPSHOT_SUFFIX}"):
            stem = path.name[: -len(SNAPSHOT_SUFFIX)]
            if stem.isdigit():
                offsets.append(int(stem))
        return sorted(offsets)

    def take_snapshot(self, offset: int) -> Path:
        """Write the state as of ``offset`` (the log end offset) and prune old snapshots."""
        parts = [_COUNT.pack(len(self.producers))]
        for entry in self.producers.values():
            parts.append(_PRODUCER.pack(entry.producer_id, entry.epoch, entry.last_timestamp, len(entry.batches)))
            parts.extend(
                _BATCH.pack(b.first_seq, b.last_seq, b.first_offset, b.last_offset, b.timestamp)
                for b in entry.batches
            )
        body = b"".join(parts)
        path = snapshot_path(self.dir, offset)
        atomic_write(path, _PREFIX.pack(_MAGIC, _VERSION, crc32c(body)) + body)
        for old in self.snapshot_offsets()[:-SNAPSHOTS_KEPT]:
            snapshot_path(self.dir, old).unlink(missing_ok=True)
        return path

    def delete_snapshots_after(self, offset: int) -> None:
        for snap in self.snapshot_offsets():
            if snap > offset:
                snapshot_path(self.dir, snap).unlink(missing_ok=True)

    def load_latest_snapshot(self, max_offset: int, min_offset: int = 0) -> int | None:
        """Load the newest valid snapshot in [min_offset, max_offset]; returns its offset.

        Snapshots past ``max_offset`` describe data that is gone and are deleted, as are
        unreadable ones.
        """
        self.clear()
        self.delete_snapshots_after(max_offset)
        for snap in reversed(self.snapshot_offsets()):
            if snap < min_offset:
                break
            path = snapshot_path(self.dir, snap)
            try:
                self.producers = _read_snapshot(path.read_bytes())
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
    if magic != _MAGIC or version != _VERSION:
        raise SnapshotCorrupt(f"unknown format {magic!r} v{version}")
    body = memoryview(data)[_PREFIX.size :]
    if crc32c(body) != crc:
        raise SnapshotCorrupt("CRC mismatch")
    try:
        (count,) = _COUNT.unpack_from(body)
        pos = _COUNT.size
        producers: dict[int, ProducerEntry] = {}
        for _ in range(count):
            pid, epoch, last_ts, n = _PRODUCER.unpack_from(body, pos)
            pos += _PRODUCER.size
            entry = ProducerEntry(pid, epoch, last_ts)
            for _ in range(n):
                entry.batches.append(BatchMetadata(*_BATCH.unpack_from(body, pos)))
                pos += _BATCH.size
            producers[pid] = entry
    except struct.error as e:
        raise SnapshotCorrupt(str(e)) from None
    if pos != len(body):
        raise SnapshotCorrupt("trailing bytes")
    return producers

