"""The replica manager's paths through its partitions (pybroker.cluster.replica_manager): acks=all
produces waiting in the produce purgatory, follower fetches moving the high watermark, and
leadership announcements. Real logs in a temporary directory, a real event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from pybroker.cluster.hosted_partitions import LeadershipChange
from pybroker.cluster.replica_fetch import FetchParams, FetchRequestPartition
from pybroker.cluster.replica_manager import ReplicaManager
from pybroker.log import LogConfig
from pybroker.log.manager import LogManager
from pybroker.metadata.model import PartitionRecord
from tests.unit.protocol.records.helpers import value_batch as batch

T0 = 1_700_000_000_000
TP = ("t", 0)


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[ReplicaManager]:
    logs = LogManager([tmp_path / "logs"], LogConfig())
    logs.startup(T0)
    rm = ReplicaManager(0, logs, lambda _topic: LogConfig())
    yield rm
    rm.shutdown()
    logs.shutdown()


def lead(rm: ReplicaManager, isr: tuple[int, ...], epoch: int = 0,
         replicas: tuple[int, ...] | None = None) -> None:
    rm.become_leader_or_follower("t", [PartitionRecord(0, replicas or isr, isr, 0, epoch)], T0)


def follower_fetch(rm: ReplicaManager, replica: int, offset: int, **kw: int):
    return rm.fetch_messages(FetchParams(replica_id=replica, **kw),
                             [FetchRequestPartition("t", 0, offset, 1 << 20)], now_ms=T0)


def test_acks_all_on_a_lone_leader_is_answered_at_once(manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0,))
        results = manager.append_records({TP: batch(2)}, required_acks=-1, timeout_ms=1000,
                                         now_ms=T0)
        assert isinstance(results, dict)
        assert results[TP].error == ErrorCode.NONE and results[TP].base_offset == 0
        assert len(manager.produce_purgatory) == 0

    asyncio.run(main())


def test_acks_all_waits_until_every_follower_has_fetched_past_the_batch(
        manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0, 1, 2))
        pending = manager.append_records({TP: batch(3)}, required_acks=-1, timeout_ms=10_000,
                                         now_ms=T0)
        assert isinstance(pending, asyncio.Future) and not pending.done()
        follower_fetch(manager, 1, 3)
        await asyncio.sleep(0)
        assert not pending.done()  # replica 2 has not got it
        follower_fetch(manager, 2, 3)
        results = await asyncio.wait_for(pending, 1)
        assert results[TP].error == ErrorCode.NONE and results[TP].base_offset == 0
        assert manager.get_partition("t", 0).high_watermark == 3

    asyncio.run(main())


def test_acks_one_never_waits(manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0, 1))
        results = manager.append_records({TP: batch()}, required_acks=1, timeout_ms=1000,
                                         now_ms=T0)
        assert isinstance(results, dict) and results[TP].error == ErrorCode.NONE

    asyncio.run(main())


def test_a_waiting_produce_times_out_with_request_timed_out(manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0, 1))
        pending = manager.append_records({TP: batch()}, required_acks=-1, timeout_ms=20,
                                         now_ms=T0)
        results = await asyncio.wait_for(pending, 2)
        assert results[TP].error == ErrorCode.REQUEST_TIMED_OUT
        assert results[TP].base_offset == 0  # the batch is in the leader's log all the same

    asyncio.run(main())


def test_a_waiting_produce_learns_that_leadership_moved(manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0, 1))
        pending = manager.append_records({TP: batch()}, required_acks=-1, timeout_ms=10_000,
                                         now_ms=T0)
        manager.become_leader_or_follower("t", [PartitionRecord(0, (0, 1), (0, 1), 1, 1)], T0)
        results = await asyncio.wait_for(pending, 1)
        assert results[TP].error == ErrorCode.NOT_LEADER_OR_FOLLOWER

    asyncio.run(main())


def test_followers_read_to_the_log_end_and_consumers_to_the_high_watermark(
        manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0, 1))
        manager.append_records({TP: batch(4)}, required_acks=1, timeout_ms=0, now_ms=T0)
        consumer = manager.fetch_messages(FetchParams(),
                                          [FetchRequestPartition("t", 0, 0, 1 << 20)])
        assert isinstance(consumer, list)
        assert consumer[0].high_watermark == 0 and len(consumer[0].records) == 0
        follower = follower_fetch(manager, 1, 0)
        assert isinstance(follower, list) and len(follower[0].records) > 0

    asyncio.run(main())


def test_a_fetch_naming_a_replica_that_is_no_follower_is_refused(
        manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0,))
        results = follower_fetch(manager, 5, 0)
        assert isinstance(results, list)
        assert results[0].error == ErrorCode.NOT_LEADER_OR_FOLLOWER

    asyncio.run(main())


def test_a_waiting_consumer_fetch_is_answered_when_the_high_watermark_moves(
        manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0, 1))
        waiting = manager.fetch_messages(FetchParams(max_wait_ms=10_000, min_bytes=1),
                                         [FetchRequestPartition("t", 0, 0, 1 << 20)])
        assert isinstance(waiting, asyncio.Future)
        manager.append_records({TP: batch()}, required_acks=1, timeout_ms=0, now_ms=T0)
        await asyncio.sleep(0)
        assert not waiting.done()  # appended, but not yet below the high watermark
        follower_fetch(manager, 1, 1)
        results = await asyncio.wait_for(waiting, 1)
        assert results[0].high_watermark == 1 and len(results[0].records) > 0

    asyncio.run(main())


def test_a_waiting_follower_fetch_is_read_again_only_when_there_is_something_new(
        manager: ReplicaManager, monkeypatch: pytest.MonkeyPatch) -> None:
    """A follower's fetch waits for records: the high watermark moving under it (another
    follower's fetch) is looked at by offsets and not read; an append completes it."""
    async def main() -> None:
        lead(manager, (0, 1, 2))
        manager.append_records({TP: batch()}, required_acks=1, timeout_ms=0, now_ms=T0)
        follower_fetch(manager, 1, 1)
        waiting = follower_fetch(manager, 2, 1, max_wait_ms=10_000, min_bytes=1)
        assert isinstance(waiting, asyncio.Future)
        reads = []
        real_read = manager.read_from_local_logs
        monkeypatch.setattr(manager, "read_from_local_logs",
                            lambda *a: reads.append(a) or real_read(*a))
        partition = manager.get_partition(*TP)
        assert partition is not None and partition.high_watermark == 1
        # follower 2 is at 1 now too: the high watermark stays, nothing to read for anyone
        manager.fetch_purgatory.check_and_complete(TP)
        assert reads == [] and not waiting.done()
        manager.append_records({TP: batch(3)}, required_acks=1, timeout_ms=0, now_ms=T0)
        results = await asyncio.wait_for(waiting, 1)
        assert len(reads) == 1 and len(results[0].records) > 0

    asyncio.run(main())


def test_a_waiting_fetch_is_answered_when_its_partition_changes_hands(
        manager: ReplicaManager) -> None:
    async def main() -> None:
        lead(manager, (0, 1))
        waiting = follower_fetch(manager, 1, 0, max_wait_ms=10_000, min_bytes=1)
        assert isinstance(waiting, asyncio.Future)
        manager.become_leader_or_follower("t", [PartitionRecord(0, (0, 1), (0, 1), 1, 1)], T0)
        manager.fetch_purgatory.check_and_complete(TP)
        results = await asyncio.wait_for(waiting, 1)
        assert results[0].error == ErrorCode.NOT_LEADER_OR_FOLLOWER

    asyncio.run(main())


def test_listeners_hear_of_each_start_and_end_of_a_leadership(manager: ReplicaManager) -> None:
    heard: list[LeadershipChange] = []
    manager.add_leadership_listener("t", lambda change, _now: heard.append(change))
    manager.add_leadership_listener("other", lambda change, _now: heard.append(change))
    lead(manager, (0, 1), epoch=0)
    lead(manager, (0, 1), epoch=0)  # the same epoch again: no news
    manager.become_leader_or_follower("t", [PartitionRecord(0, (0, 1), (0, 1), 1, 1)], T0)
    lead(manager, (0, 1), epoch=2)
    manager.stop_replicas("t", [0], delete=False)
    assert heard == [
        LeadershipChange("t", 0, 0, True),
        LeadershipChange("t", 0, 1, False),
        LeadershipChange("t", 0, 2, True),
        LeadershipChange("t", 0, 2, False),
    ]
