"""Kafka's checks of the target replicas an AlterPartitionReassignments request names
(``KafkaController.processApiPartitionReassignment``), with its messages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from protocol.errors import ErrorCode, KafkaError

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

