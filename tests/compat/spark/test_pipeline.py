"""The activity-stream example end to end (what ``make pipeline`` runs), on a fixed seed.

The expected counts are computed here from the generated page views alone, without Spark: a
view counts in the one-minute window holding its event time, and only windows the final
watermark (newest event time minus 30 s) has passed are written. The generator keeps every view
within the watermark's delay, so Spark must drop none of them. The same pipeline also runs
against Apache Kafka 3.9.1, with the same expectations.
"""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from datetime import timedelta

import pytest

from examples.activity_stream import run
from examples.activity_stream.events import generate

pytestmark = [pytest.mark.compat, pytest.mark.usefixtures("stop_queries")]

SEED, EVENTS = 7, 3000
WINDOW, WATERMARK = timedelta(minutes=1), timedelta(seconds=30)


def expected_counts(seed: int, events: int) -> run.Counts:
    views = generate(seed, events)
    watermark = max(v.timestamp for v in views) - WATERMARK
    counts: Counter[tuple[str, str]] = Counter()
    for v in views:
        start = v.timestamp.replace(second=0, microsecond=0)
        if start + WINDOW <= watermark:
            counts[(start.strftime("%Y-%m-%dT%H:%M:%SZ"), v.page)] += 1
    return dict(counts)


@pytest.mark.parametrize("broker", [
    "pybroker",
    pytest.param("kafka", marks=pytest.mark.long),  # make test-long: the reference's side
])
def test_pipeline_counts_page_views_exactly(spark, fresh_kafka_of, broker, tmp_path):
    @contextmanager
    def reference_kafka():
        yield fresh_kafka_of("kafka").bootstrap

    # pybroker as make pipeline starts it: embedded, single node
    brokers = {"pybroker": lambda: run.embedded_broker(tmp_path / "kafka-logs"),
               "kafka": reference_kafka}
    with brokers[broker]() as bootstrap:
        result = run.run_pipeline(bootstrap, tmp_path, seed=SEED, events=EVENTS, spark=spark)

    expected = expected_counts(SEED, EVENTS)
    assert result.produced == EVENTS
    assert result.from_topic == expected
    assert result.from_files == expected
    # the seed's own figures, so a change to the generator shows here too
    windows = run.top_pages(expected, n=1)
    assert list(windows) == [f"2026-01-01T0{h}:{m:02d}:00Z" for h, m in
                             [(8, 59), (9, 0), (9, 1), (9, 2), (9, 3)]]
    assert sum(expected.values()) == 2495
    assert windows["2026-01-01T09:00:00Z"] == [("/", 200)]

    text = run.report(result, n=2)
    assert "3000 page views produced; top 2 pages per one-minute window:" in text
    assert "the file sink holds the same counts" in text
