"""Small confluent-kafka helpers shared by the compatibility tests, the round trip and the benchmark."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

Headers = list[tuple[str, bytes | None]]


@dataclass(frozen=True, slots=True)
class Msg:
    """What a test sends and expects back; ``offset`` is filled in from the delivery report."""

    partition: int
    key: bytes | None
    value: bytes | None
    headers: Headers
    timestamp: int
    offset: int = -1


def create_topic(bootstrap: str, topic: str, partitions: int, **config: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(topic, num_partitions=partitions, replication_factor=1, config=config)],
        operation_timeout=20,
        request_timeout=30,
    )
    futures[topic].result(timeout=30)
    wait_for_partitions(admin, topic, partitions)


def wait_for_partitions(admin: AdminClient, topic: str, partitions: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        md = admin.list_topics(topic, timeout=10)
        t = md.topics.get(topic)
        if t is not None and t.error is None and len(t.partitions) == partitions and all(
            p.leader == 0 for p in t.partitions.values()
        ):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"topic {topic} not ready: {t and (t.error, t.partitions)}")
        time.sleep(0.1)


def consumer(bootstrap: str, **extra: object) -> Consumer:
    conf = {
        "bootstrap.servers": bootstrap,
        "group.id": "compat-assign-only",  # required by librdkafka; assign() never joins it
        "enable.auto.commit": False,
        "enable.partition.eof": False,
        "fetch.wait.max.ms": 100,
    }
    conf.update(extra)
    return Consumer(conf)


def read_back(
    bootstrap: str,
    topic: str,
    partitions: Iterable[int],
    *,
    timeout: float = 60.0,
    **extra: object,
) -> dict[int, list]:
    """Every message of the partitions, read with assign() from OFFSET_BEGINNING up to the
    high watermark as it stands when reading starts."""
    c = consumer(bootstrap, **extra)
    try:
        partitions = list(partitions)
        ends = {}
        for p in partitions:
            _low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)
            ends[p] = high
        c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        got: dict[int, list] = {p: [] for p in partitions}
        pending = {p for p in partitions if ends[p] > 0}
        deadline = time.monotonic() + timeout
        while pending:
            if time.monotonic() > deadline:
                progress = {p: (len(got[p]), ends[p]) for p in pending}
                raise AssertionError(f"read timed out; (read, high watermark) per partition: {progress}")
            for m in c.consume(num_messages=10_000, timeout=0.5):
                if m.error():
                    raise KafkaException(m.error())
                got[m.partition()].append(m)
                if m.offset() + 1 >= ends[m.partition()]:
                    pending.discard(m.partition())
        return got
    finally:
        c.close()


def as_tuple(m) -> tuple:
    """A consumed confluent-kafka message as comparable plain data."""
    _ts_type, ts = m.timestamp()
    return (m.offset(), m.key(), m.value(), list(m.headers() or []), ts)


def expected_tuple(msg: Msg) -> tuple:
    return (msg.offset, msg.key, msg.value, list(msg.headers), msg.timestamp)
