"""Explicit record timestamps for tests that stamp their own records.

A fixed date in the past (``1_700_000_000_000``) reads well but is older than the default
``retention.ms`` (7 days) and ``offsets.retention.minutes`` (7 days): on a broker that lives
long enough for its retention check to run (a module's broker, the session's reference Kafka,
whose first check comes 30 s after start-up and then every 5 min) such records, and offsets
committed with such a time, may be deleted in the middle of a test. Tests that need an old
date itself set ``retention.ms=-1`` on their topic; the others take their times from here.
"""

from __future__ import annotations

import time

DAY_MS = 86_400_000


def a_day_ago_ms() -> int:
    """A CreateTime one day before now, on a whole second.

    Far enough from now that a record the client or broker stamped with the current time
    instead shows as wrong, and well inside the 7-day defaults of ``retention.ms`` and
    ``offsets.retention.minutes``, so that no retention check deletes what a test wrote,
    whenever it runs.
    """
    return (int(time.time()) * 1000) - DAY_MS
