"""A real Kafka Streams application with ``processing.guarantee=exactly_once_v2``: a word count
with a repartition topic and a state store whose changelog lives in Kafka, killed with SIGKILL
in the middle of its input and restarted. Its committed output must count every word exactly:
for each word the counts 1, 2, ..., n, each once, with n the number of times the word occurs.

The test also runs against the reference Apache Kafka 3.9, which shows the test itself holds:
the same application with ``at_least_once``, killed the same way, repeats counts and fails it.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.compat.streams.conftest import StreamsApp

pytestmark = [pytest.mark.compat, pytest.mark.timeout(300)]

WORDS = ["kafka", "broker", "python", "stream", "topic", "offset", "leader", "replica",
         "commit", "abort", "marker", "epoch"]
GUARANTEE = "exactly_once_v2"


def lines(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) for _ in range(n)]


def produce(bootstrap: str, topic: str, values: list[str]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i, value in enumerate(values):
        producer.produce(topic, value.encode(), key=str(i).encode())
        producer.poll(0)
    assert producer.flush(30) == 0


def committed_counts(bootstrap: str, topic: str, until: Counter, timeout: float,
                     ) -> dict[str, list[int]]:
    """Every count in ``topic`` per word, as a read_committed consumer sees them, once the last
    count of each word reaches ``until`` (or the time is up)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4()}",
                         "auto.offset.reset": "earliest", "isolation.level": "read_committed",
                         "enable.auto.commit": False})
    consumer.subscribe([topic])
    seen: dict[str, list[int]] = {}
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            for m in consumer.consume(500, 0.5):
                if m.error():
                    continue
                seen.setdefault(m.key().decode(), []).append(int(m.value()))
            if all(seen.get(w, [0])[-1] >= n for w, n in until.items()):
                # a last short read shows anything beyond (repeated counts)
                for m in consumer.consume(500, 1.0):
                    if not m.error():
                        seen.setdefault(m.key().decode(), []).append(int(m.value()))
                break
    finally:
        consumer.close()
    return seen


def wait_for_output(bootstrap: str, topic: str, timeout: float = 90.0) -> None:
    """Until the application has written to ``topic``, committed or not."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"peek-{uuid.uuid4()}",
                         "auto.offset.reset": "earliest",
                         "isolation.level": "read_uncommitted"})
    consumer.subscribe([topic])
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if any(not m.error() for m in consumer.consume(10, 0.5)):
                return
        raise AssertionError(f"no output in {topic} within {timeout}s")
    finally:
        consumer.close()


def run_word_count(bootstrap: str, tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:8]
    app_id, source, sink = f"wc-{suffix}", f"wc-in-{suffix}", f"wc-out-{suffix}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(source, 3, 1), NewTopic(sink, 3, 1)]).values():
        f.result(30)
    first, second = lines(1, 30_000), lines(2, 1000)
    expected = Counter(w for line in first + second for w in line.split())

    app = StreamsApp(bootstrap, app_id, source, sink, tmp_path / "state", GUARANTEE,
                     tmp_path / "streams.log")
    try:
        produce(bootstrap, source, first)
        app.start().wait_for_state("RUNNING")
        wait_for_output(bootstrap, sink)
        time.sleep(0.5)
        app.kill()  # mid-stream: an open transaction (or, at least once, uncommitted progress)
        app.start().wait_for_state("RUNNING")
        produce(bootstrap, source, second)
        seen = committed_counts(bootstrap, sink, expected, timeout=120)
    finally:
        app.stop()
    wrong = {w: counts for w, counts in seen.items()
             if counts != list(range(1, expected[w] + 1))}
    missing = sorted(set(expected) - set(seen))
    assert not wrong and not missing, (
        f"counts that are not exactly 1..n: "
        f"{ {w: (expected[w], c[-8:], len(c)) for w, c in wrong.items()} }; "
        f"words without output: {missing}\n{app.describe()}")


def test_word_count_exactly_once_across_a_kill_on_pybroker(broker, streams_jars: Path,
                                                           tmp_path: Path) -> None:
    run_word_count(broker.bootstrap, tmp_path)


@pytest.mark.long  # make test-long: the reference's side, which calibrates the test
def test_word_count_exactly_once_across_a_kill_on_kafka(reference_kafka, streams_jars: Path,
                                                        tmp_path: Path) -> None:
    run_word_count(reference_kafka.bootstrap, tmp_path)
