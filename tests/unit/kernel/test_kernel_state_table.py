"""The kernel's state table: a machine's transitions as data, with their checks written once."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from pybroker.kernel.state_table import IllegalTransition, StateTable, state_name


class Light(enum.Enum):
    RED = "Red"
    GREEN = "Green"
    AMBER = "Amber"


class IllegalLight(IllegalTransition):
    @classmethod
    def describe(cls, subject: Any) -> str:
        return f"light {subject}"


TABLE = StateTable({
    Light.GREEN: {Light.RED},
    Light.AMBER: {Light.GREEN},
    Light.RED: {Light.AMBER},
}, initial=Light.RED, error=IllegalLight)


def test_the_table_is_a_mapping_of_previous_states() -> None:
    assert TABLE[Light.GREEN] == frozenset({Light.RED})
    assert dict(TABLE) == {Light.GREEN: {Light.RED}, Light.AMBER: {Light.GREEN},
                           Light.RED: {Light.AMBER}}
    assert TABLE.states == [Light.RED, Light.GREEN, Light.AMBER]
    assert set(TABLE.transitions()) == {(Light.RED, Light.GREEN), (Light.GREEN, Light.AMBER),
                                        (Light.AMBER, Light.RED)}
    assert TABLE.initial is Light.RED


def test_checks_and_their_message() -> None:
    assert TABLE.allows(Light.RED, Light.GREEN) and not TABLE.allows(Light.RED, Light.AMBER)
    TABLE.check(1, Light.RED, Light.GREEN)
    with pytest.raises(IllegalLight) as info:
        TABLE.check(1, Light.RED, Light.AMBER)
    assert str(info.value) == "light 1 cannot move from Red to Amber (Amber is entered only from: Green)"
    assert (info.value.subject, info.value.source, info.value.target) == (1, Light.RED, Light.AMBER)


def test_every_state_needs_a_row() -> None:
    with pytest.raises(ValueError, match="no row for Amber"):
        StateTable({Light.GREEN: {Light.RED}, Light.RED: ()})


def test_state_names() -> None:
    class Numbered(enum.Enum):
        ONE = 1

    assert state_name(Light.RED) == "Red" and state_name(Numbered.ONE) == "ONE"
    assert state_name(3) == "3"
