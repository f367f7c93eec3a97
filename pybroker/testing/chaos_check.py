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
first send to the end of the load (:func:`longest_gap`); the longest a single partition did
in a stall that began during or shortly after a fault (:func:`stall_begun`).

Controller fencing (:func:`check_controller_fencing`, from the brokers' logs:
:func:`parse_broker_log`). Once a controller of a new epoch is elected, no broker applies a
control request of an older epoch, and the deposed controller stops sending once it knows.

Split brain (:func:`check_split`, from the split probe's writes straight to each broker). A
leader cut off from the brokers and ZooKeeper acknowledges no acks=all write it cannot keep,
loses none it acknowledged, and the acks=1 writes it took after the cut are truncated when it
rejoins, which its state-change log records.

Transactions (:func:`check_transactions`). No value of an aborted transaction is ever read;
every committed one is read whole, once, in order per partition.

Committed offsets (:func:`check_offsets`). They never go backwards and never point past the
high watermark.
"""

from __future__ import annotations

import bisect
import re
import struct
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field

from pybroker.kernel.types import TopicPartition


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


def stall_begun(ack_times: Mapping[TopicPartition, Sequence[float]], start: float, end: float,
                until: float) -> tuple[Gap, TopicPartition | None]:
    """The longest time any one partition went without an acknowledgement, among the stalls
    that began (at an acknowledgement) between ``start`` and ``end``, each lasting to the next
    acknowledgement or ``until`` (the end of the load); and which partition. A stall that was
    already under way at ``start`` is not counted: it began with an earlier cause."""
    best: tuple[Gap, TopicPartition | None] = (Gap(0.0, start, start), None)
    for tp in sorted(ack_times):
        times = sorted(t for t in ack_times[tp] if t <= until)
        for a, b in zip(times, [*times[1:], until], strict=True):
            if start <= a < end and b - a > best[0].seconds:
                best = (Gap(b - a, a, b), tp)
    return best


# -- the brokers' logs ------------------------------------------------------------------------

#: ``[2025-01-02 03:04:05,678] INFO logger: message``, as ``pybroker serve`` logs
_LOG_LINE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\] \w+ ([\w.]+): (.*)$")
_ELECTED = re.compile(r"^Broker (\d+) is the controller with epoch (\d+)")
_RESIGNED = re.compile(r"^Broker (\d+) resigned as the controller \(epoch (\d+)\)")
_APPLIED = re.compile(r"^(LeaderAndIsr|UpdateMetadata|StopReplica) from controller (\d+) "
                      r"epoch (\d+)")
_IGNORED = re.compile(r"^Ignoring (LeaderAndIsr|UpdateMetadata|StopReplica) from controller "
                      r"(\d+) epoch (\d+): (\w+)")
_TRUNCATED = re.compile(r"^(?:\[Broker id=\d+\] )?Truncating partition (\S+) to offset (\d+)")


@dataclass(frozen=True)
class LogEvent:
    """A line of a broker's log the checks read: ``kind`` is ``elected`` / ``resigned`` (this
    broker as the controller of ``epoch``), ``applied`` / ``ignored`` (a control ``request``
    from ``controller`` in ``epoch``) or ``truncated`` (``partition`` cut to ``offset`` on
    this broker's state-change log); ``at`` on the run's clock."""

    at: float
    broker: int
    kind: str
    controller: int = -1
    epoch: int = -1
    request: str = ""
    partition: str = ""
    offset: int = -1
    reason: str = ""


def parse_broker_log(text: str, broker: int, wall_origin: float) -> list[LogEvent]:
    """The events of one broker's log (``pybroker serve``'s lines, local time), on the run's
    clock: seconds since ``wall_origin`` (the wall-clock time the run's clock started)."""
    out: list[LogEvent] = []
    for line in text.splitlines():
        m = _LOG_LINE.match(line)
        if m is None:
            continue
        stamp, millis, logger, message = m.groups()
        at = time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S")) + int(millis) / 1000
        at -= wall_origin
        if (e := _ELECTED.match(message)) is not None:
            out.append(LogEvent(at, broker, "elected", int(e[1]), int(e[2])))
        elif (e := _RESIGNED.match(message)) is not None:
            out.append(LogEvent(at, broker, "resigned", int(e[1]), int(e[2])))
        elif (e := _APPLIED.match(message)) is not None:
            out.append(LogEvent(at, broker, "applied", int(e[2]), int(e[3]), e[1]))
        elif (e := _IGNORED.match(message)) is not None:
            out.append(LogEvent(at, broker, "ignored", int(e[2]), int(e[3]), e[1],
                                reason=e[4]))
        elif logger == "pybroker.state.change" and \
                (e := _TRUNCATED.match(message)) is not None:
            out.append(LogEvent(at, broker, "truncated", partition=e[1], offset=int(e[2])))
    return out


# -- controller fencing -----------------------------------------------------------------------


@dataclass
class Takeover:
    """A controller elected in ``epoch`` at ``at``, and what came from older epochs after."""

    epoch: int
    controller: int
    at: float
    #: the controller of the epoch before (None when its election is not in the logs)
    previous: int | None = None
    #: when the previous controller logged that it resigned, if it did after ``at``
    previous_resigned: float | None = None
    #: control requests of an older epoch some broker applied after ``at`` (must be none)
    stale_applied: list[LogEvent] = field(default_factory=list)
    #: ... and refused (STALE_CONTROLLER_EPOCH): sent, but fenced
    stale_refused: list[LogEvent] = field(default_factory=list)

    @property
    def stale_after_resignation(self) -> list[LogEvent]:
        """Stale requests that came after the previous controller said it resigned: it went
        on sending with an epoch it knew was over."""
        if self.previous_resigned is None:
            return []
        return [e for e in self.stale_applied + self.stale_refused
                if e.at > self.previous_resigned + 1.0]


@dataclass
class FencingCheck:
    takeovers: list[Takeover] = field(default_factory=list)

    @property
    def stale_applied(self) -> int:
        return sum(len(t.stale_applied) for t in self.takeovers)

    @property
    def stale_refused(self) -> int:
        return sum(len(t.stale_refused) for t in self.takeovers)

    @property
    def stale_after_resignation(self) -> int:
        return sum(len(t.stale_after_resignation) for t in self.takeovers)


def check_controller_fencing(events: Sequence[LogEvent]) -> FencingCheck:
    """Once a controller of epoch N+1 is elected, no broker may apply a control request of
    epoch N or older (each broker fences by the highest epoch it has seen, and a deposed
    controller that cannot write to ZooKeeper has nothing new to say), and the deposed one
    must stop sending once it knows it resigned. ``events``: every broker's log events."""
    elections = sorted((e for e in events if e.kind == "elected"), key=lambda e: e.epoch)
    by_epoch = {e.epoch: e for e in elections}
    out = FencingCheck()
    for i, elected in enumerate(elections):
        until = elections[i + 1].at if i + 1 < len(elections) else float("inf")
        before = by_epoch.get(elected.epoch - 1)
        takeover = Takeover(elected.epoch, elected.controller, elected.at,
                            before.controller if before is not None else None)
        if before is not None:
            resigned = [e.at for e in events if e.kind == "resigned"
                        and e.broker == before.controller and e.epoch == before.epoch
                        and e.at >= elected.at]
            takeover.previous_resigned = min(resigned) if resigned else None
        for e in events:
            if e.kind in ("applied", "ignored") and e.epoch < elected.epoch \
                    and elected.at < e.at < until:
                (takeover.stale_applied if e.kind == "applied"
                 else takeover.stale_refused).append(e)
        out.takeovers.append(takeover)
    return out


# -- the split probe --------------------------------------------------------------------------

#: a probe write's error when no answer came (the connection failed or timed out)
NO_ANSWER = -1000


@dataclass(frozen=True)
class ProbeWrite:
    """One record the split probe sent with ``acks`` straight to ``broker`` for its partition,
    at ``sent``, answered at ``answered`` with ``error`` (0: taken at ``offset``; a Kafka error
    code; :data:`NO_ANSWER`)."""

    broker: int
    acks: int
    topic: str
    partition: int
    value: bytes
    sent: float
    answered: float
    error: int
    offset: int = -1

    @property
    def tp(self) -> TopicPartition:
        return (self.topic, self.partition)

    @property
    def taken(self) -> bool:
        return self.error == 0


@dataclass(frozen=True)
class Split:
    """One split: ``broker``, the leader of ``tp`` when cut, cut off from ``started`` to
    ``ended``."""

    broker: int
    tp: TopicPartition
    started: float
    ended: float


@dataclass
class SplitOutcome:
    split: Split
    #: acks=all writes the cut leader acknowledged after the cut began, and the last one's
    #: time after the cut
    acks_all_after_cut: int = 0
    last_acks_all_after_cut: float | None = None
    #: ... later than the deadline (must be none)
    acks_all_late: int = 0
    #: another broker that took writes of the partition during the split: the new leader
    new_leader: int | None = None
    #: acks=1 writes the cut leader took after the cut (past the grace for fetches in flight)
    acks_one_after_cut: int = 0
    #: ... that are gone from the final log, and those still there (must be none once another
    #: leader was elected)
    truncated: int = 0
    kept: int = 0
    #: the first truncated write's offset
    first_truncated: int | None = None
    #: the offsets the cut broker's state-change log says it truncated the partition to,
    #: after the cut
    truncations_logged: list[int] = field(default_factory=list)

    @property
    def truncation_unlogged(self) -> bool:
        """Writes were truncated, and no truncation at or below the first of them is in the
        cut broker's state-change log."""
        return self.truncated > 0 and not any(
            self.first_truncated is not None and o <= self.first_truncated
            for o in self.truncations_logged)

    @property
    def kept_after_divergence(self) -> int:
        return self.kept if self.new_leader is not None else 0


@dataclass
class SplitCheck:
    splits: list[SplitOutcome] = field(default_factory=list)
    #: probe writes sent, and acks=all / acks=1 writes taken
    sent: int = 0
    acks_all_taken: int = 0
    acks_one_taken: int = 0
    #: acks=all writes taken (by any broker, at any time) missing from the final log
    lost: list[ProbeWrite] = field(default_factory=list)
    #: probe values found more than once in the final logs
    duplicated: int = 0

    @property
    def failures(self) -> dict[str, int]:
        """Every count that must be zero, by name."""
        return {"split_lost": len(self.lost), "split_duplicated": self.duplicated,
                "split_acks_all_late": sum(s.acks_all_late for s in self.splits),
                "split_acks_one_kept": sum(s.kept_after_divergence for s in self.splits),
                "split_truncation_unlogged": sum(1 for s in self.splits
                                                 if s.truncation_unlogged)}


def check_split(splits: Sequence[Split], writes: Sequence[ProbeWrite],
                final: Mapping[TopicPartition, Sequence[tuple[int, bytes]]],
                log_events: Sequence[LogEvent], *, acks_all_deadline: float,
                grace: float = 2.0) -> SplitCheck:
    """Judge the splits (each a leader cut off from the brokers and ZooKeeper while the probe
    still reaches it) by the probe's ``writes``, the partitions' ``final`` logs and the
    brokers' ``log_events``:

    * every acks=all write taken, by whichever broker, is in the final log, at its offset;
    * the cut leader acknowledges no acks=all write later than ``acks_all_deadline`` seconds
      after the cut (its followers cannot fetch: its ISR can neither catch up nor shrink);
    * once another broker took writes of the partition during the split, none of the acks=1
      writes the cut leader took after the cut (``grace`` seconds in, for fetches already in
      flight) is in the final log: they were truncated when it rejoined, and its state-change
      log says so at or below the first of them."""
    out = SplitCheck(sent=len(writes))
    where: dict[TopicPartition, dict[bytes, list[int]]] = {}
    for tp, records in final.items():
        offsets: dict[bytes, list[int]] = defaultdict(list)
        for offset, value in records:
            offsets[value].append(offset)
        where[tp] = offsets
    probe_values = {w.value for w in writes}
    for offsets in where.values():
        out.duplicated += sum(len(found) - 1 for value, found in offsets.items()
                              if value in probe_values)
    for w in writes:
        if not w.taken:
            continue
        if w.acks == -1:
            out.acks_all_taken += 1
            if w.offset not in where.get(w.tp, {}).get(w.value, ()):
                out.lost.append(w)
        else:
            out.acks_one_taken += 1
    for split in splits:
        outcome = SplitOutcome(split)
        mine = [w for w in writes if w.taken and w.tp == split.tp and w.broker == split.broker
                and split.started < w.answered <= split.ended]
        acks_all = [w.answered - split.started for w in mine if w.acks == -1]
        outcome.acks_all_after_cut = len(acks_all)
        outcome.last_acks_all_after_cut = max(acks_all) if acks_all else None
        outcome.acks_all_late = sum(1 for t in acks_all if t > acks_all_deadline)
        others = sorted({w.broker for w in writes if w.taken and w.tp == split.tp
                         and w.broker != split.broker
                         and split.started < w.answered <= split.ended})
        outcome.new_leader = others[0] if others else None
        taken_after = [w for w in mine if w.acks != -1 and w.sent > split.started + grace]
        outcome.acks_one_after_cut = len(taken_after)
        for w in taken_after:
            if where.get(w.tp, {}).get(w.value):
                outcome.kept += 1
            else:
                outcome.truncated += 1
                if outcome.first_truncated is None or w.offset < outcome.first_truncated:
                    outcome.first_truncated = w.offset
        name = f"{split.tp[0]}-{split.tp[1]}"
        outcome.truncations_logged = [e.offset for e in log_events
                                      if e.kind == "truncated" and e.broker == split.broker
                                      and e.partition == name and e.at > split.started]
        out.splits.append(outcome)
    return out


# -- transactions -----------------------------------------------------------------------------

COMMITTED, ABORTED, UNKNOWN = "committed", "aborted", "unknown"


@dataclass(frozen=True)
class Txn:
    """One transaction of the transactional workload: its ``writes`` (partition, value) in the
    order produced, and its ``outcome``: committed or aborted as the producer was told, or
    unknown (the commit's answer never came: the transaction may have gone either way)."""

    id: int
    outcome: str
    writes: tuple[tuple[TopicPartition, bytes], ...]
    at: float = 0.0


@dataclass
class TxnCheck:
    committed: int = 0
    aborted: int = 0
    unknown: int = 0
    #: distinct values the read_committed group read
    values_read: int = 0
    #: committed transactions the group read whole
    read_whole: int = 0
    #: values of aborted transactions read by the group or found in the final log
    aborted_read: int = 0
    #: committed transactions with a value missing from the final log
    committed_lost: int = 0
    #: committed transactions the group read part of, but not all
    committed_partial: int = 0
    #: committed transactions the group read nothing of (by the end: a liveness failure)
    group_missed: int = 0
    #: committed transactions whose values of a partition are not in the order produced
    out_of_order: int = 0
    #: transactions of unknown outcome found in part (not whole, not absent) in the final log
    unknown_partial: int = 0
    #: transactions of unknown outcome found whole in the final log (they committed)
    unknown_committed: int = 0
    #: values in the final log more than once
    duplicated: int = 0
    #: values the group read at an offset where the final log holds something else
    phantom: int = 0

    @property
    def failures(self) -> dict[str, int]:
        """Every count that must be zero, by name (``txn_group_missed`` is liveness)."""
        return {"txn_aborted_read": self.aborted_read, "txn_committed_lost": self.committed_lost,
                "txn_committed_partial": self.committed_partial,
                "txn_out_of_order": self.out_of_order, "txn_unknown_partial": self.unknown_partial,
                "txn_duplicated": self.duplicated, "txn_phantom": self.phantom,
                "txn_group_missed": self.group_missed}


def check_transactions(txns: Sequence[Txn],
                       final: Mapping[TopicPartition, Sequence[tuple[int, bytes]]],
                       consumed: Mapping[TopicPartition, Set[tuple[int, bytes]]]) -> TxnCheck:
    """Judge the transactions: ``final`` is each partition's log as a read_committed consumer
    reads it from offset 0 at the end, ``consumed`` what the read_committed group read during
    the run. No value of an aborted transaction is ever read; every committed transaction is
    in the final log whole, once, its values of each partition in the order produced, and the
    group read it whole; a transaction of unknown outcome is there whole or not at all."""
    out = TxnCheck()
    where: dict[tuple[TopicPartition, bytes], list[int]] = defaultdict(list)
    for tp, records in final.items():
        for offset, value in records:
            where[(tp, value)].append(offset)
    out.duplicated = sum(len(found) - 1 for found in where.values())
    read: set[tuple[TopicPartition, bytes]] = set()
    for tp, pairs in consumed.items():
        held = {offset: value for offset, value in final.get(tp, ())}
        for offset, value in pairs:
            read.add((tp, value))
            if held.get(offset) != value:
                out.phantom += 1
    out.values_read = len(read)
    for txn in txns:
        keys = [(tp, value) for tp, value in txn.writes]
        present = [k for k in keys if where.get(k)]
        if txn.outcome == ABORTED:
            out.aborted += 1
            out.aborted_read += len(present) + sum(1 for k in keys if k in read)
            continue
        if txn.outcome == UNKNOWN:
            out.unknown += 1
            if present and len(present) < len(keys):
                out.unknown_partial += 1
            elif present:
                out.unknown_committed += 1
            continue
        out.committed += 1
        if len(present) < len(keys):
            out.committed_lost += 1
        seen = sum(1 for k in keys if k in read)
        if seen == len(keys):
            out.read_whole += 1
        elif seen:
            out.committed_partial += 1
        else:
            out.group_missed += 1
        by_partition: dict[TopicPartition, list[int]] = defaultdict(list)
        for tp, value in keys:
            found = where.get((tp, value))
            if found:
                by_partition[tp].append(found[0])
        if any(offsets != sorted(offsets) for offsets in by_partition.values()):
            out.out_of_order += 1
    return out


# -- committed offsets ------------------------------------------------------------------------


@dataclass(frozen=True)
class OffsetSample:
    """A partition's committed offset of the offsets workload's group, as ``broker`` answered
    OffsetFetch as its coordinator when asked at ``at``, and the high watermarks the brokers
    leading the partition (as they believe) answered right after: (broker, high watermark)."""

    at: float
    tp: TopicPartition
    committed: int
    broker: int
    high_watermarks: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class OffsetCommit:
    """A commit the group's consumer was told succeeded, at ``at``."""

    at: float
    tp: TopicPartition
    offset: int


#: (broker, from, to): while a broker was cut off or frozen, and a while after, it may still
#: believe it is a coordinator or a leader the cluster has replaced, and answer from that state
Suspect = tuple[int, float, float]


@dataclass
class OffsetCheck:
    #: samples judged, and those set aside: answered by a broker while it was suspect
    samples: int = 0
    suspect: int = 0
    #: ... of which below a commit acknowledged before them (a deposed coordinator's stale
    #: answer, as Kafka's would give: for the record)
    suspect_stale: int = 0
    commits: int = 0
    #: samples below an earlier sample of the partition
    backwards: list[OffsetSample] = field(default_factory=list)
    #: samples above the partition's high watermark
    past_high_watermark: list[OffsetSample] = field(default_factory=list)
    #: samples below a commit acknowledged before they were asked: a lost commit
    below_acknowledged: list[OffsetSample] = field(default_factory=list)

    @property
    def failures(self) -> dict[str, int]:
        return {"offsets_backwards": len(self.backwards),
                "offsets_past_high_watermark": len(self.past_high_watermark),
                "offsets_below_acknowledged": len(self.below_acknowledged)}


def check_offsets(samples: Sequence[OffsetSample], commits: Sequence[OffsetCommit],
                  suspect: Sequence[Suspect] = ()) -> OffsetCheck:
    """Committed offsets never go backwards (no sample below an earlier one of its partition,
    nor below a commit acknowledged before the sample was asked) and never point past the high
    watermark (asked after the committed offset, so a later, higher one: the highest a leader
    answered). Answers of a broker while ``suspect`` (it may not know yet that another broker
    took its place) are set aside, counted, and not judged; those of every other broker are."""
    out = OffsetCheck(commits=len(commits))

    def suspected(broker: int, at: float) -> bool:
        return any(b == broker and start <= at <= end for b, start, end in suspect)

    acked: dict[TopicPartition, list[tuple[float, int]]] = defaultdict(list)
    for c in sorted(commits, key=lambda c: c.at):
        acked[c.tp].append((c.at, c.offset))
    highest: dict[TopicPartition, int] = {}
    for s in sorted(samples, key=lambda s: s.at):
        if s.committed < 0:
            continue
        before = [offset for at, offset in acked.get(s.tp, ()) if at < s.at]
        if suspected(s.broker, s.at):
            out.suspect += 1
            out.suspect_stale += bool(before and s.committed < max(before))
            continue
        out.samples += 1
        if s.committed < highest.get(s.tp, -1):
            out.backwards.append(s)
        highest[s.tp] = max(highest.get(s.tp, -1), s.committed)
        high = [h for b, h in s.high_watermarks if h >= 0 and not suspected(b, s.at)]
        if high and s.committed > max(high):
            out.past_high_watermark.append(s)
        if before and s.committed < max(before):
            out.below_acknowledged.append(s)
    return out
