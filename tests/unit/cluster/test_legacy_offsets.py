"""ListOffsets v0's lookup by segment (pybroker.cluster.legacy_offsets), as Kafka 3.9's
``legacyFetchOffsetsBefore`` answers it."""

from __future__ import annotations

import pytest

from pybroker.cluster.legacy_offsets import bounded_by_high_watermark, offsets_before

# three segments (base offsets 0, 100, 250, modified at 1000, 2000, 3000) and the log end
CANDIDATES = [(0, 1000), (100, 2000), (250, 3000), (300, 5000)]


@pytest.mark.parametrize(("timestamp", "max_num", "expected"), [
    (-1, 1, [300]),
    (-1, 3, [300, 250, 100]),
    (-1, 10, [300, 250, 100, 0]),
    (-2, 1, [0]),
    (-2, 5, [0]),
    (2500, 5, [100, 0]),
    (2000, 1, [100]),
    (999, 5, []),
    (10_000, 2, [300, 250]),
    (-1, 0, []),
])
def test_offsets_before(timestamp: int, max_num: int, expected: list[int]) -> None:
    assert offsets_before(CANDIDATES, timestamp, max_num) == expected


def test_an_empty_log_answers_its_start() -> None:
    assert offsets_before([(0, 1000)], -1, 1) == [0]
    assert offsets_before([(7, 1000)], -2, 1) == [7]


def test_consumers_never_see_past_the_high_watermark() -> None:
    assert bounded_by_high_watermark([300, 250, 100], 260) == [260, 250, 100]
    assert bounded_by_high_watermark([300, 250], 100) == [100]
    assert bounded_by_high_watermark([250, 100], 260) == [250, 100]
