"""The five states of a classic consumer group and the transitions between them.

Theory of operation
-------------------
A classic group (the JoinGroup/SyncGroup protocol) moves through a small state machine. Kafka
encodes it as the set of states each state may be entered *from* (``validPreviousStates``);
:data:`VALID_PREVIOUS_STATES` is that table, kept as data so it can be read, documented and
tested on its own:

==========================  ===================================================================
state                       entered from
==========================  ===================================================================
``Empty``                   ``PreparingRebalance`` (a rebalance completed with no members)
``PreparingRebalance``      ``Empty`` (first member joins), ``Stable`` and
                            ``CompletingRebalance`` (a join, leave or session expiry)
``CompletingRebalance``     ``PreparingRebalance`` (every expected member rejoined, or the
                            rebalance timeout expired)
``Stable``                  ``CompletingRebalance`` (the leader's assignment was stored)
``Dead``                    any state, itself included (the group was deleted, expired or
                            moved to another coordinator)
==========================  ===================================================================

What each state means for requests:

* ``Empty``: no members, but the group may still own committed offsets. New members may join
  (which starts a rebalance); simple (generation -1) offset commits are accepted.
* ``PreparingRebalance``: JoinGroup requests are parked until every known member has rejoined
  or the rebalance timeout fires; heartbeats and SyncGroup answer REBALANCE_IN_PROGRESS, which
  is how members learn to rejoin. Commits from the previous generation are still accepted.
* ``CompletingRebalance``: the new generation exists and the members have their JoinGroup
  answers; followers' SyncGroup requests wait for the leader's assignment. Commits answer
  REBALANCE_IN_PROGRESS.
* ``Stable``: the assignment is distributed; heartbeats and commits are normal.
* ``Dead``: the group's metadata is being removed; requests get COORDINATOR_NOT_AVAILABLE so
  that clients look the coordinator up again.

A transition that the table does not allow is a bug in the coordinator, not a client error, so
:func:`check_transition` raises :class:`IllegalStateTransition`.
"""

from __future__ import annotations

import enum
from typing import Any

from pybroker.kernel.state_table import IllegalTransition, StateTable


class GroupState(enum.Enum):
    """Values are Kafka's display names, as DescribeGroups and ListGroups report them."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value

    @property
    def display_name(self) -> str:
        return self.value

    @classmethod
    def parse(cls, name: str) -> GroupState | None:
        """The state with this display name, ignoring case (ListGroups' state filter); ``None``
        for a name that is no state."""
        return _BY_LOWER_NAME.get(name.lower())


_BY_LOWER_NAME = {s.value.lower(): s for s in GroupState}

_S = GroupState

class IllegalStateTransition(IllegalTransition):
    """The coordinator tried a transition the state table forbids."""

    @classmethod
    def describe(cls, subject: Any) -> str:
        return f"group {subject!r}"

    @property
    def group_id(self) -> str:
        return str(self.subject)


#: target state -> the states it may be entered from (Kafka's ``validPreviousStates``).
VALID_PREVIOUS_STATES: StateTable[GroupState] = StateTable({
    _S.EMPTY: {_S.PREPARING_REBALANCE},
    _S.PREPARING_REBALANCE: {_S.STABLE, _S.COMPLETING_REBALANCE, _S.EMPTY},
    _S.COMPLETING_REBALANCE: {_S.PREPARING_REBALANCE},
    _S.STABLE: {_S.COMPLETING_REBALANCE},
    _S.DEAD: GroupState,
}, initial=_S.EMPTY, error=IllegalStateTransition)

is_valid_transition = VALID_PREVIOUS_STATES.allows
#: ``check_transition(group_id, source, target)`` raises :class:`IllegalStateTransition`
check_transition = VALID_PREVIOUS_STATES.check
legal_transitions = VALID_PREVIOUS_STATES.transitions


def can_rebalance(state: GroupState) -> bool:
    """Whether a group in ``state`` may start a rebalance (move to PreparingRebalance)."""
    return is_valid_transition(state, GroupState.PREPARING_REBALANCE)
