"""The failover tests' verdicts (pybroker.testing.failover) on made-up histories: each failure
they exist to catch is caught, and a clean history passes."""

from __future__ import annotations

from pybroker.coordinator.partitioning import partition_for
from pybroker.testing.failover import (
    Commit,
    Read,
    committed_at,
    first_ack_after,
    group_sharing_partition,
    judge_group,
    judge_order,
    longest_gap,
)


def reads(member: str, partition: int, offsets: range, at: float, step: float = 0.01,
          ) -> list[Read]:
    return [Read(member, partition, o, b"p%d-%d" % (partition, o), at + i * step)
            for i, o in enumerate(offsets)]


def values(partition: int, offsets: range) -> list[bytes]:
    return [b"p%d-%d" % (partition, o) for o in offsets]


def test_a_clean_history_passes() -> None:
    history = reads("a", 0, range(0, 10), at=1.0) + reads("b", 1, range(0, 10), at=1.0)
    commits = [Commit("a", 1.2, {0: 10}, True), Commit("b", 1.2, {1: 10}, True)]
    v = judge_group(values(0, range(10)) + values(1, range(10)), history, commits, faults=[5.0])
    assert v.failures == dict.fromkeys(v.failures, 0)
    assert (v.duplicates, v.allowed_duplicates, v.rewinds) == (0, 0, [])
    assert v.committed == {0: 10, 1: 10}
    assert (v.commits_ok, v.commits_failed) == (2, 0)


def test_a_missing_record_and_a_record_never_acknowledged_are_caught() -> None:
    history = reads("a", 0, range(0, 5), at=1.0)
    v = judge_group(values(0, range(4)) + [b"lost"], history, [], faults=[])
    assert v.missing == [b"lost"]
    assert v.unexpected == [b"p0-4"]


def test_re_reading_after_a_fault_from_the_last_commit_is_allowed_and_counted() -> None:
    # read 0..19, committed 10 before the kill at t=2, then re-read from 10 after a rebalance
    history = (reads("a", 0, range(0, 20), at=1.0)
               + reads("b", 0, range(10, 30), at=3.0))
    commits = [Commit("a", 1.1, {0: 10}, True), Commit("a", 2.5, {0: 20}, False),
               Commit("b", 3.5, {0: 30}, True)]
    v = judge_group(values(0, range(30)), history, commits, faults=[2.0])
    assert v.duplicates == 10
    assert v.allowed_duplicates == 10
    [rewind] = v.rewinds
    assert (rewind.start, rewind.high, rewind.fault, rewind.committed) == (10, 20, 2.0, 10)
    assert rewind.explained
    assert v.failures == dict.fromkeys(v.failures, 0)
    assert v.committed == {0: 30}
    assert (v.commits_ok, v.commits_failed) == (2, 1)


def test_re_reading_below_the_last_commit_before_the_fault_is_a_lost_commit() -> None:
    history = (reads("a", 0, range(0, 20), at=1.0)
               + reads("b", 0, range(5, 30), at=3.0))
    commits = [Commit("a", 1.1, {0: 10}, True)]
    v = judge_group(values(0, range(30)), history, commits, faults=[2.0])
    [rewind] = v.unexplained
    assert (rewind.start, rewind.committed) == (5, 10)
    assert v.failures["unexplained re-reads"] == 1
    assert v.failures["duplicates beyond the bound"] == 5  # 15 re-read, 10 allowed


def test_re_reading_with_no_fault_before_it_is_caught() -> None:
    history = reads("a", 0, range(0, 10), at=1.0) + reads("a", 0, range(5, 10), at=2.0)
    v = judge_group(values(0, range(10)), history, [Commit("a", 1.5, {0: 5}, True)],
                    faults=[3.0])
    [rewind] = v.unexplained
    assert rewind.fault is None
    assert v.duplicates == 5


def test_the_same_offset_with_another_value_is_caught() -> None:
    history = [Read("a", 0, 0, b"x", 1.0), Read("b", 0, 0, b"y", 3.0)]
    v = judge_group([b"x", b"y"], history, [], faults=[2.0])
    assert v.inconsistent == [(0, 0)]


def test_committed_at_takes_the_last_successful_commit_by_end_time() -> None:
    commits = [Commit("b", 2.0, {0: 7, 1: 3}, True), Commit("a", 1.0, {0: 5}, True),
               Commit("a", 3.0, {0: 9}, False)]
    assert committed_at(commits) == {0: 7, 1: 3}
    assert committed_at(commits, 1.5) == {0: 5}
    assert committed_at(commits, 0.5) == {}


def test_order_verdict_catches_a_duplicate_a_gap_and_a_swap() -> None:
    sent = [b"0", b"1", b"2", b"3"]
    assert judge_order(sent, sent).failures == dict.fromkeys(judge_order(sent, sent).failures, 0)
    dup = judge_order(sent, [b"0", b"1", b"1", b"2", b"3"])
    assert dup.duplicated == {b"1": 2} and dup.failures["duplicated"] == 2
    assert judge_order(sent, [b"0", b"2", b"3"]).missing == [b"1"]
    assert judge_order(sent, [b"0", b"2", b"1", b"3"]).out_of_order == 1
    assert judge_order(sent, [*sent, b"x"]).unexpected == [b"x"]


def test_first_ack_after_counts_only_records_sent_after_the_fault() -> None:
    acks = [(0.5, 10.0), (1.0, 1.1), (2.5, 9.0), (3.0, 8.5)]
    assert first_ack_after(acks, 2.0) == 6.5
    assert first_ack_after(acks, 4.0) is None


def test_longest_gap() -> None:
    assert longest_gap([1.0, 2.0, 8.0], 0.0, 10.0) == 6.0
    assert longest_gap([], 0.0, 3.0) == 3.0


def test_a_group_sharing_the_partition_has_the_same_coordinator() -> None:
    other = group_sharing_partition("orders-group", 3, "witness")
    assert other.startswith("witness-")
    assert partition_for(other, 3) == partition_for("orders-group", 3)
