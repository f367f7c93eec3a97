"""How a broker applies the controller's requests (pybroker.cluster.control): epoch fencing,
LeaderAndIsr's per-partition decisions, UpdateMetadata into the metadata cache, StopReplica.
Real logs in a temporary directory; the requests' values as the handlers build them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from pybroker.cluster.control import (
    ControlRequestHandler,
    LeaderAndIsrPartition,
    StopReplicaPartition,
)
from pybroker.cluster.metadata_cache import (
    BrokerEndpoint,
    BrokerNode,
    MetadataCache,
    PartitionInfo,
    PartitionUpdate,
)
from pybroker.cluster.partition import Role
from pybroker.cluster.replica_manager import ReplicaManager
from pybroker.log import LogConfig
from pybroker.log.manager import LogManager
from pybroker.metadata.model import PartitionRecord

T0 = 1_700_000_000_000
ME = 1
TOPIC_ID = uuid.uuid4()


@pytest.fixture
def handler(tmp_path: Path) -> Iterator[ControlRequestHandler]:
    logs = LogManager([tmp_path / "logs"], LogConfig())
    logs.startup(T0)
    rm = ReplicaManager(ME, logs, lambda _topic: LogConfig())
    cache = MetadataCache("cluster", controller_id=-1)
    h = ControlRequestHandler(ME, rm, cache, lambda: 100)  # this broker's epoch
    yield h
    rm.shutdown()
    logs.shutdown()


def state(partition: int, leader: int, epoch: int, replicas=(1, 2, 3), isr=None,
          topic_id: uuid.UUID = TOPIC_ID) -> LeaderAndIsrPartition:
    return LeaderAndIsrPartition("t", topic_id, PartitionRecord(
        partition, tuple(replicas), tuple(isr or replicas), leader, epoch))


def test_partitions_led_here_are_led_and_the_rest_followed(handler) -> None:
    error, results = handler.leader_and_isr(
        0, 5, 100, [state(0, ME, 0), state(1, 2, 0)], T0)
    assert error == ErrorCode.NONE
    assert results == {("t", 0): ErrorCode.NONE, ("t", 1): ErrorCode.NONE}
    rm = handler.replica_manager
    assert rm.get_partition("t", 0).role is Role.LEADER
    assert rm.get_partition("t", 1).role is Role.FOLLOWER
    assert rm.get_partition("t", 1).leader_id == 2
    assert rm.get_partition("t", 0).topic_id == TOPIC_ID
    assert handler.controller_epoch == 5


def test_a_stale_controller_or_broker_epoch_fails_the_whole_request(handler) -> None:
    handler.leader_and_isr(0, 5, 100, [state(0, ME, 0)], T0)
    error, results = handler.leader_and_isr(0, 4, 100, [state(0, 2, 1)], T0)
    assert error == ErrorCode.STALE_CONTROLLER_EPOCH and results == {}
    error, _ = handler.leader_and_isr(0, 5, 99, [state(0, 2, 1)], T0)
    assert error == ErrorCode.STALE_BROKER_EPOCH
    # a higher broker epoch is accepted (the controller may know a newer registration first),
    # and so is -1, which older request versions carry
    assert handler.leader_and_isr(0, 5, 101, [], T0)[0] == ErrorCode.NONE
    assert handler.leader_and_isr(0, 5, -1, [], T0)[0] == ErrorCode.NONE
    assert handler.replica_manager.get_partition("t", 0).role is Role.LEADER
    assert handler.update_metadata(0, 4, 100, [], []) == ErrorCode.STALE_CONTROLLER_EPOCH
    assert handler.stop_replica(0, 5, 50, [], T0)[0] == ErrorCode.STALE_BROKER_EPOCH


def test_each_request_is_logged_with_its_controller_epoch_applied_or_ignored(
        handler, caplog: pytest.LogCaptureFixture) -> None:
    """The broker's log tells which controller epoch it obeyed and which it refused: what
    the chaos proof reads to show a deposed controller's requests are never applied."""
    caplog.set_level("INFO", logger="pybroker.cluster.control")
    handler.leader_and_isr(2, 5, 100, [state(0, ME, 0)], T0)
    handler.update_metadata(2, 5, 100, [], [])
    handler.stop_replica(2, 5, 100, [], T0)
    handler.leader_and_isr(1, 4, 100, [state(0, 2, 1)], T0)
    handler.update_metadata(1, 4, 100, [], [])
    handler.stop_replica(1, 4, 100, [], T0)
    assert [r.getMessage() for r in caplog.records] == [
        "LeaderAndIsr from controller 2 epoch 5: 1 partition(s), 1 applied",
        "UpdateMetadata from controller 2 epoch 5: 0 partition(s), 0 live broker(s)",
        "StopReplica from controller 2 epoch 5: 0 partition(s)",
        "Ignoring LeaderAndIsr from controller 1 epoch 4: STALE_CONTROLLER_EPOCH",
        "Ignoring UpdateMetadata from controller 1 epoch 4: STALE_CONTROLLER_EPOCH",
        "Ignoring StopReplica from controller 1 epoch 4: STALE_CONTROLLER_EPOCH",
    ]


def test_per_partition_refusals(handler) -> None:
    handler.leader_and_isr(0, 1, 100, [state(0, ME, 3)], T0)
    other_id = uuid.uuid4()
    _, results = handler.leader_and_isr(0, 1, 100, [
        state(0, ME, 3),                          # same leader epoch: already applied
        state(1, 2, 0, replicas=(2, 3)),          # not a replica here
    ], T0)
    assert results == {("t", 0): ErrorCode.STALE_CONTROLLER_EPOCH,
                       ("t", 1): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}
    _, results = handler.leader_and_isr(0, 1, 100, [state(0, 2, 4, topic_id=other_id)], T0)
    assert results == {("t", 0): ErrorCode.INCONSISTENT_TOPIC_ID}
    assert handler.replica_manager.get_partition("t", 0).role is Role.LEADER
    _, results = handler.leader_and_isr(0, 1, 100, [state(0, 2, 4)], T0)
    assert results == {("t", 0): ErrorCode.NONE}
    assert handler.replica_manager.get_partition("t", 0).role is Role.FOLLOWER


def test_update_metadata_feeds_the_cache(handler) -> None:
    cache = handler.metadata_cache
    brokers = [BrokerNode(1, (("PLAINTEXT", "127.0.0.1", 9001), ("OTHER", "h", 1))),
               BrokerNode(2, (("PLAINTEXT", "127.0.0.1", 9002),), "r2"),
               BrokerNode(3, (("OTHER", "h", 3),))]  # no endpoint on this listener
    parts = [PartitionUpdate("t", TOPIC_ID, PartitionInfo(p, 1, 0, (1, 2), (1, 2)))
             for p in range(2)]
    assert handler.update_metadata(2, 1, 100, brokers, parts) == ErrorCode.NONE
    assert cache.controller_id == 2
    assert sorted(cache.brokers) == [1, 2]
    assert (cache.brokers[2].port, cache.brokers[2].rack) == (9002, "r2")
    # a replica fetcher looks its leader up on the inter-broker listener, whichever that is
    assert cache.alive_endpoint(3, "OTHER") == BrokerEndpoint(3, "h", 3)
    assert cache.alive_endpoint(1, "OTHER") == BrokerEndpoint(1, "h", 1)
    assert cache.alive_endpoint(2, "OTHER") is None and cache.alive_endpoint(4, "OTHER") is None
    assert sorted(cache.topic("t").partitions) == [0, 1]
    assert cache.topic_name(TOPIC_ID) == "t"
    # a partition with leader -2 is being deleted: it leaves the cache, and so does an empty topic
    handler.update_metadata(2, 1, 100, brokers[:1], [
        PartitionUpdate("t", TOPIC_ID, PartitionInfo(0, -2, 1, (1, 2), (1, 2)))])
    assert sorted(cache.brokers) == [1] and sorted(cache.topic("t").partitions) == [1]
    assert cache.alive_endpoint(3, "OTHER") is None  # no longer alive
    handler.update_metadata(2, 1, 100, brokers[:1], [
        PartitionUpdate("t", TOPIC_ID, PartitionInfo(1, -2, 1, (1, 2), (1, 2)))])
    assert cache.topic("t") is None and cache.topic_name(TOPIC_ID) is None


def test_stop_replica_with_and_without_deletion(handler) -> None:
    handler.leader_and_isr(0, 1, 100, [state(0, ME, 2), state(1, ME, 2)], T0)
    logs = handler.replica_manager.log_manager
    _, results = handler.stop_replica(0, 1, 100, [
        StopReplicaPartition("t", 0, 1, False),   # an older leader epoch: fenced
        StopReplicaPartition("t", 1, 2, False),
    ], T0)
    assert results == {("t", 0): ErrorCode.FENCED_LEADER_EPOCH, ("t", 1): ErrorCode.NONE}
    stopped = handler.replica_manager.get_partition("t", 1)
    assert stopped is not None and stopped.role is Role.NONE and logs.get_log("t", 1) is not None
    _, results = handler.stop_replica(0, 1, 100, [StopReplicaPartition("t", 0, -2, True)], T0)
    assert results == {("t", 0): ErrorCode.NONE}
    assert handler.replica_manager.get_partition("t", 0) is None
    assert logs.get_log("t", 0) is None
