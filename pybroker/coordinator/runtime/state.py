"""The life of one coordinator partition on this broker (Kafka's ``CoordinatorState``).

A partition of a coordinator's internal topic is *Unloaded* until this broker leads it; it is
*Loading* while its log is replayed, *Active* once the replay was handed to the coordinator,
and *Failed* when the replay broke off. Losing the leadership unloads it from any state; a new
election (another leader epoch) loads it again from any state, an Active one included, since
the log may have changed under another leader meanwhile.

What a request for a key of the partition is answered follows from the state alone, the same
for every coordinator: Loading answers COORDINATOR_LOAD_IN_PROGRESS (the client retries),
Unloaded and Failed NOT_COORDINATOR (the client looks the coordinator up again).

:class:`CoordinatorPartitions` is the table of every partition's state and the epoch it was
elected in: the runtime owns it and moves its partitions through it, and a coordinator reads
its answers from it (one table per coordinator, so both answer the same way).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from protocol.errors import ErrorCode
from pybroker.kernel.state_table import IllegalTransition, StateTable


class CoordinatorState(enum.Enum):
    UNLOADED = "Unloaded"
    LOADING = "Loading"
    ACTIVE = "Active"
    FAILED = "Failed"

    @property
    def error(self) -> ErrorCode:
        """What a request for a key of a partition in this state is answered."""
        if self is CoordinatorState.ACTIVE:
            return ErrorCode.NONE
        if self is CoordinatorState.LOADING:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        return ErrorCode.NOT_COORDINATOR


class IllegalCoordinatorTransition(IllegalTransition):
    @classmethod
    def describe(cls, subject: object) -> str:
        return f"coordinator partition {subject}"


_S = CoordinatorState

#: each state and the states it may be entered from (Kafka's ``CoordinatorState.canTransitionFrom``)
VALID_PREVIOUS_STATES: StateTable[CoordinatorState] = StateTable({
    _S.UNLOADED: {_S.LOADING, _S.ACTIVE, _S.FAILED},
    _S.LOADING: {_S.UNLOADED, _S.LOADING, _S.ACTIVE, _S.FAILED},
    _S.ACTIVE: {_S.LOADING},
    _S.FAILED: {_S.LOADING},
}, initial=_S.UNLOADED, error=IllegalCoordinatorTransition)


@dataclass(slots=True)
class PartitionStatus:
    state: CoordinatorState = _S.UNLOADED
    #: the leader epoch of the partition's last election here (-1: never elected)
    epoch: int = -1


class CoordinatorPartitions:
    """The state of each partition of one coordinator's topic on this broker, and the epoch it
    was elected in; a partition never seen is Unloaded."""

    __slots__ = ("_status",)

    def __init__(self) -> None:
        self._status: dict[int, PartitionStatus] = {}

    def state(self, partition: int) -> CoordinatorState:
        status = self._status.get(partition)
        return status.state if status is not None else _S.UNLOADED

    def epoch(self, partition: int) -> int:
        status = self._status.get(partition)
        return status.epoch if status is not None else -1

    def error_for(self, partition: int) -> ErrorCode:
        """NONE while ``partition`` is Active here, COORDINATOR_LOAD_IN_PROGRESS while it
        loads, NOT_COORDINATOR otherwise."""
        return self.state(partition).error

    def is_loading(self, partition: int | None = None) -> bool:
        """Whether ``partition`` (None: any partition) is loading."""
        if partition is None:
            return any(s.state is _S.LOADING for s in self._status.values())
        return self.state(partition) is _S.LOADING

    def loading(self) -> set[int]:
        return {p for p, s in self._status.items() if s.state is _S.LOADING}

    def elected_in(self, partition: int, epoch: int) -> bool:
        """Whether ``partition`` is loading or loaded from its election in ``epoch``."""
        status = self._status.get(partition)
        return (status is not None and status.epoch == epoch
                and status.state in (_S.LOADING, _S.ACTIVE))

    def transition(self, partition: int, target: CoordinatorState,
                   epoch: int | None = None) -> None:
        """Move ``partition`` to ``target`` (a Loading one with the ``epoch`` it was elected
        in); an illegal move raises :class:`IllegalCoordinatorTransition`."""
        status = self._status.setdefault(partition, PartitionStatus())
        VALID_PREVIOUS_STATES.check(partition, status.state, target)
        status.state = target
        if epoch is not None:
            status.epoch = epoch
