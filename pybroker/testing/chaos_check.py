"""The chaos checker: what a chaos run's producers were told, what its consumer group read and
what the cluster holds at the end, judged without I/O (the run collects them;
``pybroker.testing.chaos``).

Records. Every acknowledged record must be in the final log of its partition (read from offset
0 by a fresh consumer) exactly once, at the offset its acknowledgement named, and each
producer's acknowledged records of a partition must appear in the order they were sent. A record
never acknowledged (its send failed, or was still in flight at the end) may be there or not, once
at most. The consumer group must never have read a record that is not in the final log at the
offset it read it from (a read above the high watermark, or of data later truncated), and by
the end it must have read every acknowledged record.

Replicas. Every replica of every partition must hold the same bytes as the others up to the high
watermark: the partition's segment files, concatenated in offset order (segments may roll at
different offsets on different brokers), cut after the last whole batch below the high watermark
(:func:`below_high_watermark`).

Unavailability. The longest time a producer went without an acknowledgement, counted from the
first send to the end of the load (:func:`longest_gap`).
"""

from __future__ import annotations

import bisect
import struct
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field

TopicPartition = tuple[str, int]


@dataclass(frozen=True)
class Ack:
    """One acknowledged record: ``seq`` is its number in its producer's sequence."""

    producer: str
    topic: str
    partition: int
    offset: int
    seq: int
    value: bytes
    at: float

    @property
    def tp(self) -> TopicPartition:
        return (self.topic, self.partition)


@dataclass
class RecordCheck:
    acknowledged: int = 0
    #: acknowledged, and absent from the final log of their partition
    lost: list[Ack] = field(default_factory=list)
    #: acknowledged, present, but at another offset than the acknowledgement named
    misplaced: list[Ack] = field(default_factory=list)
    #: extra copies of a record in the final log
    duplicated: int = 0
    #: acknowledged records found before one their producer sent earlier to the same partition
    out_of_order: int = 0
    #: records in the final log that no producer saw acknowledged (allowed)
    unacknowledged_present: int = 0
    #: records the consumer group read at an offset where the final log holds something else
    phantom: int = 0
    #: acknowledged records the consumer group never read
    group_missed: int = 0
    #: distinct (partition, offset, value) the consumer group read
    group_read: int = 0
    final_records: int = 0

    @property
    def failures(self) -> dict[str, int]:
        """Every count that must be zero, by name."""
        return {"lost": len(self.lost), "misplaced": len(self.misplaced),
                "duplicated": self.duplicated, "out_of_order": self.out_of_order,
                "phantom": self.phantom, "group_missed": self.group_missed}


def check_records(acks: Sequence[Ack],
                  final: Mapping[TopicPartition, Sequence[tuple[int, bytes]]],
                  consumed: Mapping[TopicPartition, Set[tuple[int, bytes]]]) -> RecordCheck:
    """Judge the records: ``acks`` from the producers, ``final`` each partition's (offset,
    value) pairs read back from offset 0, ``consumed`` the (offset, value) pairs the group read
    (a pair read twice counts once; two values read at one offset are both kept)."""
    out = RecordCheck(acknowledged=len(acks))
    where: dict[TopicPartition, dict[bytes, list[int]]] = {}
    for tp, records in final.items():
        offsets: dict[bytes, list[int]] = defaultdict(list)
        for offset, value in records:
            offsets[value].append(offset)
        where[tp] = offsets
        out.final_records += len(records)
        out.duplicated += sum(len(found) - 1 for found in offsets.values())
    acked_values: dict[TopicPartition, set[bytes]] = defaultdict(set)
    by_sequence: dict[tuple[str, TopicPartition], list[tuple[int, int]]] = defaultdict(list)
    for ack in acks:
        acked_values[ack.tp].add(ack.value)
        found = where.get(ack.tp, {}).get(ack.value)
        if not found:
            out.lost.append(ack)
            continue
        if ack.offset not in found:
            out.misplaced.append(ack)
        by_sequence[(ack.producer, ack.tp)].append((ack.seq, found[0]))
    for pairs in by_sequence.values():
        pairs.sort()
        out.out_of_order += sum(1 for (_, a), (_, b) in zip(pairs, pairs[1:], strict=False)
                                if b < a)
    for tp, offsets in where.items():
        out.unacknowledged_present += sum(1 for v in offsets if v not in acked_values[tp])
    for tp, reads in consumed.items():
        held = {offset: value for offset, value in final.get(tp, ())}
        out.group_read += len(reads)
        out.phantom += sum(1 for offset, value in reads if held.get(offset) != value)
    for tp, values in acked_values.items():
        seen = {value for _, value in consumed.get(tp, ())}
        out.group_missed += len(values - seen)
    return out


# -- unavailability ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Gap:
    """The longest stretch without an acknowledgement: ``seconds`` from ``start`` to ``end``."""

    seconds: float
    start: float
    end: float


def longest_gap(ack_times: Sequence[float], start: float, end: float) -> Gap:
    """The longest time without an acknowledgement between ``start`` (the first send) and
    ``end`` (the load's end), the acknowledgement times in between."""
    points = [start, *sorted(t for t in ack_times if start <= t <= end), end]
    best = Gap(0.0, start, start)
    for a, b in zip(points, points[1:], strict=False):
        if b - a > best.seconds:
            best = Gap(b - a, a, b)
    return best


# -- replicas ---------------------------------------------------------------------------------

_HEADER = struct.Struct(">qi")  # baseOffset, batchLength: the same in every message format
_MAGIC_AT = 16
_LAST_OFFSET_DELTA_AT = 23


@dataclass(frozen=True)
class Batch:
    position: int
    base_offset: int
    last_offset: int
    size: int


def batches(data: bytes) -> Iterator[Batch]:
    """The batches (or, before message format v2, wrapper messages) of a log's bytes, in order;
    stops at a truncated tail."""
    position = 0
    while position + _HEADER.size <= len(data):
        offset, length = _HEADER.unpack_from(data, position)
        size = _HEADER.size + length
        if length <= 0 or position + size > len(data):
            return
        if data[position + _MAGIC_AT] >= 2:
            (delta,) = struct.unpack_from(">i", data, position + _LAST_OFFSET_DELTA_AT)
            yield Batch(position, offset, offset + delta, size)
        else:  # v0/v1: the offset field is the (wrapper's) last offset
            yield Batch(position, offset, offset, size)
        position += size


def below_high_watermark(data: bytes, high_watermark: int) -> tuple[bytes, int]:
    """The log's bytes up to the end of the last batch starting below ``high_watermark``, and
    the offset after that batch (where this copy's committed part ends)."""
    end, next_offset = 0, 0
    for batch in batches(data):
        if batch.base_offset >= high_watermark:
            break
        end, next_offset = batch.position + batch.size, batch.last_offset + 1
    return data[:end], next_offset


@dataclass(frozen=True)
class Divergence:
    """A replica that is not byte-identical to the others up to the high watermark."""

    tp: TopicPartition
    broker: int
    high_watermark: int
    reason: str

    def __str__(self) -> str:
        topic, partition = self.tp
        return (f"{topic}-{partition} on broker {self.broker} (high watermark "
                f"{self.high_watermark}): {self.reason}")


@dataclass
class ReplicaCheck:
    partitions: int = 0
    replicas: int = 0
    bytes_compared: int = 0
    divergent: list[Divergence] = field(default_factory=list)


def check_replicas(copies: Mapping[TopicPartition, Mapping[int, bytes]],
                   high_watermarks: Mapping[TopicPartition, int]) -> ReplicaCheck:
    """``copies``: each partition's log bytes on each broker holding it; ``high_watermarks``:
    each partition's high watermark. A replica diverges when its log ends below the high
    watermark, or its bytes below it differ from those most replicas hold."""
    out = ReplicaCheck()
    for tp in sorted(copies):
        replicas = copies[tp]
        hw = high_watermarks.get(tp, 0)
        out.partitions += 1
        out.replicas += len(replicas)
        cut: dict[int, tuple[bytes, int]] = {b: below_high_watermark(data, hw)
                                             for b, data in replicas.items()}
        full = [prefix for prefix, ends in cut.values() if ends >= hw]
        reference = Counter(full).most_common(1)[0][0] if full else b""
        out.bytes_compared += len(reference)
        for broker in sorted(cut):
            prefix, ends = cut[broker]
            if ends < hw:
                out.divergent.append(Divergence(
                    tp, broker, hw, f"its log holds offsets below {ends} only"))
            elif prefix != reference:
                at = next((i for i, (a, b) in enumerate(zip(prefix, reference, strict=False))
                           if a != b), min(len(prefix), len(reference)))
                offset = next((b.base_offset for b in batches(reference)
                               if b.position <= at < b.position + b.size), None)
                out.divergent.append(Divergence(
                    tp, broker, hw, f"differs from byte {at} (the batch at offset {offset})"))
    return out


# -- the ISR as Metadata shows it -------------------------------------------------------------


def acks_below_min_isr(acks: Sequence[Ack],
                       isr_sizes: Mapping[TopicPartition, Sequence[tuple[float, int]]],
                       min_isr: int, grace: float = 2.0) -> int:
    """Acknowledgements that came while Metadata had shown, for ``grace`` seconds and more
    without change, an ISR smaller than ``min_isr`` for their partition (``isr_sizes``: each
    partition's (time seen, ISR size) in time order). With acks=all such an acknowledgement
    should have been NOT_ENOUGH_REPLICAS. For the record, not a verdict: Metadata reaches the
    monitor later than the leader, and the leader's own ISR is what decides."""
    count = 0
    for ack in acks:
        changes = isr_sizes.get(ack.tp, ())
        times = [t for t, _ in changes]
        i = bisect.bisect_right(times, ack.at) - 1
        if i >= 0 and changes[i][1] < min_isr and ack.at - changes[i][0] >= grace:
            count += 1
    return count
