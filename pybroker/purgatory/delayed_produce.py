"""A produce with acks=all waiting for its batches to be replicated (Kafka's DelayedProduce).

Each partition's batch has been appended to the leader's log; the answer for that partition is
due once the high watermark reaches the end of the batch (every member of the ISR has it), once
this broker stops leading the partition, or when ``timeout_ms`` runs out (REQUEST_TIMED_OUT). The
operation is watched under each of its partitions; whoever moves a high watermark or a
leadership checks the partition's key.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from protocol.errors import ErrorCode, KafkaError

from . import DelayedOperation


class ReplicatedLeader(Protocol):
    """What a delayed produce asks of a partition (``pybroker.cluster.partition.Partition``)."""

    def check_enough_replicas_reach_offset(self, required_offset: int,
                                           min_insync_replicas: int) -> tuple[bool, ErrorCode]: ...


@dataclass(slots=True)
class ProducePartitionStatus:
    """One partition of a waiting produce: the offset its batch ends at and its answer."""

    required_offset: int
    min_insync_replicas: int
    result: Any  # the append's result; its ``error`` is set when the wait ends
    done: bool = False


#: how the caller names a partition (the replica manager: ``(topic, partition)``)
K = TypeVar("K", bound=Hashable)


class DelayedProduce(DelayedOperation, Generic[K]):
    def __init__(self, statuses: Mapping[K, ProducePartitionStatus],
                 lookup: Callable[[K], ReplicatedLeader | None],
                 respond: Callable[[dict[K, Any]], Any]) -> None:
        super().__init__()
        self.statuses = dict(statuses)
        self.lookup = lookup
        self.respond = respond

    def try_complete(self) -> Any | None:
        for key, status in self.statuses.items():
            if status.done:
                continue
            try:
                partition = self.lookup(key)
            except KafkaError as e:  # e.g. KAFKA_STORAGE_ERROR: the partition's log dir failed
                status.done, status.result.error = True, e.code
                continue
            if partition is None:
                status.done, status.result.error = True, ErrorCode.NOT_LEADER_OR_FOLLOWER
                continue
            done, error = partition.check_enough_replicas_reach_offset(
                status.required_offset, status.min_insync_replicas)
            if done:
                status.done = True
                status.result.error = error
        if all(s.done for s in self.statuses.values()):
            return self.respond({k: s.result for k, s in self.statuses.items()})
        return None

    def on_expiration(self) -> Any:
        for status in self.statuses.values():
            if not status.done:
                status.done, status.result.error = True, ErrorCode.REQUEST_TIMED_OUT
        return self.respond({k: s.result for k, s in self.statuses.items()})
