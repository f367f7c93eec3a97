"""The eight states of a transactional id and the transitions between them.

Theory of operation
-------------------
The transaction coordinator keeps one :class:`~.metadata.TransactionMetadata` per transactional
id. Its state moves through Kafka's table (``TransactionState.validPreviousStates``), kept here
as data, :data:`VALID_PREVIOUS_STATES`, so that it can be read, documented and tested on its own:

=====================  ==========================================================================
state                  entered from
=====================  ==========================================================================
``Empty``              ``Empty`` (InitProducerId bumps the epoch), ``CompleteCommit``,
                       ``CompleteAbort`` (InitProducerId after a transaction)
``Ongoing``            ``Empty``, ``CompleteCommit``, ``CompleteAbort`` (the first
                       AddPartitionsToTxn/AddOffsetsToTxn of a transaction), ``Ongoing`` (more
                       partitions)
``PrepareCommit``      ``Ongoing`` (EndTxn with commit)
``PrepareAbort``       ``Ongoing`` (EndTxn with abort, or a timeout), ``PrepareEpochFence``
                       (a newer producer's InitProducerId aborts the transaction of the old one)
``CompleteCommit``     ``PrepareCommit`` (every partition has its COMMIT marker)
``CompleteAbort``      ``PrepareAbort`` (every partition has its ABORT marker)
``Dead``               ``Empty``, ``CompleteCommit``, ``CompleteAbort`` (the id expired after
                       ``transactional.id.expiration.ms``)
``PrepareEpochFence``  ``Ongoing`` (the epoch is bumped to fence the producer; only ever a
                       pending state, never written or completed)
=====================  ==========================================================================

Each state's number (:attr:`TransactionState.id`) is what ``__transaction_state`` stores in
``TransactionStatus``; its name is what DescribeTransactions and ListTransactions report.

A transition the table does not allow is a bug in the coordinator, not a client error, so
:func:`check_transition` raises :class:`IllegalStateTransition`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from pybroker.kernel.state_table import IllegalTransition, StateTable


class TransactionState(enum.Enum):
    """Values are Kafka's names, as DescribeTransactions and ListTransactions report them."""

    EMPTY = "Empty"
    ONGOING = "Ongoing"
    PREPARE_COMMIT = "PrepareCommit"
    PREPARE_ABORT = "PrepareAbort"
    COMPLETE_COMMIT = "CompleteCommit"
    COMPLETE_ABORT = "CompleteAbort"
    DEAD = "Dead"
    PREPARE_EPOCH_FENCE = "PrepareEpochFence"

    def __str__(self) -> str:
        return self.value

    @property
    def id(self) -> int:
        """The number ``__transaction_state`` stores (Kafka's ``TransactionState.id``)."""
        return _IDS[self]

    @classmethod
    def from_id(cls, state_id: int) -> TransactionState:
        """The state stored as ``state_id``; ValueError for a number that is no state."""
        try:
            return _BY_ID[state_id]
        except KeyError:
            raise ValueError(f"unknown transaction state id {state_id}") from None

    @classmethod
    def from_name(cls, name: str) -> TransactionState | None:
        """The state named ``name`` exactly (ListTransactions' state filter); None otherwise."""
        try:
            return cls(name)
        except ValueError:
            return None

    @property
    def is_expiration_allowed(self) -> bool:
        """Whether a transactional id resting in this state may expire (Kafka's
        ``isExpirationAllowed``): only between transactions."""
        return self in _EXPIRABLE


_S = TransactionState

_IDS: Mapping[TransactionState, int] = {
    _S.EMPTY: 0, _S.ONGOING: 1, _S.PREPARE_COMMIT: 2, _S.PREPARE_ABORT: 3,
    _S.COMPLETE_COMMIT: 4, _S.COMPLETE_ABORT: 5, _S.DEAD: 6, _S.PREPARE_EPOCH_FENCE: 7,
}
_BY_ID: Mapping[int, TransactionState] = {v: k for k, v in _IDS.items()}
_EXPIRABLE = frozenset({_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT})

class IllegalStateTransition(IllegalTransition):
    """The coordinator tried a transition the state table forbids."""

    @classmethod
    def describe(cls, subject: Any) -> str:
        return f"transactional id {subject!r}"

    @property
    def transactional_id(self) -> str:
        return str(self.subject)


#: target state -> the states it may be entered from (Kafka's ``validPreviousStates``).
VALID_PREVIOUS_STATES: StateTable[TransactionState] = StateTable({
    _S.EMPTY: {_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT},
    _S.ONGOING: {_S.ONGOING, _S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT},
    _S.PREPARE_COMMIT: {_S.ONGOING},
    _S.PREPARE_ABORT: {_S.ONGOING, _S.PREPARE_EPOCH_FENCE},
    _S.COMPLETE_COMMIT: {_S.PREPARE_COMMIT},
    _S.COMPLETE_ABORT: {_S.PREPARE_ABORT},
    _S.DEAD: {_S.EMPTY, _S.COMPLETE_ABORT, _S.COMPLETE_COMMIT},
    _S.PREPARE_EPOCH_FENCE: {_S.ONGOING},
}, initial=_S.EMPTY, error=IllegalStateTransition)

is_valid_transition = VALID_PREVIOUS_STATES.allows
#: ``check_transition(transactional_id, source, target)`` raises :class:`IllegalStateTransition`
check_transition = VALID_PREVIOUS_STATES.check
legal_transitions = VALID_PREVIOUS_STATES.transitions
