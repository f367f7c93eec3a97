"""Produce page views to Kafka (or pybroker), keyed by user so each user's views stay in order.

    python -m examples.activity_stream.generator --bootstrap 127.0.0.1:9092 --seed 42 --events 6000
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from confluent_kafka import Producer

from examples.activity_stream.events import PageView, generate

TOPIC = "page-views"


def produce(
    bootstrap: str,
    views: Sequence[PageView],
    *,
    topic: str = TOPIC,
    round_size: int = 100,
    pause: float = 0.0,
) -> int:
    """Send ``views`` in rounds of ``round_size``, each acknowledged before the next starts.

    Waiting at the end of each round bounds how far one partition can run ahead of another,
    and so how far out of order the stream can look to a reader. Returns the number produced;
    raises if the broker refused any.
    """
    producer = Producer({
        "bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
        "linger.ms": 5, "compression.type": "lz4",
    })
    failures: list[str] = []

    def delivered(err, msg) -> None:
        if err is not None:
            failures.append(str(err))

    for start in range(0, len(views), round_size):
        for view in views[start:start + round_size]:
            producer.produce(
                topic, key=view.user.encode(), value=view.to_json(),
                timestamp=view.timestamp_ms, on_delivery=delivered,
            )
        if producer.flush(30) != 0 or failures:
            raise RuntimeError(f"page views not acknowledged: {failures[:3] or 'timed out'}")
        if pause:
            time.sleep(pause)
    return len(views)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", default="127.0.0.1:9092")
    parser.add_argument("--topic", default=TOPIC)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--events", type=int, default=6000)
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between rounds")
    args = parser.parse_args(argv)
    n = produce(args.bootstrap, generate(args.seed, args.events), topic=args.topic, pause=args.pause)
    print(f"produced {n} page views to {args.topic}")


if __name__ == "__main__":
    main()
