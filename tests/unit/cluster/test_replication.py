"""Replication between brokers of one partition, in one process
(tests/unit/cluster/replication_harness): the fetcher's pure decisions (fetcher ids, request
building, truncation), the leader's side (DivergingEpoch, OffsetForLeaderEpoch, follower
positions) and the replica manager's part (fetchers started, moved and stopped with leadership;
checkpointed high watermarks).
Followers copying real logs are in test_follower_truncation.py.

Fetchers are driven round by round (``do_work``) unless a test runs the real fetcher manager,
whose tasks it then waits for with a deadline."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import replace

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    fetch_request as freq,
    offset_for_leader_epoch_request as oreq,
    offset_for_leader_epoch_response as oresp,
)
from protocol.primitives import Writer
from pybroker.cluster.fetcher_state import (
    VALID_PREVIOUS_STATES,
    FetcherConfig,
    FetchState,
    IllegalStateTransition,
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
from pybroker.cluster.replica_fetch import FetchParams, FetchRequestPartition
from pybroker.config import BrokerConfig
from pybroker.log.checkpoints import REPLICATION_OFFSET_CHECKPOINT
from tests.unit.cluster.replication_harness import (
    FAST,
    T0,
    TOPIC,
    TOPIC_ID,
    TP,
    Cluster,
    LoopbackLeader,
    Node,
    history,
    produce,
    records,
    run,
    until,
)

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


# -- the replica manager's part --------------------------------------------------------------


def test_a_new_number_of_fetchers_moves_the_partitions_on(cluster) -> None:
    """num.replica.fetchers changed at run time (a dynamic broker config): the partition moves
    to the fetcher its id picks under the new count, from where it was, and keeps copying."""
    nodes = Cluster(cluster[1].dir.parent / "resize", n=2)

    async def main() -> None:
        manager = nodes.enable_replication(2)
        try:
            one, two = nodes[1], nodes[2]
            one.become(leader=1, epoch=0)
            two.become(leader=1, epoch=0)
            produce(one, 2)
            await until(lambda: two.log.log_end_offset == 2, "broker 2 to copy broker 1")
            assert set(manager.fetchers) == {(1, 0)}
            manager.resize(3)  # abs(31 * "t".hashCode() + 0) % 3 == 2
            assert set(manager.fetchers) == {(1, 2)}
            state = manager.fetch_state(*TP)
            assert state is not None and state.fetch_offset == 2
            produce(one, 3)
            await until(lambda: two.log.log_end_offset == 5, "broker 2 to copy on")
            manager.resize(3)  # the same count: nothing moves
            assert set(manager.fetchers) == {(1, 2)}
        finally:
            await nodes.shutdown()

    run(main)


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
