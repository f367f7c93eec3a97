"""Page-view events, the activity stream Kafka was first built to carry.

A view is ``(user, page, referrer, timestamp)``. :func:`generate` is deterministic for a seed:
page popularity follows a Zipf-like curve, users and referrers are drawn uniformly, and event
time advances by random gaps. Each event reaches the broker up to ``max_delay`` after it happened,
so the stream arrives slightly out of order, as real page views do.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

PAGES = (
    "/", "/search", "/product/kafka-mug", "/product/broker-tee", "/product/log-notebook",
    "/cart", "/checkout", "/blog/exactly-once", "/blog/isr-explained", "/docs/quickstart",
    "/about", "/careers",
)
REFERRERS = ("", "https://www.google.com/", "https://news.ycombinator.com/",
             "https://twitter.com/", "https://www.linkedin.com/")
START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class PageView:
    user: str
    page: str
    referrer: str
    timestamp: datetime

    def to_json(self) -> bytes:
        return json.dumps({
            "user": self.user,
            "page": self.page,
            "referrer": self.referrer,
            "timestamp": self.timestamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }).encode()

    @property
    def timestamp_ms(self) -> int:
        return int(self.timestamp.timestamp() * 1000)


def generate(
    seed: int,
    count: int,
    *,
    users: int = 500,
    mean_gap: timedelta = timedelta(milliseconds=100),
    max_delay: timedelta = timedelta(seconds=10),
    start: datetime = START,
) -> list[PageView]:
    """``count`` page views in the order they reach the broker."""
    rng = random.Random(seed)
    weights = [1 / rank for rank in range(1, len(PAGES) + 1)]
    clock = start
    views = []
    for _ in range(count):
        clock += timedelta(seconds=rng.expovariate(1 / mean_gap.total_seconds()))
        happened = clock - timedelta(seconds=rng.uniform(0, max_delay.total_seconds()))
        views.append(PageView(
            user=f"user-{rng.randrange(users):04d}",
            page=rng.choices(PAGES, weights)[0],
            referrer=rng.choice(REFERRERS),
            timestamp=happened.replace(microsecond=happened.microsecond // 1000 * 1000),
        ))
    return views
