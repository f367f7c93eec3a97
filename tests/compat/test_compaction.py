"""Compaction end to end: a compacted topic written by a real producer is cleaned in the
background, keeps the latest value per key at its original offset, and still serves fetches."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import BrokerProcess

pytestmark = pytest.mark.compat

KEYS = 20
ROUNDS = 30


def read_all(bootstrap: str, topic: str, end: int) -> list[tuple[int, bytes, bytes | None]]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "compaction-check",
                  "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    out = []
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            out.append((m.offset(), m.key(), m.value()))
            if m.offset() >= end - 1:
                break
    finally:
        c.close()
    return out


def test_compacted_topic_keeps_the_latest_value_per_key(broker_factory) -> None:
    broker: BrokerProcess = broker_factory(**{"log.cleaner.backoff.ms": 200})
    boot = broker.bootstrap
    topic = "compacted"
    admin = AdminClient({"bootstrap.servers": boot})
    admin.create_topics([NewTopic(topic, 1, 1, config={
        "cleanup.policy": "compact",
        "segment.bytes": "4096",          # many small segments, so most of the log is inactive
        "min.cleanable.dirty.ratio": "0.01",
        "delete.retention.ms": "0",       # tombstones may go as soon as they were cleaned once
    })])[topic].result(30)

    p = Producer({"bootstrap.servers": boot, "linger.ms": 0})
    latest: dict[bytes, tuple[int, bytes | None]] = {}
    acked: list[tuple[int, bytes, bytes | None]] = []

    def record(err, msg) -> None:
        assert err is None, err
        acked.append((msg.offset(), msg.key(), msg.value()))

    for r in range(ROUNDS):
        for k in range(KEYS):
            key = b"key-%02d" % k
            # Key 0 ends as a tombstone: it must disappear entirely once cleaned twice.
            value = None if (k == 0 and r == ROUNDS - 1) else b"value-%d-%d" % (k, r) * 4
            p.produce(topic, key=key, value=value, on_delivery=record)
        p.flush(30)
    end = max(o for o, _, _ in acked) + 1
    for offset, key, value in acked:
        latest[key] = (offset, value)

    # Wait until the cleaner has shrunk what a consumer reads (bounded).
    deadline = time.monotonic() + 60
    while True:
        got = read_all(boot, topic, end)
        if len(got) < len(acked) / 2 or time.monotonic() > deadline:
            break
        time.sleep(0.5)

    assert len(got) < len(acked) / 2, "the log was never compacted"
    offsets = [o for o, _, _ in got]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    by_offset = {o: (k, v) for o, k, v in acked}
    for offset, key, value in got:
        # Every surviving record is exactly what was produced at that offset...
        assert by_offset[offset] == (key, value)
    seen = {key for _, key, _ in got}
    for key, (offset, value) in latest.items():
        if value is not None:
            # ...and the latest value of every live key is still there, at its offset.
            assert (offset, key, value) in got
    # Older values of a key survive only in the uncleaned (active) tail of the log.
    assert len(got) <= len(seen) + KEYS * 3
