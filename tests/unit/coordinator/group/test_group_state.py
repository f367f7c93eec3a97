import itertools

import pytest

from pybroker.coordinator.group.group import ClassicGroup
from pybroker.coordinator.group.state import (
    VALID_PREVIOUS_STATES,
    GroupState,
    IllegalStateTransition,
    can_rebalance,
    check_transition,
    is_valid_transition,
    legal_transitions,
)

S = GroupState

# Kafka's validPreviousStates, written out pair by pair.
LEGAL = {
    (S.PREPARING_REBALANCE, S.EMPTY),
    (S.EMPTY, S.PREPARING_REBALANCE),
    (S.STABLE, S.PREPARING_REBALANCE),
    (S.COMPLETING_REBALANCE, S.PREPARING_REBALANCE),
    (S.PREPARING_REBALANCE, S.COMPLETING_REBALANCE),
    (S.COMPLETING_REBALANCE, S.STABLE),
    (S.EMPTY, S.DEAD),
    (S.PREPARING_REBALANCE, S.DEAD),
    (S.COMPLETING_REBALANCE, S.DEAD),
    (S.STABLE, S.DEAD),
    (S.DEAD, S.DEAD),
}
ILLEGAL = set(itertools.product(GroupState, GroupState)) - LEGAL


def test_display_names_are_kafkas():
    assert [s.value for s in GroupState] == [
        "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"]
    assert str(S.COMPLETING_REBALANCE) == "CompletingRebalance"


def test_parse_ignores_case():
    assert GroupState.parse("preparingrebalance") is S.PREPARING_REBALANCE
    assert GroupState.parse("STABLE") is S.STABLE
    assert GroupState.parse("Rebalancing") is None


def test_the_table_is_kafkas():
    assert set(legal_transitions()) == LEGAL
    assert set(VALID_PREVIOUS_STATES) == set(GroupState)


@pytest.mark.parametrize(("source", "target"), sorted(LEGAL, key=str))
def test_legal_transition(source, target):
    assert is_valid_transition(source, target)
    check_transition("g", source, target)
    group = ClassicGroup("g", source, now_ms=1)
    group.transition_to(target, now_ms=5)
    assert group.state is target
    assert group.current_state_timestamp == 5


@pytest.mark.parametrize(("source", "target"), sorted(ILLEGAL, key=str))
def test_illegal_transition_raises(source, target):
    assert not is_valid_transition(source, target)
    group = ClassicGroup("g", source, now_ms=1)
    with pytest.raises(IllegalStateTransition) as info:
        group.transition_to(target, now_ms=5)
    assert info.value.source is source and info.value.target is target
    assert group.state is source  # unchanged
    assert group.current_state_timestamp == 1


def test_only_empty_stable_and_completing_can_start_a_rebalance():
    assert {s for s in GroupState if can_rebalance(s)} == {
        S.EMPTY, S.STABLE, S.COMPLETING_REBALANCE}
