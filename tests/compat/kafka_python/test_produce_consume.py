"""kafka-python 3.x producer and consumer against pybroker."""

from __future__ import annotations

import random
import time

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

TS0 = a_day_ago_ms()  # explicit CreateTime timestamps, far from "now"


def make_messages(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        size = rng.choice([0, 1, 17, 100, 1000, 5000])
        out.append(
            {
                "key": None if i % 7 == 0 else f"key-{i}".encode(),
                "value": rng.randbytes(size),
                "headers": [] if i % 5 == 0 else [("h1", f"v{i}".encode()), ("bin", bytes([i % 256, 0, 255]))],
                "timestamp_ms": TS0 + i * 13,
            }
        )
    return out


def read_all(bootstrap: str, topic: str, expected: int, timeout: float = 30.0) -> dict[int, list]:
    """Every record of ``topic`` from the beginning, per partition, via assign() + seek_to_beginning."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        partitions = consumer.partitions_for_topic(topic)
        assert partitions, f"no metadata for {topic}"
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        consumer.assign(tps)
        consumer.seek_to_beginning()
        by_partition: dict[int, list] = {tp.partition: [] for tp in tps}
        got = 0
        deadline = time.monotonic() + timeout
        while got < expected and time.monotonic() < deadline:
            for tp, records in consumer.poll(timeout_ms=500).items():
                by_partition[tp.partition].extend(records)
                got += len(records)
        # a short extra poll catches anything past the expected count (duplicates)
        for tp, records in consumer.poll(timeout_ms=300).items():
            by_partition[tp.partition].extend(records)
        return by_partition
    finally:
        consumer.close()


def assert_contiguous(by_partition: dict[int, list]) -> None:
    for p, records in by_partition.items():
        offsets = [r.offset for r in records]
        assert offsets == list(range(len(offsets))), f"partition {p}: offsets {offsets[:20]}..."


def test_default_producer_is_idempotent_and_round_trips(module_broker: BrokerProcess, topic: str) -> None:
    messages = make_messages(300, seed=1)
    producer = KafkaProducer(bootstrap_servers=module_broker.bootstrap)
    try:
        assert producer.config["enable_idempotence"] is True
        assert producer.config["acks"] == -1
        futures = [
            producer.send(topic, partition=i % 3, **m) for i, m in enumerate(messages)
        ]
        producer.flush(timeout=30)
        metas = [f.get(timeout=30) for f in futures]
    finally:
        producer.close(timeout=10)

    expected: dict[int, list] = {0: [], 1: [], 2: []}
    for i, (m, meta) in enumerate(zip(messages, metas, strict=True)):
        assert meta.partition == i % 3
        expected[meta.partition].append((meta.offset, m))
    for p, items in expected.items():
        assert [o for o, _ in items] == list(range(len(items))), f"partition {p} acked offsets"

    got = read_all(module_broker.bootstrap, topic, len(messages))
    assert_contiguous(got)
    for p, items in expected.items():
        records = got[p]
        assert len(records) == len(items), f"partition {p}: {len(records)} read, {len(items)} sent"
        for (offset, m), r in zip(items, records, strict=True):
            assert r.offset == offset
            assert r.key == m["key"]
            assert r.value == m["value"]
            assert list(r.headers) == m["headers"]
            assert r.timestamp == m["timestamp_ms"]
            assert r.timestamp_type == 0  # CreateTime


@pytest.mark.parametrize("acks", [0, 1])
def test_non_idempotent_producer_acks(module_broker: BrokerProcess, topic: str, acks: int) -> None:
    messages = make_messages(100, seed=acks + 10)
    producer = KafkaProducer(
        bootstrap_servers=module_broker.bootstrap, acks=acks, enable_idempotence=False
    )
    try:
        futures = [producer.send(topic, partition=0, **m) for m in messages]
        producer.flush(timeout=30)
        metas = [f.get(timeout=30) for f in futures]
    finally:
        producer.close(timeout=10)
    if acks == 1:
        assert [m.offset for m in metas] == list(range(len(messages)))

    got = read_all(module_broker.bootstrap, topic, len(messages))
    assert_contiguous(got)
    records = got[0]
    assert [(r.key, r.value, list(r.headers), r.timestamp) for r in records] == [
        (m["key"], m["value"], m["headers"], m["timestamp_ms"]) for m in messages
    ]


def test_metadata_auto_creates_topic_with_num_partitions(broker_factory, topic: str) -> None:
    broker = broker_factory(**{"num.partitions": 4})
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap)
    try:
        assert producer.partitions_for(topic) == {0, 1, 2, 3}
        producer.send(topic, value=b"x", partition=3).get(timeout=30)
    finally:
        producer.close(timeout=10)

    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id=None)
    try:
        assert topic in consumer.topics()
        assert consumer.partitions_for_topic(topic) == {0, 1, 2, 3}
        tps = [TopicPartition(topic, p) for p in range(4)]
        assert consumer.end_offsets(tps) == {tp: (1 if tp.partition == 3 else 0) for tp in tps}
        assert consumer.beginning_offsets(tps) == {tp: 0 for tp in tps}
    finally:
        consumer.close()
