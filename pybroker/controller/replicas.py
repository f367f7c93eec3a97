"""Partition reassignments and leader elections asked for through the admin APIs.

They are decided as Kafka's ZooKeeper-mode controller decides them (``KafkaController``:
``processApiPartitionReassignment``, ``processListPartitionReassignments``,
``processReplicaLeaderElection``), with the same checks in the same order and the same
messages, over the embedded controller's state: the metadata cache and the live brokers.

On a one-broker cluster the only replica set a reassignment may name is the one every partition
already has, so an accepted reassignment is complete at once and none is ever in progress; and
every partition is led by its preferred replica, which is alive, so no election is ever needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from pybroker.kernel.types import TopicPartition

if TYPE_CHECKING:
    from pybroker.controller.local import LocalController


PREFERRED = 0  # (same numbers as pybroker.admin)
UNCLEAN = 1
NO_LEADER = -1

PARTITION_DOES_NOT_EXIST = "The partition does not exist."


def _scala_seq(replicas: Iterable[int]) -> str:
    """A replica list as Kafka's messages print it (a Scala ``ArrayBuffer``)."""
    return f"ArrayBuffer({', '.join(map(str, replicas))})"


def _scala_set(ids: Iterable[int]) -> str:
    ids = list(ids)
    return f"{'Set' if len(ids) <= 4 else 'HashSet'}({', '.join(map(str, ids))})"


# -- reassignments --------------------------------------------------------------------------


def validate_replicas(target: Sequence[int], current: Sequence[int], live: Sequence[int]) -> None:
    if not target:
        raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         "Empty replica list specified in partition reassignment.")
    if len(set(target)) != len(target):
        raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         "Duplicate replica ids in partition reassignment replica list: "
                         f"{_scala_seq(target)}")
    if any(r < 0 for r in target):
        raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         f"Invalid broker id in replica list: {_scala_seq(target)}")
    adding = [r for r in target if r not in current]
    if not set(adding) <= set(live):
        raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         "Replica assignment has brokers that are not alive. Replica list: "
                         f"{_scala_seq(adding)}, live broker list: {_scala_set(live)}")


def reassign_partition(controller: LocalController, topic: str, partition: int,
                       target: Sequence[int] | None) -> None:
    """Accept a reassignment of one partition to ``target`` (None cancels the one in progress);
    raises KafkaError with Kafka's code and message when it cannot be."""
    info = controller.cache.partition(topic, partition)
    if target is None:
        # nothing is ever in progress to cancel, on a partition that exists or not
        raise KafkaError(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
                         "No partition reassignment is in progress.")
    current = info.replicas if info is not None else ()
    validate_replicas(target, current, controller.live_brokers)
    if info is None:
        raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, PARTITION_DOES_NOT_EXIST)
    if tuple(target) != current:
        # Only a partition left by another broker id (the data dir of broker 1 started as
        # broker 0) gets here: its replicas would have to move, which takes a second broker.
        raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         f"Replicas {_scala_seq(current)} of {topic}-{partition} cannot move to "
                         f"{_scala_seq(target)}: replicas move between brokers only in the "
                         "ZooKeeper mode")
    # The target is the current replica set: the reassignment is complete as it is accepted.


def ongoing_reassignments(controller: LocalController,
                          partitions: Iterable[TopicPartition] | None,
                          ) -> dict[TopicPartition, tuple[list[int], list[int], list[int]]]:
    """(replicas, adding, removing) of each partition being reassigned, of ``partitions`` or of
    all (None). Reassignments complete as they are accepted, so there are none; partitions that
    do not exist are left out, as Kafka leaves them out."""
    return {}


# -- leader elections -----------------------------------------------------------------------


def elect_leaders(controller: LocalController, partitions: Iterable[TopicPartition],
                  election_type: int) -> dict[TopicPartition, KafkaError | None]:
    """The outcome for each partition: None for an election held, else the error."""
    live = set(controller.live_brokers)
    results: dict[TopicPartition, KafkaError | None] = {}
    for topic, partition in partitions:
        info = controller.cache.partition(topic, partition)
        if info is None:
            results[(topic, partition)] = KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                                     PARTITION_DOES_NOT_EXIST)
            continue
        # A leader that is not alive counts as none, as in Kafka's controller once the broker
        # is gone.
        leader = info.leader if info.leader in live else NO_LEADER
        if election_type == PREFERRED:
            electable = leader != info.replicas[0]
        else:
            electable = leader == NO_LEADER
        if not electable:
            results[(topic, partition)] = KafkaError(
                ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
            continue
        # Only a partition left by another broker id (the data dir of broker 1 started as
        # broker 0) gets here: none of its replicas is alive to be elected, and the election
        # fails as Kafka's does when its strategy finds no leader.
        if election_type == PREFERRED:
            code, strategy = (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
                              "PreferredReplicaPartitionLeaderElectionStrategy")
        else:
            code, strategy = (ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
                              "OfflinePartitionLeaderElectionStrategy(true)")
        results[(topic, partition)] = KafkaError(
            code, f"Failed to elect leader for partition {topic}-{partition} under strategy "
                  f"{strategy}")
    return results
