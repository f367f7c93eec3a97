"""The pure parts of scripts/bench_cluster.py: the percentile, what counts as led and as a new
controller in a Metadata answer, and the medians and ratios of the summary; no process runs."""

from __future__ import annotations

import pytest

from protocol.messages.metadata_response import (
    MetadataResponse,
    MetadataResponsePartition,
    MetadataResponseTopic,
)
from scripts.bench_cluster import (
    FIGURES,
    ClusterRun,
    new_controller,
    not_led,
    percentile,
    summarize,
)


def metadata(leaders: dict[str, list[int]], controller: int = 1) -> MetadataResponse:
    return MetadataResponse(controller_id=controller, topics=[
        MetadataResponseTopic(name=name, partitions=[
            MetadataResponsePartition(partition_index=i, leader_id=leader)
            for i, leader in enumerate(ls)])
        for name, ls in leaders.items()])


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 99) == 99.0
    assert percentile(values, 50) == 50.0
    assert percentile(reversed(values), 100) == 100.0
    assert percentile([3.0], 99) == 3.0
    assert percentile([1.0, 2.0], 99) == 2.0
    with pytest.raises(ValueError):
        percentile([], 99)


def test_not_led_counts_missing_dead_and_absent_leaders() -> None:
    resp = metadata({"t": [1, 2, 3, -1], "u": [1]})
    assert not_led(resp, "t", 4, {1, 2, 3}) == 1  # partition 3 has no leader
    assert not_led(resp, "t", 4, {2, 3}) == 2  # and broker 1 is not alive
    assert not_led(resp, "t", 6, {1, 2, 3}) == 3  # two partitions not listed at all
    assert not_led(resp, "absent", 5, {1, 2, 3}) == 5
    assert not_led(resp, "u", 1, {1}) == 0


def test_new_controller_must_be_live_and_not_the_killed_one() -> None:
    assert new_controller(metadata({}, controller=2), killed=1, live={2, 3}) == 2
    assert new_controller(metadata({}, controller=1), killed=1, live={2, 3}) is None
    assert new_controller(metadata({}, controller=-1), killed=1, live={2, 3}) is None
    assert new_controller(metadata({}, controller=4), killed=1, live={2, 3}) is None


def run(broker: str, rnd: int, scale: float, error: str | None = None) -> ClusterRun:
    figures = {} if error else {key: scale * (i + 1) for i, (key, *_) in enumerate(FIGURES)}
    return ClusterRun(broker, rnd, figures=figures, error=error)


def test_summary_takes_medians_and_ratios_of_times() -> None:
    runs = [run("pybroker", 0, 1.0), run("pybroker", 1, 3.0), run("pybroker", 2, 2.0),
            run("kafka", 0, 4.0), run("kafka", 1, 4.0)]
    summary = summarize(runs, ["pybroker", "kafka"])
    first = FIGURES[0][0]
    assert summary[first] == {"pybroker": 2.0, "kafka": 4.0, "ratio": 0.5}
    assert summary[FIGURES[-1][0]]["ratio"] == 0.5


def test_summary_without_kafka_or_with_a_failed_run_has_no_ratio() -> None:
    first = FIGURES[0][0]
    alone = summarize([run("pybroker", 0, 1.0)], ["pybroker"])
    assert alone[first] == {"pybroker": 1.0}
    failed = summarize([run("pybroker", 0, 1.0), run("kafka", 0, 1.0, error="boom")],
                       ["pybroker", "kafka"])
    assert failed[first] == {"pybroker": 1.0, "kafka": None, "ratio": None}
