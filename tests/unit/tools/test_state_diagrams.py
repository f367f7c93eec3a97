"""docs/state-machines.md is drawn from the state tables in the code."""

from __future__ import annotations

import enum
import os
import subprocess
import sys

from pybroker.coordinator.group.state import VALID_PREVIOUS_STATES, legal_transitions
from pybroker.tools.state_diagrams import MACHINES, StateMachine, render, render_machine
from tests.unit.paths import DOCS

DOC = DOCS / "state-machines.md"


class Light(enum.Enum):
    RED = "Red"
    RED_AND_AMBER = "Red and amber"
    GREEN = "Green"
    AMBER = "Amber"


# Deliberately listed out of order: the output follows the enum, not the table.
LIGHTS = {
    Light.GREEN: frozenset({Light.RED_AND_AMBER}),
    Light.RED: frozenset({Light.AMBER}),
    Light.AMBER: frozenset({Light.GREEN}),
    Light.RED_AND_AMBER: frozenset({Light.RED}),
}


def _edges(lines: list[str]) -> list[str]:
    start = lines.index("stateDiagram-v2") + 1
    return [line.strip() for line in lines[start : lines.index("```", start)] if "-->" in line]


def test_a_table_becomes_a_diagram_and_a_transition_table():
    machine = StateMachine("Traffic light", "-", "LIGHTS", "A made-up machine.", initial="Red")
    lines = render_machine(machine, LIGHTS)
    assert lines[0] == "## Traffic light"
    assert '    state "Red and amber" as Red_and_amber' in lines
    assert _edges(lines) == [
        "[*] --> Red",
        "Amber --> Red",
        "Red --> Red_and_amber",
        "Red_and_amber --> Green",
        "Green --> Amber",
    ]
    assert "| Red and amber | Red | Green |" in lines
    assert "| Amber | Green | Red |" in lines


def test_the_group_diagram_has_exactly_the_legal_transitions():
    (group,) = [m for m in MACHINES if m.module == "pybroker.coordinator.group.state"]
    assert group.load() is VALID_PREVIOUS_STATES
    edges = _edges(render_machine(group, group.load()))
    expected = {f"{source} --> {target}" for source, target in legal_transitions()}
    assert edges[0] == "[*] --> Empty"
    assert len(edges[1:]) == len(expected) and set(edges[1:]) == expected


def test_output_does_not_depend_on_set_order():
    # frozenset order follows string hashes, which change with PYTHONHASHSEED.
    root = DOC.parents[1]
    outputs = {
        subprocess.run(
            [sys.executable, "-m", "pybroker.tools.state_diagrams"],
            cwd=root, env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)},
            capture_output=True, text=True, check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert outputs == {render()}


def test_page_is_marked_generated():
    first = render().split("\n", 1)[0]
    assert "@generated" in first and "DO NOT EDIT" in first


def test_committed_page_is_current():
    assert DOC.read_text(encoding="utf-8") == render(), "run `make gen`"
