"""Record batches for the tests that need some records and not particular ones (tests/unit/log,
cluster, api, testing): one builder instead of a near-copy in every module."""

from __future__ import annotations

from typing import Any

from protocol.records.record import build_batch

#: the moment the unit tests call now (2023-11-14T22:13:20Z), so that their batches, segments
#: and indexes do not depend on when the tests run
T0 = 1_700_000_000_000


def value_batch(n: int = 1, *, tag: bytes = b"v", first: int = 0, ts: int = T0, ts_step: int = 1,
                **batch: Any) -> bytearray:
    """A batch of ``n`` keyless records without headers, valued ``tag`` and a number counting
    from ``first`` (v0, v1, ...), timestamped ``ts`` and ``ts_step`` ms apart; the other
    arguments are ``build_batch``'s (base offset, leader epoch, producer)."""
    return build_batch([(None, tag + b"%d" % (first + i), (), ts + i * ts_step)
                        for i in range(n)], **batch)
