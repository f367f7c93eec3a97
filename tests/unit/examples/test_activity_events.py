"""The page-view generator of the activity-stream example: deterministic, and never more out of
order than it promises (the Spark job's watermark relies on that)."""

from __future__ import annotations

import json
from datetime import timedelta

from examples.activity_stream.events import PAGES, START, generate


def test_same_seed_same_stream_other_seed_other_stream():
    assert generate(3, 500) == generate(3, 500)
    assert generate(3, 500) != generate(4, 500)


def test_views_arrive_at_most_max_delay_out_of_order():
    delay = timedelta(seconds=10)
    views = generate(11, 5000, max_delay=delay)
    newest = views[0].timestamp
    for v in views:
        assert v.timestamp > newest - delay
        newest = max(newest, v.timestamp)
    assert any(b.timestamp < a.timestamp for a, b in zip(views, views[1:], strict=False))


def test_every_page_appears_and_the_home_page_leads():
    views = generate(5, 5000)
    counts = {p: sum(v.page == p for v in views) for p in PAGES}
    assert all(counts.values())
    assert max(counts, key=counts.get) == "/"
    assert min(v.timestamp for v in views) > START - timedelta(seconds=10)


def test_json_has_the_four_fields_in_utc_milliseconds():
    view = generate(1, 1)[0]
    doc = json.loads(view.to_json())
    assert set(doc) == {"user", "page", "referrer", "timestamp"}
    assert doc["timestamp"].endswith("Z") and len(doc["timestamp"]) == len("2026-01-01T09:00:00.000Z")
    assert view.timestamp_ms % 1000 == int(doc["timestamp"][-4:-1])
