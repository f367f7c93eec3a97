"""confluent-kafka (librdkafka) producer and assign()-consumer against pybroker."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from confluent_kafka import OFFSET_END, Producer, TopicPartition

from pybroker.testing.broker_process import BrokerProcess, ProxiedBroker
from tests.compat.confluent_kafka.helpers import (
    Msg,
    as_tuple,
    consumer,
    create_topic,
    expected_tuple,
    read_back,
)
from tests.compat.timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

TS0 = a_day_ago_ms()  # explicit CreateTime timestamps, apart from the current time
PARTITIONS = 3


def make_messages(n: int, seed: int) -> list[Msg]:
    """Keys, values of mixed size and compressibility, headers, explicit timestamps."""
    rng = random.Random(seed)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"\x00\x01\x02", b"\xff" * 3]
    out = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            value = rng.randbytes(rng.choice([1, 10, 300, 4000]))
        elif kind == 1:
            value = b" ".join(rng.choice(words) for _ in range(rng.randrange(1, 400)))
        elif kind == 2:
            value = b""
        else:
            value = None if i % 8 == 3 else bytes([i % 256]) * 2000
        headers = [] if i % 3 == 0 else [("trace", f"{i}".encode()), ("empty", b"")]
        out.append(
            Msg(
                partition=i % PARTITIONS,
                key=None if i % 10 == 0 else f"k{i}".encode(),
                value=value,
                headers=headers,
                timestamp=TS0 + i,
            )
        )
    return out


def produce_all(bootstrap: str, topic: str, messages: list[Msg], **conf: object) -> list[Msg]:
    """Produce and wait for every delivery report; returns the messages with their offsets."""
    acked: dict[int, Msg] = {}
    errors: list[str] = []

    def on_delivery(index: int):
        def cb(err, m):
            if err is not None:
                errors.append(f"#{index}: {err}")
            else:
                assert m.partition() == messages[index].partition
                acked[index] = replace(messages[index], offset=m.offset())

        return cb

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, **conf})
    for i, m in enumerate(messages):
        producer.produce(
            topic,
            value=m.value,
            key=m.key,
            partition=m.partition,
            headers=m.headers or None,
            timestamp=m.timestamp,
            on_delivery=on_delivery(i),
        )
        producer.poll(0)
    remaining = producer.flush(60)
    assert remaining == 0, f"{remaining} messages not delivered within 60s"
    assert not errors, errors[:10]
    return [acked[i] for i in range(len(messages))]


def assert_read_back_exactly(bootstrap: str, topic: str, sent: list[Msg], partitions: int) -> None:
    got = read_back(bootstrap, topic, range(partitions))
    for p in range(partitions):
        expected = sorted((expected_tuple(m) for m in sent if m.partition == p), key=lambda t: t[0])
        actual = [as_tuple(m) for m in got[p]]
        assert [t[0] for t in expected] == list(range(len(expected))), f"partition {p}: acked offsets"
        assert len(actual) == len(expected), f"partition {p}: read {len(actual)}, sent {len(expected)}"
        for a, e in zip(actual, expected, strict=True):
            assert a == e, f"partition {p} offset {e[0]}"


CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


@pytest.mark.parametrize("codec", CODECS)
def test_compressed_produce_round_trips(proxied_broker: ProxiedBroker, topic: str, codec: str) -> None:
    """The batches really are compressed (librdkafka quietly falls back to uncompressed when the
    broker's ApiVersions answer lacks what it looks for) and read back byte for byte."""
    bootstrap = proxied_broker.bootstrap
    create_topic(bootstrap, topic, PARTITIONS)
    frames = proxied_broker.watch()
    messages = make_messages(600, seed=CODECS.index(codec))
    sent = produce_all(bootstrap, topic, messages, **{"compression.type": codec})
    codecs = frames.produce_codecs()
    wanted = CODECS.index(codec)
    assert wanted in codecs and codecs <= {wanted, 0}, (
        f"asked for {codec} ({wanted}); Produce batches used codecs {sorted(codecs)}"
    )
    assert_read_back_exactly(bootstrap, topic, sent, PARTITIONS)


def test_idempotent_producer(module_broker: BrokerProcess, topic: str) -> None:
    create_topic(module_broker.bootstrap, topic, PARTITIONS)
    messages = make_messages(2000, seed=7)
    sent = produce_all(
        module_broker.bootstrap,
        topic,
        messages,
        **{"enable.idempotence": True, "acks": "all", "max.in.flight.requests.per.connection": 5},
    )
    assert_read_back_exactly(module_broker.bootstrap, topic, sent, PARTITIONS)


def test_auto_created_topic_via_produce(module_broker: BrokerProcess, topic: str) -> None:
    """No admin call: librdkafka's metadata request creates the topic (num.partitions=3)."""
    sent = produce_all(module_broker.bootstrap, topic, make_messages(30, seed=3))
    assert_read_back_exactly(module_broker.bootstrap, topic, sent, PARTITIONS)


def test_watermarks_and_offsets_for_times(module_broker: BrokerProcess, topic: str) -> None:
    create_topic(module_broker.bootstrap, topic, 1)
    n = 50
    # timestamps 1000 ms apart; several messages go out in one batch (linger) so lookups must
    # find records inside batches, not only at batch boundaries
    messages = [
        Msg(0, f"k{i}".encode(), f"v{i}".encode(), [], TS0 + i * 1000) for i in range(n)
    ]
    produce_all(module_broker.bootstrap, topic, messages, **{"linger.ms": 50})

    c = consumer(module_broker.bootstrap)
    try:
        tp = TopicPartition(topic, 0)
        assert c.get_watermark_offsets(tp, timeout=10, cached=False) == (0, n)
        queries = {
            TS0 - 5000: 0,  # before everything -> first record
            TS0: 0,  # exact match
            TS0 + 5500: 6,  # between records -> next one
            TS0 + 49_000: 49,  # last record
            TS0 + 60_000: OFFSET_END,  # after everything -> -1
        }
        for ts, expected in queries.items():
            (result,) = c.offsets_for_times([TopicPartition(topic, 0, ts)], timeout=10)
            assert result.error is None, result.error
            assert result.offset == expected, f"timestamp {ts - TS0:+} ms: offset {result.offset}"
    finally:
        c.close()
