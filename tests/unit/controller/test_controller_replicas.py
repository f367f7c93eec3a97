"""Reassignment and election decisions of the controller on the embedded node, a one-broker
cluster: AlterPartitionReassignments, ListPartitionReassignments and ElectLeaders through the
admin seam to the KafkaController.

Besides the ordinary one-broker case (also covered over the wire by
tests/compat/test_admin_apis.py), this covers a data dir written by broker 1 and started as
broker 0, whose partitions' only replica is a broker that is gone: the one case in which an
election is needed, and fails as it fails in Kafka.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.controller.controller_requests import PREFERRED, UNCLEAN
from pybroker.kernel.types import Reassignment
from tests.unit.broker.embedded_node import EmbeddedNode

TOPIC = "orders"


@pytest.fixture
def node(tmp_path: Path) -> Iterator[EmbeddedNode]:
    n = EmbeddedNode.start(tmp_path / "data", **{"broker.id": "0"})
    n.create_topic(TOPIC, 2)
    yield n
    n.stop()


@pytest.fixture
def moved(tmp_path: Path) -> Iterator[EmbeddedNode]:
    """Topic ``orders`` created by broker 1, its data dir then started as broker 0."""
    first = EmbeddedNode.start(tmp_path / "data", **{"broker.id": "1"})
    first.create_topic(TOPIC, 1)
    first.stop()
    n = EmbeddedNode.start(tmp_path / "data", **{"broker.id": "0"})
    assert n.broker.metadata_cache is not None
    n.wait_until(lambda: n.broker.metadata_cache.partition(TOPIC, 0) is not None)  # type: ignore[union-attr]
    assert n.broker.metadata_cache.partition(TOPIC, 0).replicas == (1,)  # type: ignore[union-attr]
    yield n
    n.stop()


def outcome(node: EmbeddedNode, topic: str, partition: int,
            target: Sequence[int] | None) -> tuple[ErrorCode, str | None]:
    admin = node.broker.admin
    assert admin is not None
    [(tp, error)] = node.call(admin.alter_partition_reassignments, {(topic, partition): target},
                              timeout_ms=10_000, now_ms=node.now_ms).items()
    assert tp == (topic, partition)
    return (error.code, error.message) if isinstance(error, KafkaError) else (ErrorCode.NONE,
                                                                             None)


def elections(node: EmbeddedNode, partitions: list[tuple[str, int]], election_type: int,
              ) -> dict[tuple[str, int], Any]:
    admin = node.broker.admin
    assert admin is not None
    answer = node.call(admin.elect_leaders, partitions, election_type, timeout_ms=10_000,
                       now_ms=node.now_ms)
    return {tp: (e.code, e.message) if e else None for tp, e in answer.items()}


def ongoing(node: EmbeddedNode, partitions: list[tuple[str, int]] | None) -> dict[Any, Any]:
    admin = node.broker.admin
    assert admin is not None
    return node.call(admin.list_partition_reassignments, partitions)


NOT_NEEDED = (ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
NO_PARTITION = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist.")
NOTHING_TO_CANCEL = (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
                     "No partition reassignment is in progress.")
INVALID = ErrorCode.INVALID_REPLICA_ASSIGNMENT


def test_reassignments_on_one_broker(node: EmbeddedNode) -> None:
    assert outcome(node, TOPIC, 0, [0]) == (ErrorCode.NONE, None)
    assert outcome(node, TOPIC, 0, None) == NOTHING_TO_CANCEL
    assert outcome(node, "missing", 0, None) == NOTHING_TO_CANCEL
    assert outcome(node, TOPIC, 7, [0]) == NO_PARTITION
    # the replica list is checked before the partition is looked up, as Kafka checks it
    assert outcome(node, TOPIC, 7, [5]) == (INVALID, "Replica assignment has brokers that are "
                                                     "not alive. Replica list: ArrayBuffer(5), "
                                                     "live broker list: Set(0)")
    assert outcome(node, TOPIC, 0, []) == (
        INVALID, "Empty replica list specified in partition reassignment.")
    assert outcome(node, TOPIC, 0, [0, 0]) == (
        INVALID, "Duplicate replica ids in partition reassignment replica list: ArrayBuffer(0, 0)")
    assert outcome(node, TOPIC, 0, [0, -2]) == (
        INVALID, "Invalid broker id in replica list: ArrayBuffer(0, -2)")
    # only the replicas being added must be alive
    assert outcome(node, TOPIC, 1, [0, 1, 2, 3, 4, 5])[1].endswith(  # type: ignore[union-attr]
        "Replica list: ArrayBuffer(1, 2, 3, 4, 5), live broker list: Set(0)")
    assert ongoing(node, None) == {}
    assert ongoing(node, [(TOPIC, 0), (TOPIC, 9)]) == {}
    cache = node.broker.metadata_cache
    assert cache is not None and cache.partition(TOPIC, 0).replicas == (0,)  # type: ignore[union-attr]


def test_elections_on_one_broker(node: EmbeddedNode) -> None:
    wanted = [(TOPIC, 0), (TOPIC, 1), (TOPIC, 5), ("missing", 0)]
    for election_type in (PREFERRED, UNCLEAN):
        assert elections(node, wanted, election_type) == {
            (TOPIC, 0): NOT_NEEDED, (TOPIC, 1): NOT_NEEDED,
            (TOPIC, 5): NO_PARTITION, ("missing", 0): NO_PARTITION,
        }


def test_partition_whose_replica_is_gone(moved: EmbeddedNode) -> None:
    # Its leader, broker 1, is not alive: both kinds of election are needed, and find no
    # replica to elect (messages as Kafka 3.9 sends them for an offline partition).
    assert elections(moved, [(TOPIC, 0)], PREFERRED) == {(TOPIC, 0): (
        ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
        f"Failed to elect leader for partition {TOPIC}-0 under strategy "
        "PreferredReplicaPartitionLeaderElectionStrategy")}
    assert elections(moved, [(TOPIC, 0)], UNCLEAN) == {(TOPIC, 0): (
        ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
        f"Failed to elect leader for partition {TOPIC}-0 under strategy "
        "OfflinePartitionLeaderElectionStrategy(true)")}
    # Its current replica set is a valid target
    assert outcome(moved, TOPIC, 0, [1]) == (ErrorCode.NONE, None)
    # Moving it to this broker is accepted, as Kafka's controller accepts it, and stays in
    # progress: the new replica cannot catch up from a leader that is gone
    assert outcome(moved, TOPIC, 0, [0]) == (ErrorCode.NONE, None)
    assert ongoing(moved, [(TOPIC, 0)]) == {(TOPIC, 0): Reassignment((0, 1), (0,), (1,))}
    # the old replica stays until the new one has caught up; the partition stays offline
    cache = moved.broker.metadata_cache
    assert cache is not None
    moved.wait_until(lambda: cache.partition(TOPIC, 0).replicas == (0, 1))  # type: ignore[union-attr]
    assert cache.partition(TOPIC, 0).leader == -1  # type: ignore[union-attr]
