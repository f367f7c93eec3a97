"""The names the layers share for the same things."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

#: a partition as the broker keys it everywhere: ``(topic, partition index)``. A plain tuple
#: on purpose: the produce and fetch paths build and hash these for every partition of every
#: request, and a tuple is the cheapest key there is.
TopicPartition: TypeAlias = tuple[str, int]


def tp_str(tp: TopicPartition) -> str:
    """``orders-0``, as Kafka's ``TopicPartition.toString``."""
    return f"{tp[0]}-{tp[1]}"


@dataclass(frozen=True, slots=True)
class Reassignment:
    """A partition being reassigned (ListPartitionReassignments)."""

    replicas: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class IsrChange:
    """One partition of an AlterPartition: the ISR its leader asks for."""

    leader_epoch: int
    isr: tuple[int, ...]
    leader_recovery_state: int
    partition_epoch: int
    #: KIP-903 (v3): each ISR member's broker epoch as the leader knows it (-1: unknown)
    isr_broker_epochs: dict[int, int] | None = None
