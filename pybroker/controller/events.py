"""The events of the ZooKeeper-mode controller's queue (Kafka's ``ControllerEvent`` classes).

Everything the controller reacts to becomes one of these and waits its turn in one FIFO queue,
processed by one task: ZooKeeper watches and session changes, requests from brokers
(ControlledShutdown) and admin clients (ElectLeaders), responses to the controller's own
requests, and its timers. A handler never runs beside another, so the controller's state needs no
locks. Events that answer someone carry a ``respond`` callback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.errors import ErrorCode, KafkaError
from pybroker.kernel.types import IsrChange, TopicPartition

__all__ = ["IsrChange"]


@dataclass(frozen=True, slots=True)
class Startup:
    """The controller module starts: watch /controller and try to become controller."""


@dataclass(frozen=True, slots=True)
class ControllerChange:
    """/controller was created or changed: resign if it is no longer this broker."""


@dataclass(frozen=True, slots=True)
class Reelect:
    """/controller was deleted (or the session came back): resign if needed, elect again."""


@dataclass(frozen=True, slots=True)
class Expire:
    """The ZooKeeper session expired: resign at once."""


@dataclass(frozen=True, slots=True)
class BrokerChange:
    """The children of /brokers/ids changed: brokers joined, left or bounced."""


@dataclass(frozen=True, slots=True)
class BrokerModifications:
    """A live broker's znode changed (new endpoints, after a dynamic advertised.listeners)."""

    broker_id: int


@dataclass(frozen=True, slots=True)
class TopicChange:
    """The children of /brokers/topics changed: topics were created or removed."""


@dataclass(frozen=True, slots=True)
class PartitionModifications:
    """A topic's assignment znode changed: partitions were added."""

    topic: str


@dataclass(frozen=True, slots=True)
class TopicDeletion:
    """The children of /admin/delete_topics changed: topics to delete."""


@dataclass(frozen=True, slots=True)
class TopicDeletionStopReplicaResponse:
    """A broker answered a StopReplica(delete) of a topic being deleted."""

    broker_id: int
    errors: dict[TopicPartition, ErrorCode]


@dataclass(frozen=True, slots=True)
class ControlledShutdown:
    """A broker asks to shut down: move its leaderships away first. ``respond`` gets the error
    and the partitions it still leads."""

    broker_id: int
    broker_epoch: int
    respond: Callable[[ErrorCode, list[TopicPartition]], None]


@dataclass(frozen=True, slots=True)
class ReplicaLeaderElection:
    """ElectLeaders (or the automatic rebalance, with no ``respond``): elections of a type."""

    partitions: Sequence[TopicPartition]
    election_type: int
    respond: Callable[[dict[TopicPartition, KafkaError | None]], None] | None = None


@dataclass(frozen=True, slots=True)
class AlterPartitionReceived:
    """A partition leader asks to change ISRs (Kafka 2.7+'s path, KIP-497). ``partitions``
    is keyed by topic name, or by topic id for v2+; ``respond`` gets a request-wide error and
    each partition's outcome (an error code, or the state now recorded)."""

    broker_id: int
    broker_epoch: int
    partitions: dict[tuple[Any, int], IsrChange]
    respond: Callable[[ErrorCode, dict[tuple[Any, int], Any]], None]


@dataclass(frozen=True, slots=True)
class AutoPreferredReplicaLeaderElection:
    """The periodic check of ``auto.leader.rebalance.enable``."""


@dataclass(frozen=True, slots=True)
class ZkPartitionReassignment:
    """``/admin/reassign_partitions`` was created (the tools' path before KIP-455)."""


@dataclass(frozen=True, slots=True)
class ZkPreferredReplicaElection:
    """``/admin/preferred_replica_election`` was created."""


@dataclass(frozen=True, slots=True)
class IsrChangeNotification:
    """A child of ``/isr_change_notification``: a leader of an older inter-broker protocol
    changed ISRs itself and asks the controller to tell every broker."""


@dataclass(frozen=True, slots=True)
class LogDirEventNotification:
    """A child of ``/log_dir_event_notification``: a broker's log dir failed (KIP-112); the
    controller asks that broker which of its replicas are still online."""


@dataclass(frozen=True, slots=True)
class LeaderAndIsrResponseReceived:
    """A broker answered a LeaderAndIsr. ``partition_errors`` is keyed by topic name (before
    v5) or by topic id: a replica in an offline log dir answers KAFKA_STORAGE_ERROR."""

    broker_id: int
    error: ErrorCode
    partition_errors: dict[tuple[Any, int], ErrorCode]


@dataclass(frozen=True, slots=True)
class Call:
    """Anything else that must run in turn with the controller's events (a query from a
    request handler): ``fn`` runs in the queue and ``respond`` gets its result."""

    fn: Callable[[], Any]
    respond: Callable[[Any], None]
    #: the controller state it runs in (Kafka's ControllerState name; its timer counts it)
    state: str = "Idle"


ControllerEvent = (Startup | ControllerChange | Reelect | Expire | BrokerChange
                   | BrokerModifications | TopicChange
                   | PartitionModifications | TopicDeletion | TopicDeletionStopReplicaResponse
                   | ZkPartitionReassignment | ZkPreferredReplicaElection | IsrChangeNotification
                   | LogDirEventNotification | LeaderAndIsrResponseReceived
                   | ControlledShutdown | ReplicaLeaderElection | AlterPartitionReceived
                   | AutoPreferredReplicaLeaderElection | Call)
