"""Followers copying their leader's log, in one process (tests/unit/cluster/replication_harness):
real logs in temporary directories, through the real Fetch and OffsetForLeaderEpoch handlers.
Plain catching up, the KIP-101 anomalies of high-watermark truncation, multi-round truncation
(KIP-279), epoch changes with the same leader (KAFKA-7164), logs out of range, fencing, failed
requests and corrupt batches.

Fetchers are driven round by round (``do_work``)."""

from __future__ import annotations

import asyncio
import time

from protocol.messages import (
    ApiKey,
    fetch_request as freq,
)
from pybroker.cluster.fetcher_state import (
    FetcherConfig,
    FetchState,
)
from pybroker.log.checkpoints import REPLICATION_OFFSET_CHECKPOINT, read_offset_checkpoint
from pybroker.network.client import ConnectionLostError
from tests.unit.cluster.replication_harness import (
    FAST,
    T0,
    TOPIC_ID,
    TP,
    Cluster,
    Node,
    fetched_requests,
    follow,
    history,
    produce,
    produce_value,
    records,
    rounds,
    run,
    until,
    values,
)

# -- followers copying their leader ----------------------------------------------------------


def test_a_follower_copies_its_leader_byte_for_byte(cluster) -> None:
    leader, follower = cluster[1], cluster[2]
    leader.become(leader=1, epoch=0)
    follower.become(leader=1, epoch=0)
    produce(leader, 3)
    produce(leader, 2)
    fetcher, endpoint = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        assert fetcher.partitions[TP].state is FetchState.TRUNCATING  # a new log: no epochs
        await rounds(fetcher, 1)
        f_partition = follower.rm.get_partition(*TP)
        l_partition = leader.rm.get_partition(*TP)
        assert f_partition is not None and l_partition is not None
        assert follower.log.log_end_offset == 5
        assert follower.log_bytes() == leader.log_bytes()
        assert fetcher.partitions[TP].last_fetched_epoch == 0
        # the leader learns the follower's end from its next fetch; the follower then learns
        # the high watermark one fetch later (the answer carries the one before the fetch)
        assert l_partition.high_watermark == 0 and f_partition.high_watermark == 0
        await rounds(fetcher, 1)
        assert l_partition.high_watermark == 5 and f_partition.high_watermark == 0
        await rounds(fetcher, 1)
        assert f_partition.high_watermark == 5
        fetches = fetched_requests(endpoint, ApiKey.FETCH)
        # in the fetch session, the last fetch named nothing: the partition had not changed
        last = fetches[-1]
        assert isinstance(last, freq.FetchRequest)
        assert last.session_id != 0 and last.session_epoch > 0 and last.topics == []
        [fetch] = [f for f in fetches if isinstance(f, freq.FetchRequest) and f.topics][-1:]
        # Fetch v17: by topic id, the follower and its broker epoch in ReplicaState
        assert {v for k, v, _ in endpoint.requests if k == ApiKey.FETCH} == {17}
        assert (fetch.replica_id, fetch.replica_state.replica_id,
                fetch.replica_state.replica_epoch) == (-1, 2, 7)
        assert [t.topic_id for t in fetch.topics] == [TOPIC_ID]
        assert fetch.topics[0].partitions[0].last_fetched_epoch == 0
        assert follower.log.leader_epoch_cache.entries == leader.log.leader_epoch_cache.entries

    run(main)


def test_a_follower_fetches_in_a_session_and_starts_a_new_one_when_the_leader_drops_it(
        cluster) -> None:
    """Kafka's followers fetch in incremental fetch sessions (KIP-227): once the session is
    open a fetch names the partition only when its fetch offset moved, and an answer carries
    it only with news. A session the leader no longer has (FETCH_SESSION_ID_NOT_FOUND) is
    replaced by a new one through a full fetch, and no record is lost or doubled."""
    leader, follower = cluster[1], cluster[2]
    leader.become(leader=1, epoch=0)
    follower.become(leader=1, epoch=0)
    produce(leader, 3)
    fetcher, endpoint = cluster.fetcher(2, 1)
    sessions = leader.dispatcher.services.fetch_sessions  # type: ignore[union-attr]

    def last_fetch() -> freq.FetchRequest:
        fetch = fetched_requests(endpoint, ApiKey.FETCH)[-1]
        assert isinstance(fetch, freq.FetchRequest)
        return fetch

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 1)  # truncation (no epochs yet), then the full fetch
        first = last_fetch()
        assert (first.session_id, first.session_epoch) == (0, 0)
        assert follower.log.log_end_offset == 3
        session_id = endpoint.session.session_id
        assert session_id != 0 and sessions.get(session_id) is not None
        await rounds(fetcher, 1)  # the fetch offset moved: named again
        fetch = last_fetch()
        assert (fetch.session_id, fetch.session_epoch) == (session_id, 1)
        assert [p.fetch_offset for t in fetch.topics for p in t.partitions] == [3]
        await rounds(fetcher, 2)  # the high watermark comes; then nothing is named
        assert last_fetch().topics == [] and follower.rm.get_partition(*TP).high_watermark == 3
        produce(leader, 2)
        await rounds(fetcher, 1)  # the leader reads the session's partition: news
        assert follower.log.log_end_offset == 5 and last_fetch().topics == []
        sessions.remove(session_id)  # evicted, say
        produce(leader, 1)
        await rounds(fetcher, 1)
        assert follower.log.log_end_offset == 5  # FETCH_SESSION_ID_NOT_FOUND: nothing read
        assert endpoint.session.session_id == 0
        await rounds(fetcher, 1)
        fetch = last_fetch()
        assert (fetch.session_id, fetch.session_epoch) == (0, 0) and fetch.topics
        assert follower.log.log_end_offset == 6 and endpoint.session.session_id != 0
        await rounds(fetcher, 3)
        assert follower.log_bytes() == leader.log_bytes()
        assert len(values(follower)) == 6

    run(main)


def test_kip_101_a_restarted_follower_keeps_what_is_above_its_high_watermark(
        cluster, tmp_path) -> None:
    """The lost ack: B holds m0 and m1 but has heard of the high watermark only up to m0 when
    it restarts. Truncating to its high watermark would lose m1, which A acknowledged; with
    epochs B keeps it, and still has it when it becomes leader after A dies."""
    a, b = cluster[1], cluster[2]
    a.become(leader=1, epoch=0)
    b.become(leader=1, epoch=0)
    fetcher, _ = cluster.fetcher(2, 1)

    async def replicate_then_restart() -> None:
        follow(fetcher, b)
        produce_value(a, b"m0")
        await rounds(fetcher, 2)  # b has m0, and told a
        produce_value(a, b"m1")
        await rounds(fetcher, 1)  # b has m1; its high watermark is 1 (m0's)
        b_partition = b.rm.get_partition(*TP)
        assert b_partition is not None
        assert (b.log.log_end_offset, b_partition.high_watermark) == (2, 1)
        await rounds(fetcher, 1)  # a now counts m1 as committed: the producer is acked
        a_partition = a.rm.get_partition(*TP)
        assert a_partition is not None and a_partition.high_watermark == 2
        await fetcher.shutdown()

    run(replicate_then_restart)
    b.close()  # b restarts before it heard of high watermark 2
    assert read_offset_checkpoint(tmp_path / "broker-2" / REPLICATION_OFFSET_CHECKPOINT) == \
        {TP: 1}
    b = cluster.nodes[2] = Node(2, tmp_path / "broker-2")
    b.become(leader=1, epoch=0)
    b_partition = b.rm.get_partition(*TP)
    assert b_partition is not None and b_partition.high_watermark == 1  # from the checkpoint
    fetcher, _ = cluster.fetcher(2, 1)

    async def catch_up() -> None:
        follow(fetcher, b)
        assert fetcher.partitions[TP].state is FetchState.FETCHING  # epochs: no truncation
        assert fetcher.partitions[TP].fetch_offset == 2
        await rounds(fetcher, 2)

    run(catch_up)
    assert values(b) == [b"m0", b"m1"]
    # a dies; b leads
    cluster.alive.discard(1)
    b.become(leader=2, epoch=1, replicas=(2,))
    assert values(b) == [b"m0", b"m1"]
    assert b.log.leader_epoch_cache.latest_epoch == 1


def test_kip_101_replicas_that_crashed_with_different_tails_converge(cluster, tmp_path) -> None:
    """Silent divergence: A and B both hold m0; A also wrote m1 at offset 1 when both crash. B
    comes back first, leads, writes m2 at offset 1. A returns with m1 at offset 1 and a high
    watermark of 2: truncating to it would keep m1 forever. With epochs A learns that its epoch
    0 ends at 1 on B, truncates m1 and copies m2."""
    a, b = cluster[1], cluster[2]
    a.become(leader=1, epoch=0)
    b.become(leader=1, epoch=0)
    fetcher, _ = cluster.fetcher(2, 1)

    async def replicate_m0() -> None:
        follow(fetcher, b)
        produce_value(a, b"m0")
        await rounds(fetcher, 3)
        await fetcher.shutdown()

    run(replicate_m0)
    produce_value(a, b"m1")  # never reaches b
    a_partition = a.rm.get_partition(*TP)
    assert a_partition is not None
    a_partition.high_watermark = 2  # (say b acknowledged it before the crash)
    a.close()
    b.close()
    b = cluster.nodes[2] = Node(2, tmp_path / "broker-2")
    b.become(leader=2, epoch=1)
    produce_value(b, b"m2")
    a = cluster.nodes[1] = Node(1, tmp_path / "broker-1")
    a.become(leader=2, epoch=1)
    assert values(a) == [b"m0", b"m1"] and values(b) == [b"m0", b"m2"]
    fetcher, endpoint = cluster.fetcher(1, 2)

    async def converge() -> None:
        follow(fetcher, a)
        await rounds(fetcher, 1)  # DivergingEpoch(0, 1): truncate m1
        assert a.log.log_end_offset == 1
        assert fetcher.partitions[TP].fetch_offset == 1
        await rounds(fetcher, 1)
        first = fetched_requests(endpoint, ApiKey.FETCH)[0]
        assert isinstance(first, freq.FetchRequest)
        assert (first.topics[0].partitions[0].fetch_offset,
                first.topics[0].partitions[0].last_fetched_epoch) == (2, 0)

    run(converge)
    assert values(a) == [b"m0", b"m2"]
    assert a.log_bytes() == b.log_bytes()
    assert not fetched_requests(endpoint, ApiKey.OFFSET_FOR_LEADER_EPOCH)  # it rode on Fetch


def multi_round_histories(cluster: Cluster) -> tuple[Node, Node]:
    """Epoch 0 wrote b0 (0-1) to both and b1 (2) to L only; then F led epochs 1 (2-3) and 3
    (4-5), L epochs 2 (3-4) and 4 (5-7), each unseen by the other; now L leads epoch 5."""
    leader, follower = cluster[1], cluster[2]
    b0 = records(2, epoch=0, tag=b"shared")
    history(leader, b0, records(1, base=2, epoch=0, tag=b"L"), records(2, base=3, epoch=2,
            tag=b"L"), records(3, base=5, epoch=4, tag=b"L"))
    history(follower, bytearray(b0), records(2, base=2, epoch=1, tag=b"F"),
            records(2, base=4, epoch=3, tag=b"F"))
    leader.become(leader=1, epoch=5)
    follower.become(leader=1, epoch=5)
    return leader, follower


def test_kip_279_truncation_takes_as_many_rounds_as_epochs_diverge(cluster) -> None:
    leader, follower = multi_round_histories(cluster)
    fetcher, endpoint = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 1)  # epoch 3 is 2 at the leader, ending at 5; ours ends at 4
        assert follower.log.log_end_offset == 4
        assert fetcher.partitions[TP].last_fetched_epoch == 1
        await rounds(fetcher, 1)  # epoch 1 is 0 at the leader, ending at 3; ours ends at 2
        assert follower.log.log_end_offset == 2
        assert fetcher.partitions[TP].last_fetched_epoch == 0
        await rounds(fetcher, 2)

    run(main)
    asked = [(f.topics[0].partitions[0].fetch_offset, f.topics[0].partitions[0].last_fetched_epoch)
             for f in fetched_requests(endpoint, ApiKey.FETCH)]  # type: ignore[attr-defined]
    assert asked[:3] == [(6, 3), (4, 1), (2, 0)]
    assert follower.log_bytes() == leader.log_bytes()
    assert follower.log.leader_epoch_cache.entries == leader.log.leader_epoch_cache.entries[:3]


def test_without_truncation_on_fetch_offset_for_leader_epoch_decides(cluster) -> None:
    """inter.broker.protocol.version below 2.7: the follower truncates before it fetches,
    asking OffsetForLeaderEpoch as often as it takes, and fetches with v11."""
    leader, follower = multi_round_histories(cluster)
    config = FetcherConfig(max_wait_ms=0, backoff_ms=10, truncation_on_fetch=False)
    fetcher, endpoint = cluster.fetcher(2, 1, config)

    async def main() -> None:
        follow(fetcher, follower)
        assert fetcher.partitions[TP].state is FetchState.TRUNCATING
        await rounds(fetcher, 4)

    run(main)
    asked = [(key, version, body) for key, version, body in endpoint.requests]
    kinds = [key for key, _, _ in asked]
    assert kinds[:3] == [ApiKey.OFFSET_FOR_LEADER_EPOCH] * 2 + [ApiKey.FETCH]
    epochs = [body.topics[0].partitions[0].leader_epoch for key, _, body in asked
              if key == ApiKey.OFFSET_FOR_LEADER_EPOCH]
    assert epochs == [3, 1]
    assert {version for key, version, _ in asked if key == ApiKey.FETCH} == {11}
    assert follower.log_bytes() == leader.log_bytes()


def test_an_epoch_change_with_the_same_leader_restarts_the_fetcher(cluster) -> None:
    """KAFKA-7164: an epoch bump that keeps the leader (an ISR change) restarts the fetcher in
    the new epoch, or the leader would fence it. Then the follower leads epoch 3 for a moment
    and writes something no one copies; the first leader is back in epoch 4: the follower
    truncates what it wrote in epoch 3 and copies the leader's epoch 4."""
    leader, follower = cluster[1], cluster[2]

    async def main() -> None:
        cluster.enable_replication(2)
        try:
            await flips()
        finally:
            await cluster.shutdown()

    async def flips() -> None:
        leader.become(leader=1, epoch=1)
        follower.become(leader=1, epoch=1)
        produce(leader, 2, b"a")
        await until(lambda: follower.log.log_end_offset == 2, "the first copy")
        leader.become(leader=1, epoch=2)  # e.g. an ISR change: same leader, new epoch
        follower.become(leader=1, epoch=2)
        produce(leader, 1, b"b")
        await until(lambda: follower.log.log_end_offset == 3, "the copy in epoch 2")
        # the follower leads epoch 3 for a moment and writes x; the leader leads again in 4
        follower.become(leader=2, epoch=3)
        produce(follower, 1, b"x")
        leader.become(leader=1, epoch=4)
        produce(leader, 1, b"c")
        follower.become(leader=1, epoch=4)
        await until(lambda: follower.log_bytes() == leader.log_bytes(),
                    "the follower to converge")
        assert values(follower) == values(leader) == [b"a0", b"a1", b"b0", b"c0"]

    run(main)


def test_a_follower_behind_the_leaders_log_start_starts_afresh(cluster) -> None:
    leader, follower = cluster[1], cluster[2]
    leader.become(leader=1, epoch=0, replicas=(1,))
    for i in range(5):
        produce_value(leader, b"m%d" % i)
    leader.rm.delete_records({TP: 3}, T0)
    leader.become(leader=1, epoch=1, replicas=(1, 2))
    follower.become(leader=1, epoch=1)
    fetcher, endpoint = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 3)

    run(main)
    assert (follower.log.log_start_offset, follower.log.log_end_offset) == (3, 5)
    assert values(follower) == [b"m3", b"m4"]
    assert any(key == ApiKey.LIST_OFFSETS for key, _, _ in endpoint.requests)


def test_a_log_start_inside_a_batch_starts_the_follower_at_that_batch(cluster) -> None:
    leader, follower = cluster[1], cluster[2]
    leader.become(leader=1, epoch=0, replicas=(1,))
    produce(leader, 5)  # one batch, offsets 0-4
    leader.rm.delete_records({TP: 3}, T0)
    leader.become(leader=1, epoch=1, replicas=(1, 2))
    follower.become(leader=1, epoch=1)
    fetcher, _ = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 3)

    run(main)
    assert (follower.log.log_start_offset, follower.log.log_end_offset) == (3, 5)
    assert follower.log_bytes() == leader.log_bytes()


def test_a_leader_whose_log_ends_before_ours_has_us_truncate_to_it(cluster) -> None:
    """An unclean election without epochs: our log (no epochs) goes past the leader's end."""
    leader, follower = cluster[1], cluster[2]
    # batches without a leader epoch, one record each
    history(follower, *(records(1, base=i) for i in range(6)))
    history(leader, *(records(1, base=i) for i in range(4)))
    leader.become(leader=1, epoch=3)
    follower.become(leader=1, epoch=3)
    follower_partition = follower.rm.get_partition(*TP)
    assert follower_partition is not None
    follower_partition.high_watermark = 6  # the initial fetch offset without epochs
    fetcher, _ = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 3)

    run(main)
    assert follower.log.log_end_offset == 4
    assert follower.log_bytes() == leader.log_bytes()


def test_a_follower_with_an_older_epoch_than_its_leader_waits_for_leader_and_isr(cluster) -> None:
    leader, follower = cluster[1], cluster[2]
    leader.become(leader=1, epoch=3)
    follower.become(leader=1, epoch=2)
    fetcher, _ = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 2)
        assert TP not in fetcher.partitions and TP in fetcher.failed
        follower.become(leader=1, epoch=3)  # the LeaderAndIsr it waited for
        follow(fetcher, follower)
        assert TP not in fetcher.failed
        produce(leader, 1)
        await rounds(fetcher, 2)
        assert follower.log.log_end_offset == 1

    run(main)


def test_a_follower_with_a_newer_epoch_than_its_leader_retries_after_a_back_off(cluster) -> None:
    leader, follower = cluster[1], cluster[2]
    leader.become(leader=1, epoch=3)
    follower.become(leader=1, epoch=4)  # the leader has not heard of epoch 4 yet
    fetcher, _ = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 2)
        state = fetcher.partitions[TP]
        assert state.delayed_until_ms > 0 and follower.log.log_end_offset == 0
        leader.become(leader=1, epoch=4)
        produce(leader, 2)
        await asyncio.sleep(FAST.backoff_ms / 1000 * 2)
        await rounds(fetcher, 2)
        assert follower.log.log_end_offset == 2

    run(main)


def test_a_failed_request_backs_off_every_partition_in_it(cluster) -> None:
    leader, follower = cluster[1], cluster[2]
    leader.become(leader=1, epoch=0)
    follower.become(leader=1, epoch=0)
    produce(leader, 1)
    fetcher, endpoint = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 1)  # truncation to the high watermark, then the first fetch
        produce(leader, 1)
        endpoint.fail_next = ConnectionLostError("connection to the leader lost")
        await rounds(fetcher, 1)
        assert fetcher.partitions[TP].is_delayed(int(time.time() * 1000))
        assert follower.log.log_end_offset == 1
        await asyncio.sleep(FAST.backoff_ms / 1000 * 2)
        await rounds(fetcher, 1)
        assert follower.log.log_end_offset == 2

    run(main)


def test_corrupt_batches_from_the_leader_are_not_appended(cluster) -> None:
    leader, follower = cluster[1], cluster[2]
    leader.become(leader=1, epoch=0)
    follower.become(leader=1, epoch=0)
    produce(leader, 2)
    segment = leader.log.segments[-1].log_path
    data = bytearray(segment.read_bytes())
    data[-1] ^= 0xFF  # a value byte of the last record
    segment.write_bytes(bytes(data))
    fetcher, _ = cluster.fetcher(2, 1)

    async def main() -> None:
        follow(fetcher, follower)
        await rounds(fetcher, 2)

    run(main)
    assert follower.log.log_end_offset == 0
    assert fetcher.partitions[TP].delayed_until_ms > 0  # retried after the back-off
