"""Reassignment and election decisions of the embedded controller (pybroker.controller.replicas).

The broker's storage and controller run without sockets. Besides the ordinary one-broker case
(also covered over the wire by tests/compat/test_admin_apis.py), this covers a data dir written
by broker 1 and started as broker 0, whose partitions' only replica is a broker that is gone:
the one case in which an election is needed, and fails as it fails in Kafka.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.controller.local import LocalController
from pybroker.controller.replicas import (
    PREFERRED,
    UNCLEAN,
    elect_leaders,
    ongoing_reassignments,
    reassign_partition,
)
from tests.unit.broker.helpers import storage_broker

T0 = 1_700_000_000_000
TOPIC = "orders"


class Node:
    """A broker's storage and controller, without sockets (``Broker.start_storage``)."""

    def __init__(self, data: Path, broker_id: int) -> None:
        self.broker = storage_broker(data, T0, {"broker.id": str(broker_id)})
        self.controller = self.broker.controller

    def close(self) -> None:
        self.broker.stop_storage()


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    n = Node(tmp_path / "data", 0)
    n.controller.create_topic(TOPIC, 2, 1, assignments=None, configs={}, validate_only=False,
                              now_ms=T0, defaults=(1, 1))
    yield n
    n.close()


@pytest.fixture
def moved(tmp_path: Path) -> Iterator[Node]:
    """Topic ``orders`` created by broker 1, its data dir then started as broker 0."""
    first = Node(tmp_path / "data", 1)
    first.controller.create_topic(TOPIC, 1, 1, assignments=None, configs={}, validate_only=False,
                                  now_ms=T0, defaults=(1, 1))
    first.close()
    n = Node(tmp_path / "data", 0)
    assert n.controller.cache.partition(TOPIC, 0).replicas == (1,)
    yield n
    n.close()


def outcome(controller: LocalController, topic: str, partition: int, target):
    try:
        reassign_partition(controller, topic, partition, target)
    except KafkaError as e:
        return e.code, e.message
    return ErrorCode.NONE, None


def elections(controller: LocalController, partitions, election_type: int):
    return {tp: (e.code, e.message) if e else None
            for tp, e in elect_leaders(controller, partitions, election_type).items()}


NOT_NEEDED = (ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
NO_PARTITION = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist.")
NOTHING_TO_CANCEL = (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
                     "No partition reassignment is in progress.")
INVALID = ErrorCode.INVALID_REPLICA_ASSIGNMENT


def test_reassignments_on_one_broker(node: Node) -> None:
    c = node.controller
    assert outcome(c, TOPIC, 0, [0]) == (ErrorCode.NONE, None)
    assert outcome(c, TOPIC, 0, None) == NOTHING_TO_CANCEL
    assert outcome(c, "missing", 0, None) == NOTHING_TO_CANCEL
    assert outcome(c, TOPIC, 7, [0]) == NO_PARTITION
    # the replica list is checked before the partition is looked up, as Kafka checks it
    assert outcome(c, TOPIC, 7, [5]) == (INVALID, "Replica assignment has brokers that are not "
                                                  "alive. Replica list: ArrayBuffer(5), live "
                                                  "broker list: Set(0)")
    assert outcome(c, TOPIC, 0, []) == (
        INVALID, "Empty replica list specified in partition reassignment.")
    assert outcome(c, TOPIC, 0, [0, 0]) == (
        INVALID, "Duplicate replica ids in partition reassignment replica list: ArrayBuffer(0, 0)")
    assert outcome(c, TOPIC, 0, [0, -2]) == (
        INVALID, "Invalid broker id in replica list: ArrayBuffer(0, -2)")
    # only the replicas being added must be alive
    assert outcome(c, TOPIC, 1, [0, 1, 2, 3, 4, 5])[1].endswith(
        "Replica list: ArrayBuffer(1, 2, 3, 4, 5), live broker list: Set(0)")
    assert ongoing_reassignments(c, None) == {}
    assert ongoing_reassignments(c, [(TOPIC, 0), (TOPIC, 9)]) == {}
    assert c.cache.partition(TOPIC, 0).replicas == (0,)


def test_elections_on_one_broker(node: Node) -> None:
    c = node.controller
    wanted = [(TOPIC, 0), (TOPIC, 1), (TOPIC, 5), ("missing", 0)]
    for election_type in (PREFERRED, UNCLEAN):
        assert elections(c, wanted, election_type) == {
            (TOPIC, 0): NOT_NEEDED, (TOPIC, 1): NOT_NEEDED,
            (TOPIC, 5): NO_PARTITION, ("missing", 0): NO_PARTITION,
        }


def test_partition_whose_replica_is_gone(moved: Node) -> None:
    c = moved.controller
    # Its leader, broker 1, is not alive: both kinds of election are needed, and find no
    # replica to elect (messages as Kafka 3.9 sends them for an offline partition).
    assert elections(c, [(TOPIC, 0)], PREFERRED) == {(TOPIC, 0): (
        ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
        f"Failed to elect leader for partition {TOPIC}-0 under strategy "
        "PreferredReplicaPartitionLeaderElectionStrategy")}
    assert elections(c, [(TOPIC, 0)], UNCLEAN) == {(TOPIC, 0): (
        ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
        f"Failed to elect leader for partition {TOPIC}-0 under strategy "
        "OfflinePartitionLeaderElectionStrategy(true)")}
    # Its current replica set is a valid target; moving it to this broker is refused.
    assert outcome(c, TOPIC, 0, [1]) == (ErrorCode.NONE, None)
    code, message = outcome(c, TOPIC, 0, [0])
    assert code == INVALID and "ZooKeeper mode" in message
    assert c.cache.partition(TOPIC, 0).replicas == (1,)
