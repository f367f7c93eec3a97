"""Replication between brokers of one partition, in one process (tests/unit/replication_harness):
the fetcher's pure decisions (fetcher ids, request building, truncation), the leader's side
(DivergingEpoch, OffsetForLeaderEpoch, follower positions), and followers copying real logs in
temporary directories through the real Fetch and OffsetForLeaderEpoch handlers: plain
catching up, the KIP-101 anomalies of HW truncation, multi-round truncation (KIP-279), epoch
changes with the same leader (KAFKA-7164), logs out of range, fencing, and the checkpointed
high watermarks.

Fetchers are driven round by round (``do_work``) unless a test runs the real fetcher manager,
whose tasks it then waits for with a deadline."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    fetch_request as freq,
    offset_for_leader_epoch_request as oreq,
    offset_for_leader_epoch_response as oresp,
)
from protocol.primitives import Writer
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.cluster.fetcher_state import (
    VALID_PREVIOUS_STATES,
    FetcherConfig,
    FetchState,
    IllegalStateTransition,
    InitialFetchState,
    OffsetTruncationState,
    PartitionFetchState,
    check_transition,
    fetcher_id,
    offset_truncation_state,
    truncation_on_fetch_supported,
)
from pybroker.cluster.leader_endpoint import FetchPartitionRequest, build_fetch_request
from pybroker.cluster.metadata_cache import PartitionInfo, PartitionUpdate
from pybroker.cluster.partition import Role, diverging_epoch
from pybroker.cluster.replica_manager import FetchParams, FetchRequestPartition
from pybroker.config import BrokerConfig
from pybroker.log.checkpoints import REPLICATION_OFFSET_CHECKPOINT, read_offset_checkpoint
from pybroker.network.client import ConnectionLostError
from tests.unit.replication_harness import (
    FAST,
    T0,
    TOPIC,
    TOPIC_ID,
    Cluster,
    LoopbackLeader,
    Node,
)

TP = (TOPIC, 0)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    yield c
    c.close()


def run(main: Callable[[], object], timeout: float = 20) -> None:
    async def bounded() -> None:
        await asyncio.wait_for(main(), timeout)  # type: ignore[arg-type]

    asyncio.run(bounded())


async def until(condition: Callable[[], object], what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def records(n: int, *, base: int = 0, epoch: int = -1, tag: bytes = b"v") -> bytearray:
    return build_batch([(None, tag + b"%d" % (base + i), (), T0 + i) for i in range(n)],
                       base_offset=base, partition_leader_epoch=epoch)


def produce(node: Node, n: int = 1, tag: bytes = b"v") -> int:
    """Append one batch of ``n`` records (tag0, tag1, ...) to ``node`` as leader; returns the
    offset after them."""
    result, end = node.rm.append_to_leader(TOPIC, 0, records(n, tag=tag), required_acks=1,
                                           now_ms=T0)
    assert result.error == ErrorCode.NONE, result
    return end


def produce_value(node: Node, value: bytes) -> None:
    batch = build_batch([(None, value, (), T0)])
    result, _ = node.rm.append_to_leader(TOPIC, 0, batch, required_acks=1, now_ms=T0)
    assert result.error == ErrorCode.NONE, result


def history(node: Node, *batches: bytearray) -> None:
    """Write ``batches`` (offsets and epochs assigned) into ``node``'s log as they are."""
    log = node.logs.get_or_create_log(TOPIC, 0, node.log_config, T0)
    for b in batches:
        log.append_as_follower(b, T0)


def values(node: Node) -> list[bytes]:
    data = node.log_bytes()
    out = []
    for pos, _ in iter_batches(data):
        _, recs = decode_batch(data, pos)
        out += [r.value or b"" for r in recs]
    return out


def follow(fetcher, follower: Node) -> None:
    """Start following as the replica manager would (from the log end when it has epochs)."""
    partition = follower.rm.get_partition(*TP)
    assert partition is not None and partition.role is Role.FOLLOWER
    log = follower.log
    offset = (log.log_end_offset if fetcher.truncation_on_fetch and log.latest_epoch is not None
              else partition.high_watermark)
    fetcher.add_partitions({TP: InitialFetchState(fetcher.leader.node, partition.leader_epoch,
                                                  offset)})


async def rounds(fetcher, n: int) -> None:
    for _ in range(n):
        await fetcher.do_work()


def fetched_requests(endpoint: LoopbackLeader, api_key: int) -> list[object]:
    return [body for key, _, body in endpoint.requests if key == api_key]


# -- pure decisions --------------------------------------------------------------------------


def test_fetcher_ids_are_kafkas() -> None:
    # Utils.abs(31 * topic.hashCode + partition) % num.replica.fetchers, in 32-bit arithmetic
    assert fetcher_id("a", 0, 7) == (31 * 97) % 7
    assert fetcher_id("anything", 5, 1) == 0
    # "polygenelubricants".hashCode() is Integer.MIN_VALUE, and so is 31 times it
    assert fetcher_id("polygenelubricants", 0, 7) == 0  # Utils.abs(MIN_VALUE) is 0
    assert fetcher_id("polygenelubricants", 1, 7) == (2**31 - 1) % 7
    # Utils.abs is Math.abs, not a mask: -2147483645 -> 2147483645
    assert fetcher_id("polygenelubricants", 3, 10) == 5


@pytest.mark.parametrize(("version", "supported"), [
    ("3.9-IV0", True), ("2.7-IV1", True), ("2.7", True), ("2.8", True), ("3.0-IV1", True),
    ("2.7-IV0", False), ("2.6", False), ("2.6-IV0", False), ("0.10.2", False), ("1.1", False),
])
def test_truncation_on_fetch_needs_ibp_2_7_iv1(version: str, supported: bool) -> None:
    assert truncation_on_fetch_supported(version) is supported


def test_fetcher_settings_come_from_the_broker_config() -> None:
    assert FetcherConfig.from_broker_config(BrokerConfig.from_dict({})) == FetcherConfig()
    config = FetcherConfig.from_broker_config(BrokerConfig.from_dict({
        "num.replica.fetchers": "3", "replica.fetch.wait.max.ms": "250",
        "replica.fetch.min.bytes": "10", "replica.fetch.max.bytes": "4096",
        "replica.fetch.response.max.bytes": "65536", "replica.fetch.backoff.ms": "50",
        "replica.socket.timeout.ms": "9000", "inter.broker.protocol.version": "2.6"}))
    assert config == FetcherConfig(num_fetchers=3, max_wait_ms=250, min_bytes=10,
                                   max_bytes=65536, partition_max_bytes=4096, backoff_ms=50,
                                   socket_timeout_ms=9000, truncation_on_fetch=False,
                                   list_offsets_version=5, max_fetch_version=11)
    assert (config.fetch_version, config.offset_for_leader_epoch_version) == (11, 3)
    assert (FetcherConfig().fetch_version, FetcherConfig().offset_for_leader_epoch_version) == \
        (17, 4)


def test_a_follower_fetch_request() -> None:
    config = FetcherConfig(max_wait_ms=500, min_bytes=1, max_bytes=10 << 20,
                           partition_max_bytes=1 << 20)
    wanted = [FetchPartitionRequest("a", 0, 100, 4, 3, 7, 1 << 20),
              FetchPartitionRequest("b", 2, 5, 1, -1, 0, 1 << 20),
              FetchPartitionRequest("a", 1, 9, 4, 4, 0, 1 << 20)]
    request = build_fetch_request(wanted, replica_id=2, broker_epoch=55, config=config,
                                  version=12)
    assert (request.replica_id, request.max_wait_ms, request.min_bytes, request.max_bytes) == \
        (2, 500, 1, 10 << 20)
    assert (request.isolation_level, request.session_id, request.session_epoch) == (0, 0, -1)
    assert request.forgotten_topics_data == [] and request.rack_id == ""
    assert [t.topic for t in request.topics] == ["a", "b"]
    assert [(p.partition, p.fetch_offset, p.current_leader_epoch, p.last_fetched_epoch,
             p.log_start_offset, p.partition_max_bytes) for p in request.topics[0].partitions] \
        == [(0, 100, 4, 3, 7, 1 << 20), (1, 9, 4, 4, 0, 1 << 20)]
    w = Writer()
    freq.write(w, request, 12)  # and encodes at v12
    assert len(w) > 0
    # before v12 there is no LastFetchedEpoch; from v15 the replica names itself in ReplicaState
    v11 = build_fetch_request(wanted, replica_id=2, broker_epoch=55, config=config, version=11)
    assert {p.last_fetched_epoch for t in v11.topics for p in t.partitions} == {-1}
    # from v13 topics go by id, which every partition then has
    with_ids = [replace(p, topic_id=uuid.uuid5(uuid.NAMESPACE_DNS, p.topic)) for p in wanted]
    v15 = build_fetch_request(with_ids, replica_id=2, broker_epoch=55, config=config,
                              version=15)
    assert v15.replica_id == -1
    assert (v15.replica_state.replica_id, v15.replica_state.replica_epoch) == (2, 55)


def test_the_followed_partition_state_table() -> None:
    F = FetchState
    assert VALID_PREVIOUS_STATES == {
        F.TRUNCATING: {F.TRUNCATING, F.FAILED},
        F.FETCHING: {F.TRUNCATING, F.FETCHING, F.FAILED},
        F.FAILED: {F.TRUNCATING, F.FETCHING},
    }
    check_transition(TP, F.TRUNCATING, F.FETCHING)
    with pytest.raises(IllegalStateTransition, match="cannot move from Fetching to Truncating"):
        check_transition(TP, F.FETCHING, F.TRUNCATING)
    with pytest.raises(IllegalStateTransition):
        check_transition(TP, F.FAILED, F.FAILED)


def test_the_fetcher_asks_only_for_partitions_ready_to_fetch(cluster) -> None:
    cluster[1].become(leader=1, epoch=0)
    cluster[2].become(leader=1, epoch=0)
    fetcher, _ = cluster.fetcher(2, 1)
    fetcher.partitions = {
        TP: PartitionFetchState(3, 0, FetchState.FETCHING, 0),
    }
    requests, broken = fetcher.build_fetch(T0)
    assert broken == []
    assert requests == [FetchPartitionRequest(TOPIC, 0, 3, 0, 0, 0, FAST.partition_max_bytes,
                                              topic_id=TOPIC_ID)]
    fetcher.partitions[TP] = PartitionFetchState(3, 0, FetchState.FETCHING, 0,
                                                 delayed_until_ms=T0 + 1)
    assert fetcher.build_fetch(T0) == ([], [])
    assert len(fetcher.build_fetch(T0 + 1)[0]) == 1  # the back-off is over
    fetcher.partitions[TP] = PartitionFetchState(3, 0, FetchState.TRUNCATING, None)
    assert fetcher.build_fetch(T0) == ([], [])
    fetcher.partitions = {("gone", 0): PartitionFetchState(0, 0, FetchState.FETCHING, None)}
    assert fetcher.build_fetch(T0) == ([], [("gone", 0)])


def test_without_a_last_fetched_epoch_the_fetch_names_none(cluster) -> None:
    cluster[2].become(leader=1, epoch=0)
    fetcher, _ = cluster.fetcher(2, 1)
    fetcher.partitions = {TP: PartitionFetchState(0, 0, FetchState.FETCHING, None)}
    [request] = fetcher.build_fetch(T0)[0]
    assert request.last_fetched_epoch == -1


def local(answers: dict[int, tuple[int, int] | None]) -> Callable[[int], tuple[int, int] | None]:
    return lambda epoch: answers.get(epoch)


@pytest.mark.parametrize(("leader", "fetch_offset", "leo", "ours", "expected"), [
    # the leader knows no end offset: stay at the fetch offset
    ((3, -1), 40, 50, {}, (40, True)),
    # the leader names no epoch: its end offset
    ((-1, 30), 50, 50, {}, (30, True)),
    # we know nothing of that epoch: the leader's end offset, never past ours
    ((3, 30), 50, 50, {}, (30, True)),
    ((3, 70), 50, 50, {}, (50, True)),
    # we had the leader's epoch: the smaller end offset
    ((3, 30), 50, 50, {3: (3, 35)}, (30, True)),
    ((3, 40), 50, 50, {3: (3, 35)}, (35, True)),
    ((3, 40), 50, 32, {3: (3, 35)}, (32, True)),
    # we never had it: where our earlier epoch ends, and another round
    ((3, 40), 50, 50, {3: (2, 20)}, (20, False)),
    ((3, 40), 50, 15, {3: (2, 20)}, (15, False)),
])
def test_truncation_decisions(leader, fetch_offset, leo, ours, expected) -> None:
    state = offset_truncation_state(leader[0], leader[1], fetch_offset=fetch_offset,
                                    log_end_offset=leo, local_end_offset_for=local(ours))
    assert state == OffsetTruncationState(*expected)


@pytest.mark.parametrize(("last", "offset", "start", "found", "expected"), [
    (3, 50, 0, (3, 60), None),  # the logs agree up to the fetch offset
    (3, 50, 0, (3, 50), None),
    (3, 50, 0, (3, 45), (3, 45)),  # our epoch 3 ended before the fetcher's log does
    (3, 50, 0, (2, 60), (2, 60)),  # we never had epoch 3
    (3, 50, 0, (1, 20), (1, 20)),
])
def test_the_leaders_diverging_epoch(last, offset, start, found, expected) -> None:
    assert diverging_epoch(last, offset, start, found) == expected


@pytest.mark.parametrize(("offset", "start", "found"), [
    (50, 0, None),  # an epoch this log cannot place
    (5, 10, (3, 60)),  # below the log start, diverging or not
    (5, 10, (1, 2)),
])
def test_the_leader_answers_out_of_range(offset, start, found) -> None:
    with pytest.raises(KafkaError) as e:
        diverging_epoch(3, offset, start, found)
    assert e.value.code == ErrorCode.OFFSET_OUT_OF_RANGE


# -- the leader's side -----------------------------------------------------------------------


def follower_fetch(node: Node, replica: int, offset: int, last_epoch: int, epoch: int = -1):
    out = node.rm.fetch_messages(
        FetchParams(replica_id=replica),
        [FetchRequestPartition(TOPIC, 0, offset, 1 << 20, epoch, last_fetched_epoch=last_epoch)],
        now_ms=T0)
    assert isinstance(out, list)
    return out[0]


def test_a_diverging_fetch_gets_the_epoch_and_moves_nothing(cluster) -> None:
    leader = cluster[1]
    history(leader, records(3, epoch=0), records(2, base=3, epoch=2))
    leader.become(leader=1, epoch=4)  # starts epoch 4 at offset 5
    partition = leader.rm.get_partition(*TP)
    assert partition is not None
    assert follower_fetch(leader, 2, 5, 2).diverging_epoch is None  # agrees: nothing to say
    assert partition.remote_replicas[2].log_end_offset == 5
    # a follower that wrote epoch 3 from offset 4 on (the leader never had epoch 3)
    result = follower_fetch(leader, 2, 6, 3)
    assert result.error == ErrorCode.NONE and result.diverging_epoch == (2, 5)
    assert result.records == b"" and result.high_watermark == partition.high_watermark
    # KAFKA-13141: the divergent fetch offset is not taken for the follower's log end
    assert partition.remote_replicas[2].log_end_offset == 5
    # a follower whose epoch 0 went further than the leader's
    assert follower_fetch(leader, 2, 4, 0).diverging_epoch == (0, 3)
    # an epoch past the leader's, and a fetch below its log start
    assert follower_fetch(leader, 2, 5, 9).error == ErrorCode.OFFSET_OUT_OF_RANGE


def test_a_fetch_from_a_replica_outside_the_assignment(cluster) -> None:
    leader = cluster[1]
    leader.become(leader=1, epoch=0)
    assert follower_fetch(leader, 3, 0, -1, epoch=0).error == ErrorCode.UNKNOWN_LEADER_EPOCH
    assert follower_fetch(leader, 3, 0, -1).error == ErrorCode.NOT_LEADER_OR_FOLLOWER


def test_the_epoch_is_checked_before_the_role(cluster) -> None:
    follower = cluster[2]
    follower.become(leader=1, epoch=5)
    # Kafka's getLocalLog: a stale epoch is fenced even where this broker is no leader
    assert follower_fetch(follower, 3, 0, -1, epoch=4).error == ErrorCode.FENCED_LEADER_EPOCH
    assert follower_fetch(follower, 3, 0, -1, epoch=6).error == ErrorCode.UNKNOWN_LEADER_EPOCH
    assert follower_fetch(follower, 3, 0, -1, epoch=5).error == \
        ErrorCode.NOT_LEADER_OR_FOLLOWER


def test_offset_for_leader_epoch_on_the_leader(cluster) -> None:
    node = cluster[1]
    history(node, records(3, epoch=0), records(2, base=3, epoch=2))
    node.become(leader=1, epoch=4)
    ask = node.rm.last_offset_for_leader_epoch
    assert ask(TOPIC, 0, -1, 0) == (ErrorCode.NONE, 0, 3)
    assert ask(TOPIC, 0, 4, 1) == (ErrorCode.NONE, 0, 3)
    assert ask(TOPIC, 0, 4, 2) == (ErrorCode.NONE, 2, 5)
    assert ask(TOPIC, 0, 4, 4) == (ErrorCode.NONE, 4, 5)  # the current epoch: the log end
    assert ask(TOPIC, 0, 4, 5) == (ErrorCode.NONE, -1, -1)  # undefined is not an error
    assert ask(TOPIC, 0, 3, 2) == (ErrorCode.FENCED_LEADER_EPOCH, -1, -1)
    assert ask(TOPIC, 0, 5, 2) == (ErrorCode.UNKNOWN_LEADER_EPOCH, -1, -1)
    assert ask(TOPIC, 1, -1, 2) == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1)
    node.become(leader=2, epoch=5)
    assert ask(TOPIC, 0, -1, 2) == (ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1)


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_offset_for_leader_epoch_over_the_wire(cluster, version: int) -> None:
    node = cluster[1]
    history(node, records(3, epoch=0), records(2, base=3, epoch=2))
    node.become(leader=1, epoch=4)
    node.cache.update_metadata(1, [], [PartitionUpdate(
        "known", uuid.uuid4(), PartitionInfo(0, 2, 0, (2,), (2,)))])
    endpoint = LoopbackLeader(node, 2, FAST)

    async def main() -> oresp.OffsetForLeaderEpochResponse:
        response = await endpoint._request(
            ApiKey.OFFSET_FOR_LEADER_EPOCH, version, oreq.OffsetForLeaderEpochRequest(
                replica_id=2, topics=[
                    oreq.OffsetForLeaderTopic(topic=TOPIC, partitions=[
                        oreq.OffsetForLeaderPartition(partition=0, current_leader_epoch=4,
                                                      leader_epoch=1),
                        oreq.OffsetForLeaderPartition(partition=0, current_leader_epoch=3,
                                                      leader_epoch=4)]),
                    oreq.OffsetForLeaderTopic(topic="known", partitions=[
                        oreq.OffsetForLeaderPartition(partition=0, leader_epoch=0)]),
                    oreq.OffsetForLeaderTopic(topic="nope", partitions=[
                        oreq.OffsetForLeaderPartition(partition=0, leader_epoch=0)])]))
        assert isinstance(response, oresp.OffsetForLeaderEpochResponse)
        return response

    response = asyncio.run(main())
    got = [[(p.partition, p.error_code, p.leader_epoch, p.end_offset) for p in t.partitions]
           for t in response.topics]
    # v0 answers no epoch; before v2 no current epoch is sent, so nothing is fenced
    first = (0, 0, 0, 3) if version >= 1 else (0, 0, -1, 3)
    fenced = {0: (0, 0, -1, 5), 1: (0, 0, 4, 5)}.get(
        version, (0, ErrorCode.FENCED_LEADER_EPOCH, -1, -1))
    assert got == [[first, fenced],
                   [(0, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1)],  # known to the metadata
                   [(0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1)]]


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
        [fetch] = fetched_requests(endpoint, ApiKey.FETCH)[-1:]
        assert isinstance(fetch, freq.FetchRequest)
        # Fetch v17: by topic id, the follower and its broker epoch in ReplicaState
        assert {v for k, v, _ in endpoint.requests if k == ApiKey.FETCH} == {17}
        assert (fetch.replica_id, fetch.replica_state.replica_id,
                fetch.replica_state.replica_epoch) == (-1, 2, 7)
        assert [t.topic_id for t in fetch.topics] == [TOPIC_ID]
        assert fetch.topics[0].partitions[0].last_fetched_epoch == 0
        assert follower.log.leader_epoch_cache.entries == leader.log.leader_epoch_cache.entries

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


# -- the replica manager's part --------------------------------------------------------------


def test_leadership_changes_start_move_and_stop_fetchers(cluster) -> None:
    nodes = Cluster(cluster[1].dir.parent / "three", n=3)

    async def main() -> None:
        manager = nodes.enable_replication(2)
        try:
            await moves(manager)
        finally:
            await nodes.shutdown()

    async def moves(manager) -> None:
        one, two, three = nodes[1], nodes[2], nodes[3]
        one.become(leader=1, epoch=0, replicas=(1, 2, 3))
        two.become(leader=1, epoch=0, replicas=(1, 2, 3))
        state = manager.fetch_state(*TP)
        assert state is not None and state.current_leader_epoch == 0
        assert set(manager.fetchers) == {(1, 0)}
        produce(one, 2)
        await until(lambda: two.log.log_end_offset == 2, "broker 2 to copy broker 1")
        # broker 3 takes over: the fetcher from 1 goes, one from 3 comes
        three.become(leader=3, epoch=1, replicas=(1, 2, 3))
        two.become(leader=3, epoch=1, replicas=(1, 2, 3))
        assert set(manager.fetchers) == {(3, 0)}
        produce(three, 1)
        await until(lambda: two.log.log_end_offset == 1, "broker 2 to follow broker 3")
        # broker 2 leads: no fetcher at all
        two.become(leader=2, epoch=2, replicas=(1, 2, 3))
        assert manager.fetchers == {} and manager.fetch_state(*TP) is None
        # a leader not alive in the metadata: the partition only keeps its log
        nodes.alive.discard(1)
        two.become(leader=1, epoch=3, replicas=(1, 2, 3))
        partition = two.rm.get_partition(*TP)
        assert partition is not None and partition.role is Role.LEADER  # unchanged, as Kafka
        assert manager.fetchers == {}
        nodes.alive.add(1)
        one.become(leader=1, epoch=3, replicas=(1, 2, 3))
        two.become(leader=1, epoch=3, replicas=(1, 2, 3))
        assert set(manager.fetchers) == {(1, 0)}
        # StopReplica stops the fetcher
        two.rm.stop_replicas(TOPIC, [0], delete=False)
        assert manager.fetchers == {}

    run(main)


def test_high_watermarks_are_checkpointed_and_read_back(cluster, tmp_path) -> None:
    node = cluster[1]
    node.become(leader=1, epoch=0, replicas=(1,))
    produce(node, 4)
    node.rm.checkpoint_high_watermarks()
    path = tmp_path / "broker-1" / REPLICATION_OFFSET_CHECKPOINT
    assert path.read_text() == f"0\n1\n{TOPIC} 0 4\n"
    node.close()
    path.write_text(f"0\n1\n{TOPIC} 0 3\n")
    again = cluster.nodes[1] = Node(1, tmp_path / "broker-1")
    again.become(leader=2, epoch=1)
    partition = again.rm.get_partition(*TP)
    assert partition is not None and partition.high_watermark == 3  # a follower's, as read
    again.close()
    path.write_text(f"0\n1\n{TOPIC} 0 99\n")  # beyond the log end: clamped
    again = cluster.nodes[1] = Node(1, tmp_path / "broker-1")
    again.become(leader=2, epoch=1)
    partition = again.rm.get_partition(*TP)
    assert partition is not None and partition.high_watermark == 4


def test_a_new_leader_starts_from_its_checkpointed_high_watermark(cluster, tmp_path) -> None:
    node = cluster[1]
    node.become(leader=2, epoch=0)
    history_ = records(5, epoch=0)
    partition = node.rm.get_partition(*TP)
    assert partition is not None
    partition.append_records_to_follower(history_, 3, T0)
    node.close()  # checkpoints high watermark 3 on the way out
    again = cluster.nodes[1] = Node(1, tmp_path / "broker-1")
    again.become(leader=1, epoch=1)
    partition = again.rm.get_partition(*TP)
    assert partition is not None
    # the followers' positions are unknown until they fetch: the high watermark waits
    assert partition.high_watermark == 3 and partition.log_end_offset == 5
    assert again.log.leader_epoch_cache.latest_entry is not None
    assert (again.log.latest_epoch, again.log.end_offset_for_epoch(0)) == (1, (0, 5))
