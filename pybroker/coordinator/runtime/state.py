"""The life of one coordinator partition on this broker (Kafka's ``CoordinatorState``).

A partition of a coordinator's internal topic is *Unloaded* until this broker leads it; it is
*Loading* while its log is replayed, *Active* once the replay was handed to the coordinator,
and *Failed* when the replay broke off. Losing the leadership unloads it from any state; a new
election (another leader epoch) loads it again from any state, an Active one included, since
the log may have changed under another leader meanwhile.

What a request for a key of the partition is answered follows from the state alone, the same
for every coordinator: Loading answers COORDINATOR_LOAD_IN_PROGRESS (the client retries),
Unloaded and Failed NOT_COORDINATOR (the client looks the coordinator up again).
"""

from __future__ import annotations

import enum

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
