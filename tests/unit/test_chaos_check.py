"""The chaos checker's judgements on records and replicas made up for each case: each count it
fails a run on must move when, and only when, its fault is there."""

from __future__ import annotations

from protocol.records.record import build_batch
from pybroker.testing.chaos_check import (
    Ack,
    acks_below_min_isr,
    batches,
    below_high_watermark,
    check_records,
    check_replicas,
    longest_gap,
)

TP = ("t", 0)
T0 = 1_700_000_000_000


def ack(seq: int, offset: int, producer: str = "p", tp: tuple[str, int] = TP) -> Ack:
    return Ack(producer, tp[0], tp[1], offset, seq, b"v%d" % seq, at=float(seq))


def log(*values: int) -> list[tuple[int, bytes]]:
    return [(offset, b"v%d" % v) for offset, v in enumerate(values)]


def test_a_clean_run_has_nothing_to_report() -> None:
    acks = [ack(i, i) for i in range(5)]
    result = check_records(acks, {TP: log(0, 1, 2, 3, 4)}, {TP: set(log(0, 1, 2, 3, 4))})
    assert result.acknowledged == 5 and result.group_read == 5 and result.final_records == 5
    assert all(v == 0 for v in result.failures.values()), result.failures
    assert result.unacknowledged_present == 0


def test_a_missing_acknowledged_record_is_lost() -> None:
    acks = [ack(i, i) for i in range(3)]
    result = check_records(acks, {TP: log(0, 2)}, {})
    assert [a.seq for a in result.lost] == [1] and result.failures["lost"] == 1
    # the record acknowledged at offset 2 sits at offset 1: misplaced
    assert [a.seq for a in result.misplaced] == [2]


def test_unacknowledged_records_may_be_there_once_but_never_twice() -> None:
    acks = [ack(0, 0), ack(2, 2)]
    result = check_records(acks, {TP: log(0, 1, 2)}, {TP: set(log(0, 1, 2))})
    assert result.unacknowledged_present == 1 and result.failures["duplicated"] == 0
    twice = check_records(acks, {TP: log(0, 1, 1, 2)}, {})
    assert twice.duplicated == 1


def test_order_within_a_producers_partition() -> None:
    acks = [ack(0, 1), ack(1, 0)]
    result = check_records(acks, {TP: log(1, 0)}, {})
    assert result.out_of_order == 1
    # another producer's records interleave freely
    other = [ack(0, 0, "a"), ack(0, 1, "b")]
    assert check_records(other, {TP: [(0, b"v0"), (1, b"v0")]}, {}).out_of_order == 0


def test_the_group_never_reads_what_later_disappears_and_misses_nothing() -> None:
    acks = [ack(0, 0), ack(1, 1)]
    final = {TP: log(0, 1)}
    # read offset 2 (later truncated) and a different record at offset 1
    result = check_records(acks, final, {TP: {(0, b"v0"), (1, b"v9"), (2, b"v7")}})
    assert result.phantom == 2
    # a second read of an offset that found another value counts too
    twice = check_records(acks, final, {TP: {(0, b"v0"), (1, b"v1"), (1, b"v5")}})
    assert twice.phantom == 1 and twice.group_missed == 0
    assert result.group_missed == 1  # v1 never read


def test_longest_gap_counts_from_the_first_send_to_the_end() -> None:
    assert longest_gap([1.0, 2.0, 7.5, 8.0], start=0.0, end=9.0).seconds == 5.5
    gap = longest_gap([1.0], start=0.0, end=10.0)
    assert (gap.seconds, gap.start, gap.end) == (9.0, 1.0, 10.0)
    assert longest_gap([], start=2.0, end=3.0).seconds == 1.0


def batch(base: int, n: int, epoch: int = 0) -> bytes:
    data = build_batch([(None, b"r%d" % (base + i), (), T0 + i) for i in range(n)],
                       base_offset=base, partition_leader_epoch=epoch)
    return bytes(data)


def test_batches_and_the_part_below_the_high_watermark() -> None:
    data = batch(0, 3) + batch(3, 2) + batch(5, 4)
    assert [(b.base_offset, b.last_offset) for b in batches(data)] == [(0, 2), (3, 4), (5, 8)]
    assert [(b.base_offset) for b in batches(data + b"\x00" * 7)] == [0, 3, 5]  # torn tail
    prefix, ends = below_high_watermark(data, 5)
    assert prefix == batch(0, 3) + batch(3, 2) and ends == 5
    assert below_high_watermark(data, 0) == (b"", 0)


def test_replicas_identical_up_to_the_high_watermark_pass_whatever_lies_above() -> None:
    committed = batch(0, 3) + batch(3, 2)
    copies = {TP: {1: committed + batch(5, 1, epoch=1), 2: committed + batch(5, 3, epoch=2),
                   3: committed}}
    result = check_replicas(copies, {TP: 5})
    assert result.divergent == [] and result.replicas == 3
    assert result.bytes_compared == len(committed)


def test_a_replica_that_differs_or_falls_short_diverges() -> None:
    good = batch(0, 3) + batch(3, 2)
    other = batch(0, 3) + batch(3, 2, epoch=1)  # same offsets, another leader epoch
    copies = {TP: {1: good, 2: good, 3: other}}
    [d] = check_replicas(copies, {TP: 5}).divergent
    assert d.broker == 3 and "offset 3" in d.reason
    short = check_replicas({TP: {1: good, 2: batch(0, 3), 3: good}}, {TP: 5})
    [s] = short.divergent
    assert s.broker == 2 and "below 3" in s.reason


def test_acknowledgements_while_metadata_shows_too_small_an_isr() -> None:
    sizes = {TP: [(0.0, 3), (10.0, 1), (20.0, 2)]}
    acks = [Ack("p", "t", 0, i, i, b"v", at) for i, at in enumerate((5.0, 11.0, 13.0, 19.9, 21.0))]
    # 11.0 is within the grace after the shrink was seen; 13.0 and 19.9 are not
    assert acks_below_min_isr(acks, sizes, min_isr=2, grace=2.0) == 2
    assert acks_below_min_isr(acks, {}, min_isr=2) == 0
