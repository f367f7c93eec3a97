"""Plain helpers shared by the tests that open a bare ``Log`` (here, and in tests/unit/cluster)."""

from __future__ import annotations

from pybroker.log import Log

#: the logs the test modules' ``open_log`` helpers opened, closed after every test by
#: ``_close_opened_logs`` (tests/unit/conftest.py); a test that closes one itself, as a crash or a
#: restart does, takes it out first
OPENED: list[Log] = []


def close_opened() -> None:
    """Close every log in :data:`OPENED`, the last opened first."""
    while OPENED:
        OPENED.pop().close()
