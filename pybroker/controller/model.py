"""Values the ZooKeeper-mode controller decides with: a partition's leader and ISR, its replica
assignment, and the outcomes of the ZooKeeper reads and writes the controller core performs.

They mirror Kafka's ``kafka.api.LeaderAndIsr``, ``LeaderIsrAndControllerEpoch``,
``ReplicaAssignment`` and ``PartitionAndReplica`` (``controller/ControllerContext.scala``), with
the same helper methods under Python names, and are immutable: a change builds a new value.

A topic partition is the kernel's ``TopicPartition``, a ``tuple[str, int]`` (topic, partition),
not a class: it is what the log manager and the group coordinator use too, and it hashes and
sorts as it should. :func:`pybroker.kernel.types.tp_str` prints it as Kafka prints a
``TopicPartition`` (``orders-0``), which the state-change messages use.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from pybroker.kernel.types import TopicPartition

INITIAL_LEADER_EPOCH = 0
INITIAL_PARTITION_EPOCH = 0
NO_LEADER = -1
NO_EPOCH = -1
LEADER_DURING_DELETE = -2  # UpdateMetadata's leader for a partition whose topic is being deleted
EPOCH_DURING_DELETE = -2  # StopReplica's leader epoch for a partition whose topic is being deleted

INITIAL_CONTROLLER_EPOCH = 0
INITIAL_CONTROLLER_EPOCH_ZK_VERSION = 0


def _ints(values: Iterable[int]) -> str:
    return ",".join(map(str, values))


class LeaderRecoveryState(enum.IntEnum):
    """KIP-704: whether the leader was elected uncleanly and is still recovering
    (``org.apache.kafka.metadata.LeaderRecoveryState``; the wire value is the int)."""

    RECOVERED = 0
    RECOVERING = 1


@dataclass(frozen=True, slots=True)
class LeaderAndIsr:
    """A partition's leader, leader epoch, ISR, recovery state and partition epoch (the zkVersion
    of its ``state`` znode), as the controller writes them."""

    leader: int
    leader_epoch: int = INITIAL_LEADER_EPOCH
    isr: tuple[int, ...] = ()
    leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED
    partition_epoch: int = INITIAL_PARTITION_EPOCH

    def __post_init__(self) -> None:
        object.__setattr__(self, "isr", tuple(self.isr))
        object.__setattr__(self, "leader_recovery_state",
                           LeaderRecoveryState(self.leader_recovery_state))

    @classmethod
    def initial(cls, leader: int, isr: Iterable[int]) -> LeaderAndIsr:
        """Epoch 0, partition epoch 0, recovered: a new partition's first state."""
        return cls(leader, INITIAL_LEADER_EPOCH, tuple(isr))

    @classmethod
    def during_delete(cls, isr: Iterable[int]) -> LeaderAndIsr:
        """What UpdateMetadata says of a partition whose topic is being deleted (leader -2)."""
        return cls.initial(LEADER_DURING_DELETE, isr)

    def with_partition_epoch(self, partition_epoch: int) -> LeaderAndIsr:
        return replace(self, partition_epoch=partition_epoch)

    def new_leader(self, leader: int) -> LeaderAndIsr:
        """``leader`` leads with the same ISR; the leader epoch goes up by one."""
        return replace(self, leader=leader, leader_epoch=self.leader_epoch + 1)

    def new_leader_and_isr(self, leader: int, isr: Iterable[int]) -> LeaderAndIsr:
        """A new leader and ISR, keeping the recovery state; the leader epoch goes up by one."""
        return replace(self, leader=leader, leader_epoch=self.leader_epoch + 1, isr=tuple(isr))

    def new_recovering_leader_and_isr(self, leader: int, isr: Iterable[int]) -> LeaderAndIsr:
        """An unclean election's result: marked RECOVERING; the leader epoch goes up by one."""
        return replace(self, leader=leader, leader_epoch=self.leader_epoch + 1, isr=tuple(isr),
                       leader_recovery_state=LeaderRecoveryState.RECOVERING)

    def new_epoch(self) -> LeaderAndIsr:
        """The same leader and ISR under the next leader epoch (a reassignment's bump)."""
        return self.new_leader(self.leader)

    @property
    def leader_opt(self) -> int | None:
        return None if self.leader == NO_LEADER else self.leader

    def equals_allow_stale_partition_epoch(self, other: LeaderAndIsr) -> bool:
        """Equal but for a partition epoch that ``self`` may have seen older (AlterPartition's
        idempotent retries)."""
        return (self.leader == other.leader and self.leader_epoch == other.leader_epoch
                and self.isr == other.isr
                and self.leader_recovery_state == other.leader_recovery_state
                and self.partition_epoch <= other.partition_epoch)

    def __str__(self) -> str:
        return (f"LeaderAndIsr(leader={self.leader}, leaderEpoch={self.leader_epoch}, "
                f"isr=[{_ints(self.isr)}], leaderRecoveryState={self.leader_recovery_state.name}, "
                f"partitionEpoch={self.partition_epoch})")


@dataclass(frozen=True, slots=True)
class LeaderIsrAndControllerEpoch:
    """A partition's ``state`` znode: the leader and ISR, and the epoch of the controller that
    wrote them."""

    leader_and_isr: LeaderAndIsr
    controller_epoch: int

    def __str__(self) -> str:
        return f"({self.leader_and_isr},controllerEpoch={self.controller_epoch})"


@dataclass(frozen=True, slots=True)
class ReplicaAssignment:
    """A partition's replicas. While a reassignment is in progress ``replicas`` is the union of
    the original and the target replicas, and ``adding_replicas`` / ``removing_replicas`` say
    which are which (KIP-455)."""

    replicas: tuple[int, ...] = ()
    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "replicas", tuple(self.replicas))
        object.__setattr__(self, "adding_replicas", tuple(self.adding_replicas))
        object.__setattr__(self, "removing_replicas", tuple(self.removing_replicas))

    @property
    def origin_replicas(self) -> tuple[int, ...]:
        """The replicas before the reassignment: ``replicas`` without the ones being added."""
        return tuple(r for r in self.replicas if r not in self.adding_replicas)

    @property
    def target_replicas(self) -> tuple[int, ...]:
        """The replicas after the reassignment: ``replicas`` without the ones being removed."""
        return tuple(r for r in self.replicas if r not in self.removing_replicas)

    @property
    def is_being_reassigned(self) -> bool:
        return bool(self.adding_replicas or self.removing_replicas)

    def reassign_to(self, target: Sequence[int]) -> ReplicaAssignment:
        """The assignment while moving to ``target``: target first, then the remaining origin
        replicas (Kafka's ``reassignTo``)."""
        origin = self.origin_replicas
        full = tuple(dict.fromkeys([*target, *origin]))
        return ReplicaAssignment(full, tuple(r for r in full if r not in origin),
                                 tuple(r for r in full if r not in target))

    def remove_replica(self, replica: int) -> ReplicaAssignment:
        return ReplicaAssignment(tuple(r for r in self.replicas if r != replica),
                                 tuple(r for r in self.adding_replicas if r != replica),
                                 tuple(r for r in self.removing_replicas if r != replica))

    def __str__(self) -> str:
        return (f"ReplicaAssignment(replicas={_ints(self.replicas)}, "
                f"addingReplicas={_ints(self.adding_replicas)}, "
                f"removingReplicas={_ints(self.removing_replicas)})")


EMPTY_ASSIGNMENT = ReplicaAssignment()


class PartitionAndReplica(NamedTuple):
    """One replica of one partition: the replica state machine's unit."""

    topic_partition: TopicPartition
    replica: int

    def __str__(self) -> str:
        topic, partition = self.topic_partition
        return f"[Topic={topic},Partition={partition},Replica={self.replica}]"


# -- outcomes of the controller core's ZooKeeper operations -----------------------------------

BAD_VERSION = "BADVERSION"
NO_NODE = "NONODE"


@dataclass(frozen=True, slots=True)
class ZkError:
    """A failed read or write of a partition's ``state`` znode, as the controller core reports
    it back: ``code`` is ZooKeeper's name for the error (``BADVERSION``, ``NONODE``,
    ``NODEEXISTS``, ``CONNECTIONLOSS``...)."""

    code: str
    message: str = ""

    @property
    def is_bad_version(self) -> bool:
        """A compare-and-set lost to another writer (the leader's AlterPartition): read the state
        again and decide again."""
        return self.code == BAD_VERSION

    def __str__(self) -> str:
        return f"KeeperErrorCode = {self.code}" + (f" {self.message}" if self.message else "")


#: The outcome of writing a partition's ``state``: its new znode version (the partition epoch),
#: or the error.
WriteOutcome = int | ZkError

#: The outcome of reading a partition's ``state``: its content (with the znode version as the
#: leader-and-ISR's partition epoch), ``None`` when the znode does not exist, or the error.
ReadOutcome = LeaderIsrAndControllerEpoch | ZkError | None


@dataclass(frozen=True, slots=True)
class StateChangeFailure:
    """Why a partition or replica did not reach its target state. ``zk_error`` is set when
    ZooKeeper failed (Kafka's ``KeeperException``); otherwise this is Kafka's
    ``StateChangeFailedException``, which ElectLeaders turns into PREFERRED_LEADER_NOT_AVAILABLE or
    ELIGIBLE_LEADERS_NOT_AVAILABLE with this message."""

    message: str
    zk_error: ZkError | None = None

    def __str__(self) -> str:
        return self.message

