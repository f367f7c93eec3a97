"""A partition's roles, ISR states and high watermark (pybroker.cluster.partition), over a real
log in a temporary directory. Time is passed in; nothing here waits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.record import iter_batches
from pybroker.cluster.isr import CommittedPartitionState, PendingExpandIsr, PendingShrinkIsr
from pybroker.cluster.partition import Partition, Role
from pybroker.log import FileSlice, Log, LogConfig
from pybroker.metadata.model import PartitionRecord
from tests.unit.protocol.records.helpers import value_batch as batch

T0 = 1_700_000_000_000
LOCAL = 0


def open_log(tmp_path: Path, logs: list[Log], name: str = "t-0") -> Log:
    log = Log.open(tmp_path / name, LogConfig(), now_ms=T0)
    logs.append(log)
    return log


def leader(tmp_path: Path, logs: list[Log], isr: tuple[int, ...] = (LOCAL,),
           replicas: tuple[int, ...] | None = None, epoch: int = 0) -> Partition:
    p = Partition("t", 0, LOCAL)
    replicas = replicas or isr
    p.make_leader(PartitionRecord(0, replicas, isr, LOCAL, epoch), open_log(tmp_path, logs), T0)
    return p


def append(p: Partition, n: int = 1, acks: int = 1, min_isr: int = 1) -> int:
    info = p.append_records_to_leader(batch(n), required_acks=acks, min_insync_replicas=min_isr,
                                      now_ms=T0)
    return info.last_offset + 1


def moved(p: Partition, replica: int, offset: int, now: int) -> bool:
    return p.update_follower_fetch_state(replica, offset, now).high_watermark_moved


def test_a_lone_leader_moves_its_high_watermark_with_every_append(tmp_path, logs) -> None:
    p = leader(tmp_path, logs)
    assert p.role is Role.LEADER and p.is_leader and p.isr == (LOCAL,)
    assert append(p, 3) == 3
    assert p.high_watermark == 3


def test_the_high_watermark_waits_for_every_follower_in_the_isr(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1, 2))
    append(p, 5)
    assert p.high_watermark == 0  # no follower has fetched yet
    assert not moved(p, 1, 5, T0 + 1)  # replica 2 still at nothing
    assert p.high_watermark == 0
    assert moved(p, 2, 3, T0 + 1)
    assert p.high_watermark == 3  # the smallest log end offset in the ISR
    assert moved(p, 2, 5, T0 + 2)
    assert p.high_watermark == 5
    # it never moves back, whatever a follower says later
    assert not moved(p, 2, 1, T0 + 3)
    assert p.high_watermark == 5


def test_a_replica_outside_the_isr_does_not_hold_the_high_watermark_back(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1), replicas=(0, 1, 2))
    append(p, 4)
    # (not caught up either: a new leader counts replicas outside the ISR as lagging)
    p.update_follower_fetch_state(1, 4, T0)
    assert p.high_watermark == 4
    # ...and its fetches are tracked all the same
    p.update_follower_fetch_state(2, 2, T0)
    assert p.remote_replicas[2].log_end_offset == 2


def test_a_fetch_from_a_broker_that_is_not_a_follower_is_refused(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1))
    with pytest.raises(KafkaError) as e:
        p.update_follower_fetch_state(7, 0, T0)
    assert e.value.code == ErrorCode.NOT_LEADER_OR_FOLLOWER


def test_pending_isr_changes_count_towards_the_maximal_isr_only() -> None:
    committed = CommittedPartitionState(frozenset({0, 1}))
    expand = PendingExpandIsr(2, committed)
    assert expand.isr == {0, 1} and expand.maximal_isr == {0, 1, 2} and expand.is_inflight
    shrink = PendingShrinkIsr(frozenset({1}), committed)
    assert shrink.isr == {0, 1} and shrink.maximal_isr == {0, 1} and shrink.is_inflight
    assert not committed.is_inflight


def test_a_pending_expansion_is_waited_for_by_the_high_watermark(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0,), replicas=(0, 1))
    append(p, 2)
    assert p.high_watermark == 2
    p.partition_state = PendingExpandIsr(1, CommittedPartitionState(frozenset({0})))
    append(p, 2)
    assert p.high_watermark == 2  # replica 1 is about to join: the leader waits for it
    p.update_follower_fetch_state(1, 4, T0)
    assert p.high_watermark == 4


def test_acks_all_is_refused_before_the_append_when_the_isr_is_too_small(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0,), replicas=(0, 1, 2))
    with pytest.raises(KafkaError) as e:
        append(p, 1, acks=-1, min_isr=2)
    assert e.value.code == ErrorCode.NOT_ENOUGH_REPLICAS
    assert p.log_end_offset == 0  # nothing was appended
    assert append(p, 1, acks=1, min_isr=2) == 1  # acks=1 does not care


def test_min_insync_replicas_above_the_replication_factor_counts_as_it(tmp_path, logs) -> None:
    p = leader(tmp_path, logs)
    assert append(p, 1, acks=-1, min_isr=3) == 1  # KIP-966: one replica, min.isr 3


def test_when_an_acks_all_append_may_be_answered(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1))
    end = append(p, 3, acks=-1, min_isr=2)
    assert p.check_enough_replicas_reach_offset(end, 2) == (False, ErrorCode.NONE)
    p.update_follower_fetch_state(1, end, T0)
    assert p.check_enough_replicas_reach_offset(end, 2) == (True, ErrorCode.NONE)
    # replicated, but the ISR shrank below min.insync.replicas meanwhile
    p.partition_state = CommittedPartitionState(frozenset({0}))
    assert p.check_enough_replicas_reach_offset(end, 2) == (
        True, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND)
    p.make_follower(PartitionRecord(0, (0, 1), (1,), 1, 1), p.log)  # type: ignore[arg-type]
    assert p.check_enough_replicas_reach_offset(end, 2) == (
        True, ErrorCode.NOT_LEADER_OR_FOLLOWER)


def test_leading_again_in_the_same_epoch_changes_nothing_for_clients(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1), epoch=3)
    p.update_follower_fetch_state(1, 0, T0)
    log = p.log
    assert log is not None
    assert p.make_leader(PartitionRecord(0, (0, 1), (0, 1), LOCAL, 3), log, T0) is False
    assert p.remote_replicas[1].last_fetch_time_ms == T0  # positions kept
    assert p.make_leader(PartitionRecord(0, (0, 1), (0, 1), LOCAL, 4), log, T0 + 9) is True
    # led again in a new epoch: the follower counts as caught up now; what it fetched is kept
    # (Kafka's resetReplicaState for a leader that already led)
    replica = p.remote_replicas[1]
    assert (replica.log_end_offset, replica.last_caught_up_time_ms) == (0, T0 + 9)
    p.make_follower(PartitionRecord(0, (0, 1), (0, 1), 1, 5), log)
    p.make_leader(PartitionRecord(0, (0, 1), (0, 1), LOCAL, 6), log, T0 + 20)
    assert p.remote_replicas[1].log_end_offset == -1  # a new leader learns it afresh


def test_a_follower_appends_what_its_leader_wrote_byte_for_byte(tmp_path, logs) -> None:
    leading = leader(tmp_path, logs, isr=(0, 1))
    append(leading, 3)
    append(leading, 2)
    assert leading.log is not None
    slice_ = leading.log.read(0, 1 << 20)
    assert isinstance(slice_.records, FileSlice)
    fetched = slice_.records.read_bytes()

    follower = Partition("t", 0, 1)
    follower_log = open_log(tmp_path, logs, "follower-t-0")
    assert follower.make_follower(PartitionRecord(0, (0, 1), (0, 1), 0, 0), follower_log)
    assert follower.role is Role.FOLLOWER and not follower.is_leader
    appended = follower.append_records_to_follower(fetched, leader_high_watermark=3, now_ms=T0)
    assert (appended.batches, appended.first_offset, appended.last_offset) == (2, 0, 4)
    assert appended.last_leader_epoch == 0 and appended.valid_bytes == len(fetched)
    assert follower.log_end_offset == 5 and follower.high_watermark == 3
    copy = follower_log.read(0, 1 << 20).records
    assert isinstance(copy, FileSlice) and copy.read_bytes() == fetched
    # a follower serves no reads and takes no produce
    with pytest.raises(KafkaError) as e:
        follower.read(0, 100, min_one_batch=True)
    assert e.value.code == ErrorCode.NOT_LEADER_OR_FOLLOWER


def test_a_truncation_that_drops_records_is_in_the_state_change_log(
        tmp_path, logs, caplog: pytest.LogCaptureFixture) -> None:
    """A leader that lost its place (acks=1 writes it took cut off from the cluster) becomes a
    follower and truncates: the state-change log names the partition and the offset, in
    Kafka's words; a truncation at the log end drops nothing and says nothing."""
    p = leader(tmp_path, logs, isr=(0, 1))
    append(p, 2)
    append(p, 3)
    assert p.log is not None
    p.make_follower(PartitionRecord(0, (0, 1), (0, 1), 1, 1), p.log)
    caplog.set_level("INFO", logger="pybroker.state.change")
    p.truncate_to(5)
    assert not [r for r in caplog.records if "Truncating" in r.getMessage()]
    p.truncate_to(2)
    [record] = [r for r in caplog.records if "Truncating" in r.getMessage()]
    assert record.name == "pybroker.state.change"
    assert re.match(
        r"\[Broker id=\d+\] Truncating partition t-0 to offset 2 \(its log ended at 5, high "
        r"watermark 0\) as a follower of broker 1 in leader epoch 1", record.getMessage()), \
        record.getMessage()
    assert p.log_end_offset == 2


def test_a_follower_rebuilds_idempotent_producer_state_from_replicated_batches(
        tmp_path, logs) -> None:
    leading = leader(tmp_path, logs)
    leading.append_records_to_leader(
        batch(2, producer_id=42, producer_epoch=0, base_sequence=0), required_acks=1,
        min_insync_replicas=1, now_ms=T0)
    assert leading.log is not None
    records = leading.log.read(0, 1 << 20).records
    assert isinstance(records, FileSlice)
    follower_log = open_log(tmp_path, logs, "follower-t-0")
    follower_log.append_as_follower(records.read_bytes(), T0)
    entry = follower_log.producer_state.producers[42]
    assert (entry.epoch, entry.last_seq) == (0, 1)
    # leading the same log now, the retried batch is recognised as a duplicate
    new_leader = Partition("t", 0, 1)
    new_leader.make_leader(PartitionRecord(0, (0, 1), (1,), 1, 1), follower_log, T0)
    again = new_leader.append_records_to_leader(
        batch(2, producer_id=42, producer_epoch=0, base_sequence=0), required_acks=1,
        min_insync_replicas=1, now_ms=T0)
    assert again.duplicate and again.first_offset == 0


def test_a_replicated_batch_must_start_at_the_log_end(tmp_path, logs) -> None:
    log = open_log(tmp_path, logs)
    stray = batch(1, base_offset=7)
    with pytest.raises(KafkaError):
        log.append_as_follower(stray, T0)
    assert log.log_end_offset == 0


def test_a_follower_takes_the_offset_gaps_of_a_compacted_leader(tmp_path, logs) -> None:
    """The cleaner removes whole batches, so a compacted leader's log has gaps: its follower
    appends the batches at their offsets (never before its log end)."""
    follower = Partition("t", 0, LOCAL)
    follower.make_follower(PartitionRecord(0, (2, LOCAL), (2, LOCAL), 2, 1),
                           open_log(tmp_path, logs))
    gapped = bytes(batch(2, base_offset=0)) + bytes(batch(1, base_offset=5))
    follower.append_records_to_follower(gapped, leader_high_watermark=6, now_ms=T0,
                                        leader_log_start_offset=0)
    assert follower.log is not None and follower.log.log_end_offset == 6
    data = follower.log.read(0, 1 << 20).records
    data = data.read_bytes() if isinstance(data, FileSlice) else data
    assert [h.base_offset for _, h in iter_batches(data)] == [0, 5]
    with pytest.raises(KafkaError):  # overlapping what it has
        follower.append_records_to_follower(bytes(batch(1, base_offset=4)),
                                            leader_high_watermark=6, now_ms=T0,
                                            leader_log_start_offset=0)


def test_a_cut_off_last_batch_is_left_for_the_next_fetch(tmp_path, logs) -> None:
    leading = leader(tmp_path, logs)
    append(leading, 1)
    append(leading, 1)
    assert leading.log is not None
    records = leading.log.read(0, 1 << 20).records
    assert isinstance(records, FileSlice)
    data = records.read_bytes()
    sizes = [h.size for _, h in iter_batches(data)]
    follower_log = open_log(tmp_path, logs, "follower-t-0")
    assert follower_log.append_as_follower(data[: sizes[0] + 10], T0).batches == 1
    assert follower_log.log_end_offset == 1


def test_list_offsets_sees_only_what_is_below_the_high_watermark(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1))
    append(p, 3)
    assert p.fetch_offset_for_timestamp(-1, -1).offset == 0  # latest: the high watermark
    assert p.fetch_offset_for_timestamp(T0, -1).offset == -1  # not visible yet
    p.update_follower_fetch_state(1, 3, T0)
    assert p.fetch_offset_for_timestamp(-1, -1).offset == 3
    found = p.fetch_offset_for_timestamp(T0 + 1, -1)
    assert (found.offset, found.timestamp, found.leader_epoch) == (1, T0 + 1, 0)
    with pytest.raises(KafkaError) as e:
        p.fetch_offset_for_timestamp(-1, 5)
    assert e.value.code == ErrorCode.UNKNOWN_LEADER_EPOCH
