"""Fixtures of the group coordinator's unit tests."""

from __future__ import annotations

import pytest

from tests.unit.coordinator.group.group_coordinator_harness import Harness


@pytest.fixture
def h() -> Harness:
    """A fresh group coordinator on a manual clock, with its recording store
    (``group_coordinator_harness``)."""
    return Harness()
