"""kafka-python pinned to old broker versions: ``api_version=(0, 10)`` speaks Produce v2 with
message format v1 and Fetch v2, ``(0, 9)`` Produce v1 with format v0 and Fetch v1. Every codec
those formats have, old and new clients reading each other's records."""

from __future__ import annotations

import time

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from pybroker.testing.broker_process import ProxiedBroker
from pybroker.testing.frame_proxy import FrameLog, request_key
from tests.compat.timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

TS0 = a_day_ago_ms()
N = 60
OLD = [(0, 10), (0, 9)]
PRODUCE, FETCH = 0, 1
#: the Produce and Fetch versions each pinned client speaks (message format v1 and v0)
VERSIONS = {(0, 10): (2, 2), (0, 9): (1, 1)}
CODECS = [None, "gzip", "snappy", "lz4"]


def versions(frames: FrameLog, api_key: int) -> set[int]:
    return {v for k, v in map(request_key, frames.frames) if k == api_key}


def messages(prefix: str) -> list[dict]:
    return [{"key": None if i % 5 == 0 else f"{prefix}-k{i}".encode(),
             "value": f"{prefix}-v{i}".encode() * (1 + i % 7),
             "timestamp_ms": TS0 + i}
            for i in range(N)]


def produce(bootstrap: str, topic: str, rows: list[dict], *, api_version=None,
            codec: str | None = None) -> list[int]:
    config: dict = {"bootstrap_servers": bootstrap, "compression_type": codec,
                    "linger_ms": 20}
    if api_version is not None:
        config["api_version"] = api_version
    producer = KafkaProducer(**config)
    try:
        futures = [producer.send(topic, partition=0, **m) for m in rows]
        producer.flush(timeout=30)
        return [f.get(timeout=30).offset for f in futures]
    finally:
        producer.close(timeout=10)


def consume(bootstrap: str, topic: str, expected: int, *, api_version=None) -> list:
    config: dict = {"bootstrap_servers": bootstrap, "group_id": None,
                    "enable_auto_commit": False}
    if api_version is not None:
        config["api_version"] = api_version
    consumer = KafkaConsumer(**config)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        got: list = []
        deadline = time.monotonic() + 30
        while len(got) < expected and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                got.extend(records)
        return got
    finally:
        consumer.close()


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("api_version", OLD, ids=["0.10", "0.9"])
def test_old_client_round_trip(proxied_broker: ProxiedBroker, topic: str,
                               api_version: tuple[int, int], codec: str | None) -> None:
    frames = proxied_broker.watch()
    rows = messages("old")
    offsets = produce(proxied_broker.bootstrap, topic, rows, api_version=api_version,
                      codec=codec)
    assert offsets == list(range(N))
    got = consume(proxied_broker.bootstrap, topic, N, api_version=api_version)
    produce_version, fetch_version = VERSIONS[api_version]
    assert versions(frames, PRODUCE) == {produce_version}
    assert versions(frames, FETCH) == {fetch_version}
    assert [(r.offset, r.key, r.value) for r in got] == \
        [(i, m["key"], m["value"]) for i, m in enumerate(rows)]
    if api_version == (0, 10):
        assert [r.timestamp for r in got] == [m["timestamp_ms"] for m in rows]
    else:
        assert {r.timestamp for r in got} in ({None}, {-1})  # magic 0 has no timestamps


@pytest.mark.parametrize("api_version", OLD, ids=["0.10", "0.9"])
def test_old_and_new_clients_read_each_other(proxied_broker: ProxiedBroker, topic: str,
                                             api_version: tuple[int, int]) -> None:
    bootstrap = proxied_broker.bootstrap
    old_rows, new_rows = messages("old"), messages("new")
    produce(bootstrap, topic, old_rows, api_version=api_version, codec="gzip")
    produce(bootstrap, topic, new_rows, codec="snappy")
    everything = old_rows + new_rows
    for reader in (None, api_version):
        frames = proxied_broker.watch()
        got = consume(bootstrap, topic, 2 * N, api_version=reader)
        assert [(r.offset, r.key, r.value) for r in got] == \
            [(i, m["key"], m["value"]) for i, m in enumerate(everything)], reader
        assert max(versions(frames, FETCH)) == (VERSIONS[reader][1] if reader else 12)
    modern = consume(bootstrap, topic, 2 * N)
    expected_old_ts = [m["timestamp_ms"] for m in old_rows] if api_version == (0, 10) \
        else [-1] * N
    assert [r.timestamp for r in modern[:N]] == expected_old_ts
    assert all(r.headers == [] for r in modern)
