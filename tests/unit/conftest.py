"""Fixtures the unit tests of several packages share.

Each lives here once instead of as a copy in every module that wanted it; the fixtures of one
package's tests live in that folder's own ``conftest.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pybroker.log import Log
from tests.unit.cluster.replication_harness import Cluster
from tests.unit.log.helpers import close_opened


@pytest.fixture(autouse=True)
def _close_opened_logs() -> Iterator[None]:
    """Close the logs the test modules' ``open_log`` helpers opened (``log/helpers.OPENED``):
    those helpers are called without a fixture, so this one closes after every test."""
    yield
    close_opened()


@pytest.fixture
def logs() -> Iterator[list[Log]]:
    """The logs a test opens and appends here, closed when it ends, so that no test leaves its
    segment files open for the next."""
    opened: list[Log] = []
    yield opened
    for log in opened:
        log.close()


@pytest.fixture
def dirs(tmp_path: Path) -> list[Path]:
    """Two ``log.dirs``, ``a`` and ``b``, not created yet: a log manager's start-up makes them
    as the broker's does."""
    return [tmp_path / "a", tmp_path / "b"]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """Brokers 1 and 2 of a replicated partition in this process (``replication_harness``),
    closed when the test ends."""
    c = Cluster(tmp_path)
    yield c
    c.close()
