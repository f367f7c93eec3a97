"""librdkafka (confluent-kafka) without ApiVersions, on the fallback versions old brokers
needed: ``broker.version.fallback=0.9.0`` speaks Produce v1 and Fetch v1, ``0.8.2`` Produce v0
and Fetch v0, both message format v0, and ListOffsets v0. Every codec that format has, and old
and new clients reading each other's records.

librdkafka 2.x sends ApiVersions whatever ``api.version.request`` says when the fallback is
0.10 or later, so ``0.10.0`` pins nothing any more (kafka-python's ``api_version=(0, 10)``
covers message format v1)."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import (
    OFFSET_BEGINNING,
    TIMESTAMP_NOT_AVAILABLE,
    Consumer,
    KafkaError,
    Producer,
    TopicPartition,
)

from pybroker.testing.broker_process import ProxiedBroker
from pybroker.testing.frame_proxy import FrameLog, request_key
from tests.compat.confluent_kafka.helpers import create_topic, read_back
from tests.compat.timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

TS0 = a_day_ago_ms()
N = 80
PRODUCE, FETCH, LIST_OFFSETS = 0, 1, 2
FALLBACKS = ["0.8.2", "0.9.0"]
#: (Produce, Fetch) versions librdkafka uses on each fallback
VERSIONS = {"0.8.2": (0, 0), "0.9.0": (1, 1)}
CODECS = ["none", "gzip", "snappy", "lz4"]


def pinned(fallback: str | None) -> dict[str, object]:
    if fallback is None:
        return {}
    return {"api.version.request": False, "broker.version.fallback": fallback}


def versions(frames: FrameLog, api_key: int) -> set[int]:
    return {v for k, v in map(request_key, frames.frames) if k == api_key}


def rows(prefix: str) -> list[tuple[bytes | None, bytes]]:
    return [(None if i % 9 == 0 else f"{prefix}-k{i}".encode(), f"{prefix}-v{i}".encode() * 3)
            for i in range(N)]


def produce(bootstrap: str, topic: str, messages: list[tuple[bytes | None, bytes]],
            fallback: str | None, codec: str) -> None:
    failures: list[object] = []
    producer = Producer({"bootstrap.servers": bootstrap, "compression.type": codec,
                         "linger.ms": 20, **pinned(fallback)})
    for i, (key, value) in enumerate(messages):
        producer.produce(topic, value=value, key=key, partition=0, timestamp=TS0 + i,
                         on_delivery=lambda err, _msg: err and failures.append(err))
    assert producer.flush(30) == 0
    assert not failures, failures


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("fallback", FALLBACKS)
def test_pinned_librdkafka_round_trip(proxied_broker: ProxiedBroker, topic: str,
                                      fallback: str, codec: str) -> None:
    bootstrap = proxied_broker.bootstrap
    create_topic(bootstrap, topic, 1)
    frames = proxied_broker.watch()
    sent = rows("old")
    produce(bootstrap, topic, sent, fallback, codec)
    got = read_back(bootstrap, topic, [0], **pinned(fallback))[0]
    assert [(m.offset(), m.key(), m.value()) for m in got] == \
        [(i, k, v) for i, (k, v) in enumerate(sent)]
    # message format v0 has no timestamps
    assert {m.timestamp()[0] for m in got} == {TIMESTAMP_NOT_AVAILABLE}
    produce_version, fetch_version = VERSIONS[fallback]
    assert versions(frames, PRODUCE) == {produce_version}
    assert versions(frames, FETCH) == {fetch_version}
    assert versions(frames, LIST_OFFSETS) == {0}


@pytest.mark.parametrize("fallback", FALLBACKS)
def test_old_and_new_librdkafka_read_each_other(proxied_broker: ProxiedBroker, topic: str,
                                                fallback: str) -> None:
    bootstrap = proxied_broker.bootstrap
    create_topic(bootstrap, topic, 1)
    old, new = rows("old"), rows("new")
    produce(bootstrap, topic, old, fallback, "lz4")
    produce(bootstrap, topic, new, None, "snappy")
    for reader in (fallback, None):
        got = read_back(bootstrap, topic, [0], **pinned(reader))[0]
        assert [(m.offset(), m.key(), m.value()) for m in got] == \
            [(i, k, v) for i, (k, v) in enumerate(old + new)], reader


def test_zstd_never_reaches_old_fetchers(proxied_broker: ProxiedBroker, topic: str) -> None:
    """The partition is answered UNSUPPORTED_COMPRESSION_TYPE (tests/compat/
    test_legacy_formats.py checks the answer itself); librdkafka keeps fetching without
    delivering anything, as against Kafka."""
    bootstrap = proxied_broker.bootstrap
    create_topic(bootstrap, topic, 1)
    produce(bootstrap, topic, rows("new"), None, "zstd")
    frames = proxied_broker.watch()
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "old-zstd",
                  "enable.auto.commit": False, "fetch.error.backoff.ms": 50,
                  **pinned("0.9.0")})
    try:
        c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            for m in c.consume(num_messages=100, timeout=0.2):
                assert m.error() is not None, "a zstd record reached an old fetcher"
                assert m.error().code() == KafkaError.UNSUPPORTED_COMPRESSION_TYPE, m.error()
    finally:
        c.close()
    fetches = [f for f in frames.frames if request_key(f) == (FETCH, 1)]
    assert len(fetches) >= 3, "the consumer did not keep fetching"
