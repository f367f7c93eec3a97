"""A leader's side of ISR replication, as pure logic with the clock passed in: how a follower's
fetches make it caught up (Kafka's Replica), when the ISR grows and shrinks, the high watermark
rule of Kafka 3.9, what the leader does with each AlterPartition answer, min.insync.replicas
before and after the append, and ListOffsets for a replica. Real logs in a temporary
directory; the controller is a stand-in that records what it is asked and answers as told."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.record import build_batch
from pybroker.cluster.alter_partition import IsrAnswer, IsrUpdate, RecordedIsr
from pybroker.cluster.isr import (
    CommittedPartitionState,
    IsrSettings,
    PendingExpandIsr,
    PendingShrinkIsr,
    ReplicaState,
)
from pybroker.cluster.partition import Partition
from pybroker.cluster.replica_fetch import FetchParams, FetchRequestPartition
from pybroker.cluster.replica_manager import ReplicaManager
from pybroker.kernel.clock import ManualClock
from pybroker.log import Log, LogConfig
from pybroker.log.manager import LogManager
from pybroker.metadata.model import PartitionRecord
from tests.unit.protocol.records.helpers import value_batch

T0 = 1_700_000_000_000
LAG = 10_000
LOCAL = 0
TP = ("t", 0)
SETTINGS = IsrSettings(replica_lag_time_max_ms=LAG, alter_isr=True)


# -- a follower's tracking (Kafka's Replica) -----------------------------------------------------


def test_a_fetch_at_the_leaders_log_end_makes_the_follower_caught_up_now() -> None:
    r = ReplicaState(1)
    r.update_fetch_state(10, 0, T0, leader_end_offset=10, broker_epoch=7)
    assert (r.log_end_offset, r.last_caught_up_time_ms, r.broker_epoch) == (10, T0, 7)
    assert r.last_fetch_leader_log_end_offset == 10 and r.last_fetch_time_ms == T0


def test_reaching_the_previous_fetchs_log_end_counts_from_that_fetch() -> None:
    # under a steady trickle of produces the follower never reaches the moving log end, but
    # each fetch reaches where the log ended at the one before: caught up as of that one
    r = ReplicaState(1)
    r.update_fetch_state(5, 0, T0, leader_end_offset=10, broker_epoch=-1)
    assert r.last_caught_up_time_ms == 0
    r.update_fetch_state(10, 0, T0 + 100, leader_end_offset=12, broker_epoch=-1)
    assert r.last_caught_up_time_ms == T0  # the time of the previous fetch
    r.update_fetch_state(11, 0, T0 + 200, leader_end_offset=14, broker_epoch=-1)
    assert r.last_caught_up_time_ms == T0  # 11 < 12: no progress to credit
    assert not r.is_caught_up(14, T0 + LAG + 1, LAG)
    assert r.is_caught_up(14, T0 + LAG, LAG)
    assert r.is_caught_up(11, T0 + 10 * LAG, LAG)  # at the leader's log end, whenever


def test_a_new_leader_epoch_resets_followers_by_isr_membership() -> None:
    r = ReplicaState(1)
    r.update_fetch_state(8, 2, T0, leader_end_offset=8, broker_epoch=3)
    r.reset(T0 + 50, 9, is_new_leader=False, in_sync=True)
    assert (r.log_end_offset, r.last_caught_up_time_ms, r.last_fetch_time_ms,
            r.last_fetch_leader_log_end_offset, r.broker_epoch) == (8, T0 + 50, T0 + 50, 9, 3)
    r.reset(T0 + 60, 9, is_new_leader=False, in_sync=False)
    assert (r.last_caught_up_time_ms, r.last_fetch_time_ms) == (0, 0)
    r.reset(T0 + 70, 9, is_new_leader=True, in_sync=True)
    assert (r.log_end_offset, r.last_caught_up_time_ms, r.broker_epoch) == (-1, T0 + 70, None)


# -- the partition ---------------------------------------------------------------------------------


def leader(tmp_path: Path, logs: list[Log], isr: tuple[int, ...], replicas=(0, 1, 2), *,
           min_isr: int = 1, settings: IsrSettings = SETTINGS, epoch: int = 0,
           now: int = T0) -> Partition:
    log = Log.open(tmp_path / f"t-0-{len(logs)}", LogConfig(min_insync_replicas=min_isr),
                   now_ms=T0)
    logs.append(log)
    p = Partition("t", 0, LOCAL, settings)
    p.make_leader(PartitionRecord(0, replicas, isr, LOCAL, epoch, partition_epoch=4), log, now)
    return p


def append(p: Partition, n: int = 1, acks: int = 1, now: int = T0) -> int:
    batch = value_batch(n)
    assert p.log is not None
    info = p.append_records_to_leader(batch, required_acks=acks,
                                      min_insync_replicas=p.log.config.min_insync_replicas,
                                      now_ms=now)
    return info.last_offset + 1


def test_a_follower_that_catches_up_is_proposed_for_the_isr(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1))
    append(p, 5)
    p.update_follower_fetch_state(1, 5, T0)
    assert p.high_watermark == 5
    # broker 2 behind the high watermark: not yet
    assert p.update_follower_fetch_state(2, 3, T0).isr_change is None
    update = p.update_follower_fetch_state(2, 5, T0 + 1, broker_epoch=42)
    change = update.isr_change
    assert isinstance(change, PendingExpandIsr) and p.partition_state is change
    assert change.new_in_sync_replica == 2 and change.maximal_isr == {0, 1, 2}
    assert p.isr == (0, 1)  # the committed ISR is unchanged until the controller records it
    # as Kafka's ZooKeeper-mode brokers: -1 for every member; the epoch stays in replica state
    assert change.sent == IsrUpdate(LOCAL, 0, (0, 1, 2), 4, 0, (-1, -1, -1))
    assert p.remote_replicas[2].broker_epoch == 42
    # one change at a time
    append(p, 1)
    assert p.update_follower_fetch_state(1, 6, T0 + 2).isr_change is None


def test_a_follower_must_reach_the_start_of_the_leader_epoch_to_join(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0,), replicas=(0, 1))
    append(p, 4)
    assert p.high_watermark == 4
    # leading again in epoch 1: it starts at offset 4 (KAFKA-7128)
    assert p.log is not None
    p.make_leader(PartitionRecord(0, (0, 1), (0,), LOCAL, 1, 5), p.log, T0)
    p.high_watermark = 2  # (a high watermark that lags the epoch start, as after a failover)
    assert p.update_follower_fetch_state(1, 3, T0).isr_change is None  # >= HW, < epoch start
    assert p.update_follower_fetch_state(1, 4, T0).isr_change is not None


def test_only_eligible_brokers_join_and_only_where_isr_changes_are_enabled(tmp_path,
                                                                           logs) -> None:
    dead = IsrSettings(replica_lag_time_max_ms=LAG, alter_isr=True,
                       is_eligible=lambda b: b != 1)
    p = leader(tmp_path, logs, isr=(0,), replicas=(0, 1), settings=dead)
    assert p.update_follower_fetch_state(1, 0, T0).isr_change is None
    embedded = leader(tmp_path, logs, isr=(0,), replicas=(0, 1), settings=IsrSettings())
    assert embedded.update_follower_fetch_state(1, 0, T0).isr_change is None
    assert embedded.maybe_shrink_isr(T0 + 10 * LAG) is None


def test_members_that_fall_behind_for_the_lag_time_are_proposed_out(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1, 2))
    append(p, 3)
    p.update_follower_fetch_state(1, 3, T0 + 1000)
    p.update_follower_fetch_state(2, 3, T0 + 1000)
    append(p, 2, now=T0 + 2000)
    p.update_follower_fetch_state(1, 5, T0 + 3000)  # 1 keeps up, 2 stops fetching
    assert p.maybe_shrink_isr(T0 + 1000 + LAG) is None  # 2 was at the log end at T0+1000
    assert p.out_of_sync_replicas(T0 + 1001 + LAG) == {2}
    change = p.maybe_shrink_isr(T0 + 1001 + LAG)
    assert isinstance(change, PendingShrinkIsr) and change.out_of_sync == {2}
    assert change.sent is not None and change.sent.isr == (0, 1)
    # until the controller records it, 2 still holds the high watermark back
    assert change.maximal_isr == {0, 1, 2} and p.high_watermark == 3
    assert p.maybe_shrink_isr(T0 + 10 * LAG) is None  # in flight already


def test_a_new_leaders_isr_members_get_the_lag_time_to_fetch(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1, 2), now=T0)
    assert p.maybe_shrink_isr(T0 + LAG) is None
    change = p.maybe_shrink_isr(T0 + LAG + 1)
    assert change is not None and change.out_of_sync == {1, 2}


def test_the_high_watermark_waits_for_caught_up_followers_about_to_join(tmp_path,
                                                                        logs) -> None:
    p = leader(tmp_path, logs, isr=(0,), replicas=(0, 1), settings=IsrSettings(
        replica_lag_time_max_ms=LAG, alter_isr=False))  # (no expansion: the rule alone)
    append(p, 4)
    assert p.high_watermark == 4
    append(p, 4)
    # replica 1 fetched at the log end a moment ago: caught up, eligible, so waited for
    p.update_follower_fetch_state(1, 8, T0)
    append(p, 2, now=T0 + 1)
    p.update_follower_fetch_state(1, 9, T0 + 2)
    assert p.high_watermark == 9
    # once it has lagged for longer than replica.lag.time.max.ms it is not
    append(p, 1, now=T0 + 2 * LAG)
    assert p.high_watermark == 11


def test_the_high_watermark_stands_still_under_min_insync_replicas(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0,), replicas=(0, 1, 2), min_isr=2)
    assert p.is_under_min_isr
    assert append(p, 3, acks=1) == 3  # acks=1 is taken...
    assert p.high_watermark == 0  # ...but not visible until the ISR has grown back
    with pytest.raises(KafkaError) as e:
        append(p, 1, acks=-1)
    assert e.value.code == ErrorCode.NOT_ENOUGH_REPLICAS
    assert p.log_end_offset == 3  # nothing written


# -- AlterPartition answers ----------------------------------------------------------------------


def recorded(isr: tuple[int, ...], partition_epoch: int = 5, leader_epoch: int = 0,
             ) -> RecordedIsr:
    return RecordedIsr(LOCAL, leader_epoch, isr, 0, partition_epoch)


def shrunk(tmp_path: Path, logs: list[Log]) -> tuple[Partition, PendingShrinkIsr, int]:
    """A leader of ISR {0,1,2} at min.insync.replicas 2, broker 2 silent past the lag time
    and a batch written that only broker 1 has: the shrink is pending."""
    p = leader(tmp_path, logs, isr=(0, 1, 2), min_isr=2)
    end = append(p, 3, acks=-1)
    p.update_follower_fetch_state(1, end, T0 + LAG)
    change = p.maybe_shrink_isr(T0 + LAG + 1)
    assert isinstance(change, PendingShrinkIsr)
    return p, change, end


def test_a_recorded_shrink_is_taken_and_moves_the_high_watermark(tmp_path, logs) -> None:
    p, change, end = shrunk(tmp_path, logs)
    assert p.high_watermark == 0 and p.check_enough_replicas_reach_offset(end, 2) == (
        False, ErrorCode.NONE)
    moved, again = p.handle_alter_partition_answer(change, recorded((0, 1)), T0 + LAG + 2)
    assert (moved, again) == (True, False)
    assert p.partition_state == CommittedPartitionState(frozenset({0, 1}))
    assert p.partition_epoch == 5 and p.high_watermark == end
    assert p.check_enough_replicas_reach_offset(end, 2) == (True, ErrorCode.NONE)


def test_a_shrink_below_min_insync_replicas_answers_waiting_produces_so(tmp_path,
                                                                        logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1), replicas=(0, 1), min_isr=2)
    end = append(p, 2, acks=-1)
    p.update_follower_fetch_state(1, end, T0)
    assert p.high_watermark == end
    # a follower at the log end is in sync however long ago it fetched: write more
    assert p.maybe_shrink_isr(T0 + 2 * LAG) is None
    append(p, 1, acks=1, now=T0 + 1)
    change = p.maybe_shrink_isr(T0 + 2 * LAG)
    assert change is not None
    p.handle_alter_partition_answer(change, recorded((0,)), T0 + 2 * LAG)
    assert p.check_enough_replicas_reach_offset(end, 2) == (
        True, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND)


@pytest.mark.parametrize("answer", [
    ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.INVALID_UPDATE_VERSION,
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.INVALID_REQUEST,
    ErrorCode.NEW_LEADER_ELECTED])
def test_a_refused_shrink_stays_pending_and_never_acknowledges_on_it(tmp_path, logs,
                                                                     answer) -> None:
    p, change, end = shrunk(tmp_path, logs)
    assert p.handle_alter_partition_answer(change, answer, T0 + LAG + 2) == (False, False)
    assert p.partition_state is change  # until the controller's LeaderAndIsr
    assert p.high_watermark == 0  # broker 2 is still waited for
    assert p.check_enough_replicas_reach_offset(end, 2) == (False, ErrorCode.NONE)
    assert p.maybe_shrink_isr(T0 + 5 * LAG) is None
    # the controller's LeaderAndIsr settles it
    assert p.log is not None
    p.make_leader(PartitionRecord(0, (0, 1, 2), (0, 1), LOCAL, 1, 6), p.log, T0 + 5 * LAG)
    assert p.partition_state == CommittedPartitionState(frozenset({0, 1}))


@pytest.mark.parametrize("answer", [ErrorCode.INELIGIBLE_REPLICA,
                                    ErrorCode.OPERATION_NOT_ATTEMPTED])
def test_an_update_the_controller_did_not_apply_goes_back_to_the_committed_isr(
        tmp_path, logs, answer) -> None:
    p = leader(tmp_path, logs, isr=(0, 1))
    change = p.update_follower_fetch_state(2, 0, T0).isr_change
    assert change is not None
    assert p.handle_alter_partition_answer(change, answer, T0) == (False, False)
    assert p.partition_state == change.last_committed
    # and the next fetch may propose it again
    assert p.update_follower_fetch_state(2, 0, T0 + 1).isr_change is not None


def test_other_errors_are_sent_again(tmp_path, logs) -> None:
    p, change, _ = shrunk(tmp_path, logs)
    assert p.handle_alter_partition_answer(change, ErrorCode.UNKNOWN_SERVER_ERROR,
                                           T0) == (False, True)
    assert p.partition_state is change


def test_answers_for_another_epoch_or_an_older_state_are_ignored(tmp_path, logs) -> None:
    p, change, _ = shrunk(tmp_path, logs)
    assert p.handle_alter_partition_answer(change, recorded((0, 1), leader_epoch=7),
                                           T0) == (False, False)
    assert p.handle_alter_partition_answer(change, recorded((0, 1), partition_epoch=3),
                                           T0) == (False, False)
    assert p.partition_state is change
    # an answer to a proposal the partition has moved on from changes nothing (KAFKA-12686)
    assert p.log is not None
    p.make_leader(PartitionRecord(0, (0, 1, 2), (0, 1, 2), LOCAL, 1, 9), p.log, T0)
    assert p.handle_alter_partition_answer(change, recorded((0, 1), partition_epoch=10),
                                           T0) == (False, False)
    assert p.isr == (0, 1, 2) and p.partition_epoch == 9


def test_an_expansion_is_waited_for_at_once_and_committed_on_the_answer(tmp_path,
                                                                        logs) -> None:
    p = leader(tmp_path, logs, isr=(0,), replicas=(0, 1), min_isr=2)
    append(p, 2, acks=1)
    assert p.high_watermark == 0  # under min.insync.replicas
    change = p.update_follower_fetch_state(1, 2, T0).isr_change
    assert change is not None and p.high_watermark == 0  # not yet committed: still under
    moved, _ = p.handle_alter_partition_answer(change, recorded((0, 1)), T0)
    assert moved and p.high_watermark == 2 and p.isr == (0, 1)


# -- ListOffsets ---------------------------------------------------------------------------


def test_list_offsets_from_a_replica_reads_up_to_the_log_end(tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1))
    append(p, 3)
    assert p.fetch_offset_for_timestamp(-1, -1).offset == 0  # a consumer: the high watermark
    assert p.fetch_offset_for_timestamp(-1, -1, replica_id=1).offset == 3  # a replica: the end
    assert p.fetch_offset_for_timestamp(T0 + 1, -1, replica_id=1).offset == 1
    assert p.fetch_offset_for_timestamp(-1, -1, replica_id=-2).offset == 3


def test_a_new_leader_behind_its_epoch_start_has_no_latest_offset_for_consumers(
        tmp_path, logs) -> None:
    p = leader(tmp_path, logs, isr=(0, 1), replicas=(0, 1))
    append(p, 3)
    assert p.log is not None
    p.make_leader(PartitionRecord(0, (0, 1), (0, 1), LOCAL, 1, 5), p.log, T0)
    assert p.leader_epoch_start_offset == 3 and p.high_watermark == 0
    with pytest.raises(KafkaError) as e:
        p.fetch_offset_for_timestamp(-1, -1)
    assert e.value.code == ErrorCode.OFFSET_NOT_AVAILABLE  # KIP-207
    assert p.fetch_offset_for_timestamp(-1, -1, replica_id=1).offset == 3
    p.update_follower_fetch_state(1, 3, T0)
    assert p.fetch_offset_for_timestamp(-1, -1).offset == 3


# -- through the replica manager, with a stand-in controller ----------------------------------------


class Controller:
    """Records what it is asked; each answer is given by the test."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int, uuid.UUID | None, IsrUpdate,
                               asyncio.Future[IsrAnswer]]] = []

    def submit(self, topic: str, partition: int, topic_id: uuid.UUID | None,
               update: IsrUpdate) -> asyncio.Future[IsrAnswer]:
        future: asyncio.Future[IsrAnswer] = asyncio.get_running_loop().create_future()
        self.asked.append((topic, partition, topic_id, update, future))
        return future

    def answer(self, answer: IsrAnswer) -> IsrUpdate:
        _, _, _, update, future = self.asked.pop(0)
        future.set_result(answer)
        return update


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[tuple[ReplicaManager, Controller]]:
    config = LogConfig(min_insync_replicas=2)
    logs = LogManager([tmp_path / "logs"], config)
    logs.startup(T0)
    rm = ReplicaManager(0, logs, lambda _topic: config, clock=ManualClock(T0 + 3 * LAG))
    controller = Controller()
    rm.enable_replication(_NoFetchers(), lambda b: object(),  # type: ignore[arg-type]
                          isr_changes=controller, replica_lag_time_max_ms=LAG)
    yield rm, controller
    rm.shutdown()
    logs.shutdown()


class _NoFetchers:
    truncation_on_fetch = True
    shutting_down = False

    def add_fetcher_for_partitions(self, initial) -> None:  # noqa: ANN001
        pass

    def remove_fetcher_for_partitions(self, partitions) -> None:  # noqa: ANN001
        pass

    def shutdown_idle_fetchers(self) -> None:
        pass


def fetch(rm: ReplicaManager, replica: int, offset: int, now: int) -> None:
    rm.fetch_messages(FetchParams(replica_id=replica),
                      [FetchRequestPartition("t", 0, offset, 1 << 20)], now_ms=now)


def test_acks_all_waits_for_the_isr_and_carries_on_once_a_dead_member_is_out(manager) -> None:
    rm, controller = manager

    async def main() -> None:
        rm.become_leader_or_follower("t", [PartitionRecord(0, (0, 1, 2), (0, 1, 2), 0, 0, 3)],
                                     T0)
        batch = build_batch([(None, b"x", (), T0)])
        waiting = rm.append_records({TP: batch}, required_acks=-1, timeout_ms=60_000,
                                    now_ms=T0)
        assert isinstance(waiting, asyncio.Future)
        fetch(rm, 1, 1, T0 + 100)  # broker 1 has it; broker 2 is gone
        await asyncio.sleep(0)
        assert not waiting.done()
        assert rm.maybe_shrink_isr(T0 + LAG + 1) == 1
        [(topic, partition, _, update, _)] = controller.asked
        assert (topic, partition, update.isr, update.partition_epoch) == ("t", 0, (0, 1), 3)
        await asyncio.sleep(0)
        assert not waiting.done()  # no acknowledgement on an ISR not yet recorded
        controller.answer(recorded((0, 1), partition_epoch=4))
        results = await asyncio.wait_for(waiting, 1)
        assert results[TP].error == ErrorCode.NONE
        # broker 2 comes back, catches up and is proposed again
        fetch(rm, 2, 1, T0 + 3 * LAG)
        [(_, _, _, update, _)] = controller.asked
        assert update.isr == (0, 1, 2) and update.partition_epoch == 4
        controller.answer(recorded((0, 1, 2), partition_epoch=5))
        await asyncio.sleep(0)
        p = rm.get_partition("t", 0)
        assert p is not None and p.isr == (0, 1, 2) and p.partition_epoch == 5

    asyncio.run(main())


def test_a_produce_waiting_when_the_isr_falls_under_min_isr_is_answered_so(manager) -> None:
    rm, controller = manager

    async def main() -> None:
        rm.become_leader_or_follower("t", [PartitionRecord(0, (0, 1), (0, 1), 0, 0, 3)], T0)
        batch = build_batch([(None, b"x", (), T0)])
        waiting = rm.append_records({TP: batch}, required_acks=-1, timeout_ms=60_000,
                                    now_ms=T0)
        assert isinstance(waiting, asyncio.Future)
        fetch(rm, 1, 1, T0)  # replicated: the answer is due...
        results = await asyncio.wait_for(waiting, 1)
        assert results[TP].error == ErrorCode.NONE
        # ...while a produce after the ISR shrank to the leader alone is refused before the
        # append, and an acks=1 one is taken (broker 1 stops fetching after one more record)
        one_more = rm.append_records({TP: build_batch([(None, b"w", (), T0)])},
                                     required_acks=1, timeout_ms=1000, now_ms=T0 + 1)
        assert isinstance(one_more, dict) and one_more[TP].error == ErrorCode.NONE
        assert rm.maybe_shrink_isr(T0 + 2 * LAG) == 1
        controller.answer(recorded((0,), partition_epoch=4))
        await asyncio.sleep(0)
        refused = rm.append_records({TP: build_batch([(None, b"y", (), T0)])},
                                    required_acks=-1, timeout_ms=1000, now_ms=T0)
        assert isinstance(refused, dict)
        assert refused[TP].error == ErrorCode.NOT_ENOUGH_REPLICAS
        taken = rm.append_records({TP: build_batch([(None, b"z", (), T0)])}, required_acks=1,
                                  timeout_ms=1000, now_ms=T0)
        assert isinstance(taken, dict) and taken[TP].error == ErrorCode.NONE
        assert taken[TP].base_offset == 2

    asyncio.run(main())


def test_an_isr_answer_that_fails_is_sent_again(manager) -> None:
    rm, controller = manager

    async def main() -> None:
        rm.become_leader_or_follower("t", [PartitionRecord(0, (0, 1), (0, 1), 0, 0, 3)], T0)
        rm.append_records({TP: build_batch([(None, b"w", (), T0)])}, required_acks=1,
                          timeout_ms=1000, now_ms=T0)
        assert rm.maybe_shrink_isr(T0 + 2 * LAG) == 1
        first = controller.answer(ErrorCode.UNKNOWN_SERVER_ERROR)
        await asyncio.sleep(0)
        [(_, _, _, again, _)] = controller.asked
        assert again == first

    asyncio.run(main())


# -- unclean leader election -------------------------------------------------------------------


def test_a_replica_elected_unclean_logs_what_is_lost(tmp_path, logs, caplog) -> None:
    log = Log.open(tmp_path / "follower-t-0", LogConfig(), now_ms=T0)
    logs.append(log)
    p = Partition("t", 0, 2, SETTINGS)
    p.make_follower(PartitionRecord(0, (0, 2), (0,), 0, 3), log)
    copied = build_batch([(None, b"v%d" % i, (), T0) for i in range(3)], partition_leader_epoch=3)
    # it copied 3 records while the old leader's high watermark was already 5
    p.append_records_to_follower(copied, leader_high_watermark=5, now_ms=T0)
    caplog.set_level("WARNING", logger="pybroker.cluster.partition")
    p.make_leader(PartitionRecord(0, (0, 2), (2,), 2, 4, 7, leader_recovery_state=1), log, T0)
    [line] = [r.getMessage() for r in caplog.records if "Unclean" in r.getMessage()]
    assert "log ends at 3" in line and "offsets 3 to at least 4 were committed" in line, line


def test_the_controller_logs_an_unclean_election(caplog) -> None:
    from pybroker.controller import election
    from pybroker.controller.model import LeaderAndIsr

    class Context:
        def partition_replica_assignment(self, _tp):  # noqa: ANN001, ANN202
            return (1, 2, 3)

        def is_replica_online(self, replica, _tp, _shutting_down=False):  # noqa: ANN001, ANN202
            return replica == 3

    caplog.set_level("WARNING", logger="pybroker.controller.election")
    result = election.leader_for_offline(
        Context(), ("t", 0), LeaderAndIsr(1, 5, (1, 2)), unclean_enabled=True)  # type: ignore[arg-type]
    assert result.leader_and_isr is not None and result.leader_and_isr.leader == 3
    [line] = [r.getMessage() for r in caplog.records]
    assert "Unclean leader election for t-0: broker 3 leads in epoch 6" in line, line
    assert "ISR [1, 2]" in line
