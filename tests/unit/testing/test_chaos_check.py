"""The chaos checker's judgements made up for each case - records, replicas, stalls, the brokers'
logs and controller fencing, splits, transactions, committed offsets: each count it fails a run
on must move when, and only when, its fault is there."""

from __future__ import annotations

import time

from pybroker.testing.chaos_check import (
    ABORTED,
    COMMITTED,
    UNKNOWN,
    Ack,
    LogEvent,
    OffsetCommit,
    OffsetSample,
    ProbeWrite,
    Split,
    Txn,
    acks_below_min_isr,
    batches,
    below_high_watermark,
    check_controller_fencing,
    check_offsets,
    check_records,
    check_replicas,
    check_split,
    check_transactions,
    longest_gap,
    parse_broker_log,
    stall_begun,
)
from tests.unit.protocol.records.helpers import value_batch

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
    return bytes(value_batch(n, tag=b"r", first=base, base_offset=base,
                             partition_leader_epoch=epoch))


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


# -- stalls -----------------------------------------------------------------------------------


def test_a_stall_counts_to_the_fault_it_began_in() -> None:
    # partition 0 stalls from 1.0 (before the fault at 2.0) to 6.0; partition 1 from 3.0 to 4.5
    times = {("t", 0): [0.5, 1.0, 6.0, 7.0], ("t", 1): [1.0, 2.5, 3.0, 4.5, 7.0]}
    gap, tp = stall_begun(times, 2.0, 4.0, until=10.0)
    assert tp == ("t", 1) and (gap.seconds, gap.start, gap.end) == (1.5, 3.0, 4.5)
    # one that begins in the window lasts to the next acknowledgement, or the end of the load
    gap, tp = stall_begun({("t", 0): [1.0, 2.5]}, 2.0, 3.0, until=10.0)
    assert tp == ("t", 0) and (gap.seconds, gap.start, gap.end) == (7.5, 2.5, 10.0)
    assert stall_begun({("t", 0): [1.0, 9.0]}, 2.0, 3.0, until=10.0)[1] is None


# -- the brokers' logs and controller fencing -------------------------------------------------

WALL = time.mktime(time.strptime("2025-03-04 10:00:00", "%Y-%m-%d %H:%M:%S"))
BROKER_LOG = """\
[2025-03-04 10:00:01,250] INFO pybroker.controller.kafka_controller: Broker 2 is the controller with epoch 3
[2025-03-04 10:00:02,000] INFO pybroker.cluster.control: LeaderAndIsr from controller 2 epoch 3: 4 partition(s), 4 applied
Traceback (most recent call last):
  a line that is not one of the broker's
[2025-03-04 10:00:03,500] WARNING pybroker.cluster.control: Ignoring UpdateMetadata from controller 1 epoch 2: STALE_CONTROLLER_EPOCH
[2025-03-04 10:00:04,000] INFO pybroker.state.change: Truncating partition chaos-split-1 to offset 120 (its log ended at 180, high watermark 118) as a follower of broker 3 in leader epoch 7
[2025-03-04 10:00:04,100] INFO pybroker.cluster.replica_fetcher: Truncating partition x-0 to offset 1 (not the state-change log)
[2025-03-04 10:00:05,000] INFO pybroker.controller.kafka_controller: Broker 2 resigned as the controller (epoch 3)
"""


def test_a_broker_log_is_read_for_elections_control_requests_and_truncations() -> None:
    events = parse_broker_log(BROKER_LOG, broker=2, wall_origin=WALL)
    assert [(e.kind, round(e.at, 3)) for e in events] == [
        ("elected", 1.25), ("applied", 2.0), ("ignored", 3.5), ("truncated", 4.0),
        ("resigned", 5.0)]
    elected, applied, ignored, truncated, resigned = events
    assert (elected.controller, elected.epoch) == (2, 3)
    assert (applied.request, applied.controller, applied.epoch) == ("LeaderAndIsr", 2, 3)
    assert (ignored.request, ignored.epoch, ignored.reason) == (
        "UpdateMetadata", 2, "STALE_CONTROLLER_EPOCH")
    assert (truncated.broker, truncated.partition, truncated.offset) == (2, "chaos-split-1", 120)
    assert (resigned.controller, resigned.epoch) == (2, 3)


def event(at: float, kind: str, broker: int = 1, controller: int = -1, epoch: int = -1,
          request: str = "UpdateMetadata") -> LogEvent:
    return LogEvent(at, broker, kind, controller, epoch, request)


def test_a_deposed_controllers_request_applied_after_the_takeover_is_caught() -> None:
    events = [event(0.0, "elected", 1, 1, 1), event(1.0, "applied", 2, 1, 1),
              event(10.0, "elected", 2, 2, 2), event(10.5, "applied", 3, 2, 2),
              # the old controller, cut off from ZooKeeper, is refused, then stops
              event(11.0, "ignored", 3, 1, 1), event(14.0, "resigned", 1, 1, 1)]
    fencing = check_controller_fencing(events)
    first, second = fencing.takeovers
    assert (first.epoch, first.previous, second.epoch, second.previous) == (1, None, 2, 1)
    assert second.previous_resigned == 14.0
    assert (fencing.stale_applied, fencing.stale_refused, fencing.stale_after_resignation) == (
        0, 1, 0)
    # a broker applying epoch 1 after epoch 2 was elected is a fencing failure; one that
    # comes seconds after the old controller resigned shows it went on sending
    worse = check_controller_fencing(events + [event(12.0, "applied", 2, 1, 1),
                                               event(16.0, "ignored", 3, 1, 1)])
    assert worse.stale_applied == 1 and worse.stale_after_resignation == 1
    # requests of the same epoch, or before the takeover, are not stale
    assert check_controller_fencing(events[:2] + [event(9.0, "applied", 3, 1, 1)]).stale_applied == 0


# -- the split --------------------------------------------------------------------------------

SPLIT_TP = ("chaos-split", 0)


def write(broker: int, acks: int, n: int, at: float, offset: int = -1, error: int = 0,
          ) -> ProbeWrite:
    return ProbeWrite(broker, acks, *SPLIT_TP, b"w%d.%d" % (broker, n), at - 0.01, at, error,
                      offset)


def split_case() -> tuple[Split, list[ProbeWrite], dict[tuple[str, int], list[tuple[int, bytes]]]]:
    """Broker 1 leads, is cut off at t=10 until t=20; broker 2 leads from t=17 on. Broker 1
    takes acks=1 writes at offsets 5-7 after the cut, broker 2 writes from offset 5 too."""
    writes = [write(1, -1, 0, 5.0, 0), write(1, 1, 1, 6.0, 1), write(1, -1, 2, 9.0, 2),
              write(1, 1, 3, 9.5, 3), write(1, 1, 4, 10.2, 4),  # in flight at the cut
              write(1, 1, 5, 13.0, 5), write(1, 1, 6, 15.0, 6), write(1, 1, 7, 19.0, 7),
              write(1, -1, 8, 16.0, error=7),  # acks=all: REQUEST_TIMED_OUT
              write(2, -1, 9, 18.0, 5), write(2, 1, 10, 19.0, 6)]
    final = {SPLIT_TP: [(w.offset, w.value) for w in writes if w.broker == 1 and w.offset <= 4]
             + [(5, b"w2.9"), (6, b"w2.10")]}
    return Split(1, SPLIT_TP, 10.0, 20.0), writes, final


TRUNCATION = LogEvent(22.0, 1, "truncated", partition="chaos-split-0", offset=5)


def test_a_split_leader_whose_acks_one_writes_are_truncated_and_logged_passes() -> None:
    split, writes, final = split_case()
    result = check_split([split], writes, final, [TRUNCATION], acks_all_deadline=5.0)
    [o] = result.splits
    assert result.failures == dict.fromkeys(result.failures, 0), result.failures
    assert (o.new_leader, o.acks_one_after_cut, o.truncated, o.kept, o.first_truncated) == (
        2, 3, 3, 0, 5)
    assert o.acks_all_after_cut == 0 and o.last_acks_all_after_cut is None
    assert (result.acks_all_taken, result.acks_one_taken, result.sent) == (3, 7, 11)


def test_what_a_split_leader_must_not_do_is_counted() -> None:
    split, writes, final = split_case()
    # an acks=all acknowledgement from the cut leader 6 s after the cut (it cannot have been
    # replicated), lost too
    late = write(1, -1, 11, 16.0, 8)
    # an acks=1 write taken after the cut that survived although broker 2 took over
    final[SPLIT_TP].append((7, b"w1.7"))
    result = check_split([split], writes + [late], final, [], acks_all_deadline=5.0)
    [o] = result.splits
    assert result.failures["split_acks_all_late"] == 1 and o.last_acks_all_after_cut == 6.0
    assert result.failures["split_lost"] == 1 and result.lost == [late]
    assert result.failures["split_acks_one_kept"] == 1 and o.kept == 1
    # truncated writes, and no truncation in the cut broker's state-change log
    assert result.failures["split_truncation_unlogged"] == 1
    # a truncation logged above the first truncated write does not count either
    high = LogEvent(22.0, 1, "truncated", partition="chaos-split-0", offset=6)
    assert check_split([split], writes, split_case()[2], [high], acks_all_deadline=5.0
                       ).failures["split_truncation_unlogged"] == 1
    # nor one of another broker
    other = LogEvent(22.0, 2, "truncated", partition="chaos-split-0", offset=5)
    assert check_split([split], writes, split_case()[2], [other], acks_all_deadline=5.0
                       ).failures["split_truncation_unlogged"] == 1


def test_without_a_new_leader_the_cut_leaders_writes_may_stay() -> None:
    split, writes, _ = split_case()
    alone = [w for w in writes if w.broker == 1]
    final = {SPLIT_TP: [(w.offset, w.value) for w in alone if w.taken]}
    result = check_split([split], alone, final, [], acks_all_deadline=5.0)
    [o] = result.splits
    assert o.new_leader is None and o.kept == 3 and o.truncated == 0
    assert result.failures == dict.fromkeys(result.failures, 0)


def test_probe_values_twice_in_the_log_are_duplicates() -> None:
    split, writes, final = split_case()
    final[SPLIT_TP].append((7, b"w2.9"))
    assert check_split([split], writes, final, [TRUNCATION], acks_all_deadline=5.0
                       ).duplicated == 1


# -- transactions -----------------------------------------------------------------------------

A, B = ("x", 0), ("x", 1)


def txn(n: int, outcome: str, *parts: tuple[str, int]) -> Txn:
    return Txn(n, outcome, tuple((tp, b"t%d.%d.%d" % (n, tp[1], i))
                                 for i, tp in enumerate(parts)))


def txn_log(*txns: Txn) -> dict[tuple[str, int], list[tuple[int, bytes]]]:
    """Each partition's read_committed log holding ``txns`` in order, offsets as markers
    leave them (one offset skipped after each transaction's values)."""
    out: dict[tuple[str, int], list[tuple[int, bytes]]] = {A: [], B: []}
    nxt = {A: 0, B: 0}
    for t in txns:
        for tp, value in t.writes:
            out[tp].append((nxt[tp], value))
            nxt[tp] += 1
        for tp in {tp for tp, _ in t.writes}:
            nxt[tp] += 1  # the marker
    return out


def test_committed_transactions_read_whole_and_aborted_ones_never() -> None:
    t0, t1, t2 = txn(0, COMMITTED, A, B, A), txn(1, ABORTED, A, B), txn(2, COMMITTED, B)
    final = txn_log(t0, t2)
    group = {tp: set(records) for tp, records in final.items()}
    result = check_transactions([t0, t1, t2], final, group)
    assert result.failures == dict.fromkeys(result.failures, 0), result.failures
    assert (result.committed, result.aborted, result.read_whole, result.values_read) == (
        2, 1, 2, 4)


def test_an_aborted_value_read_or_a_committed_one_missing_fails() -> None:
    t0, t1 = txn(0, COMMITTED, A, B), txn(1, ABORTED, A, B)
    final = txn_log(t0)
    # the group read an aborted value (at an offset the final log holds nothing at)
    group = {A: {final[A][0], (5, t1.writes[0][1])}, B: set(final[B])}
    result = check_transactions([t0, t1], final, group)
    assert result.aborted_read == 1 and result.phantom == 1
    # an aborted value in the final log counts too
    assert check_transactions([t1], txn_log(t1), {}).aborted_read == 2
    # a committed transaction missing a value, read in part
    short = {A: final[A], B: []}
    lost = check_transactions([t0], short, {A: set(final[A])})
    assert lost.committed_lost == 1 and lost.committed_partial == 1
    # read by nobody: a liveness failure
    assert check_transactions([t0], final, {}).group_missed == 1


def test_a_transaction_out_of_order_twice_or_in_part_fails() -> None:
    t0 = txn(0, COMMITTED, A, A)
    final = {A: [(0, t0.writes[1][1]), (1, t0.writes[0][1])], B: []}
    assert check_transactions([t0], final, {}).out_of_order == 1
    twice = {A: [(0, t0.writes[0][1]), (1, t0.writes[1][1]), (3, t0.writes[1][1])], B: []}
    assert check_transactions([t0], twice, {}).duplicated == 1
    # an unknown outcome is whole or absent; in part it fails
    u = txn(1, UNKNOWN, A, B)
    assert check_transactions([u], txn_log(), {}).unknown_partial == 0
    whole = check_transactions([u], txn_log(u), {})
    assert whole.unknown_partial == 0 and whole.unknown_committed == 1
    half = txn_log(u)
    half[B] = []
    assert check_transactions([u], half, {}).unknown_partial == 1


# -- committed offsets ------------------------------------------------------------------------


def sample(at: float, committed: int, hw: int, tp: tuple[str, int] = TP, broker: int = 1,
           ) -> OffsetSample:
    return OffsetSample(at, tp, committed, broker, ((broker, hw),))


def test_committed_offsets_that_only_go_up_below_the_high_watermark_pass() -> None:
    samples = [sample(1.0, -1, 10), sample(2.0, 5, 10), sample(3.0, 5, 12), sample(4.0, 9, 12),
               sample(4.0, 1, 3, ("t", 1))]
    commits = [OffsetCommit(1.5, TP, 5), OffsetCommit(3.5, TP, 9)]
    result = check_offsets(samples, commits)
    assert result.failures == dict.fromkeys(result.failures, 0)
    assert (result.samples, result.commits) == (4, 2)


def test_committed_offsets_going_back_or_past_the_high_watermark_fail() -> None:
    commits = [OffsetCommit(1.5, TP, 5), OffsetCommit(3.5, TP, 9)]
    back = check_offsets([sample(2.0, 5, 10), sample(3.0, 4, 10)], commits)
    assert back.failures["offsets_backwards"] == 1
    # below a commit acknowledged before the sample was asked: a lost commit, even when no
    # earlier sample saw it
    lost = check_offsets([sample(4.0, 5, 12)], commits)
    assert lost.failures == {"offsets_backwards": 0, "offsets_past_high_watermark": 0,
                             "offsets_below_acknowledged": 1}
    # a commit acknowledged after the sample was asked may not show yet
    assert check_offsets([sample(3.0, 5, 12)], commits).failures["offsets_below_acknowledged"] == 0
    past = check_offsets([sample(2.0, 11, 10)], [])
    assert past.failures["offsets_past_high_watermark"] == 1
    # the highest high watermark a leader answered counts: a lower one is an old leader's
    two = OffsetSample(2.0, TP, 11, 1, ((1, 10), (2, 12)))
    assert check_offsets([two], []).failures["offsets_past_high_watermark"] == 0


def test_a_cut_off_brokers_answers_are_set_aside_while_it_may_not_know() -> None:
    """Broker 2, cut off from t=10 to t=20 (suspect until t=30), still answers as the
    coordinator with the offset it had; broker 3 took over and has the commits."""
    commits = [OffsetCommit(5.0, TP, 5), OffsetCommit(15.0, TP, 9)]
    samples = [sample(6.0, 5, 20, broker=2), sample(16.0, 5, 20, broker=2),
               sample(17.0, 9, 20, broker=3), sample(18.0, 5, 8, broker=2)]
    result = check_offsets(samples, commits, suspect=[(2, 10.0, 30.0)])
    assert result.failures == dict.fromkeys(result.failures, 0), result.failures
    assert (result.samples, result.suspect, result.suspect_stale) == (2, 2, 2)
    # judged without the suspicion, its stale answers are a commit lost and a step back
    judged = check_offsets(samples, commits)
    assert judged.failures["offsets_below_acknowledged"] == 2
    assert judged.failures["offsets_backwards"] == 1
    # its suspicion ends: a stale answer after that fails
    late = check_offsets(samples + [sample(31.0, 5, 20, broker=2)], commits,
                         suspect=[(2, 10.0, 30.0)])
    assert late.failures["offsets_below_acknowledged"] == 1
    # a suspect leader's high watermark is not the partition's
    past = OffsetSample(17.0, TP, 9, 3, ((2, 5),))
    assert check_offsets([past], [], suspect=[(2, 10.0, 30.0)]
                         ).failures["offsets_past_high_watermark"] == 0
    assert check_offsets([past], []).failures["offsets_past_high_watermark"] == 1
