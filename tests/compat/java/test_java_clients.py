"""The Apache Kafka Java clients (every release in versions.txt) against pybroker.

Each call of the driver is one JVM, so every test batches its work: one producer run, one
consumer run, one admin run with all its operations.
"""

from __future__ import annotations

import random

import pytest

from protocol.headers import decode_request
from protocol.messages.produce_request import ProduceRequest
from protocol.records.batch import BatchHeader
from pybroker.testing.broker_process import BrokerProcess, ProxiedBroker
from pybroker.testing.frame_proxy import API_PRODUCE, FrameLog, request_key
from tests.compat.confluent_kafka.helpers import as_tuple, create_topic, read_back
from tests.compat.java.conftest import JavaClient, ProduceRecord, unb64
from tests.compat.timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]  # index = the codec id in batch attributes
PARTITIONS = 3
TS0 = a_day_ago_ms()  # explicit CreateTime timestamps, apart from the current time


def make_records(n: int, seed: int) -> list[ProduceRecord]:
    """Explicit partitions and timestamps; keys, values (empty, null, random, repetitive) and
    headers (none, several, a null value) of every kind the record format has to carry."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = i % 5
        if kind == 0:
            value = rng.randbytes(rng.choice([1, 100, 3000]))
        elif kind == 1:
            value = b" ".join(rng.choice([b"alpha", b"beta", b"\x00\xff"]) for _ in range(rng.randrange(1, 300)))
        elif kind == 2:
            value = b""
        elif kind == 3:
            value = None
        else:
            value = bytes([i % 256]) * 1500
        headers: list[tuple[str, bytes | None]] = []
        if i % 3 == 1:
            headers = [("trace", f"{i}".encode()), ("empty", b"")]
        elif i % 3 == 2:
            headers = [("null-value", None), ("ünïcode", "✓".encode())]
        out.append(
            ProduceRecord(
                key=None if i % 7 == 0 else f"key-{i}".encode(),
                value=value,
                headers=headers,
                partition=i % PARTITIONS,
                timestamp=TS0 + i,
            )
        )
    return out


def produce_requests(frames: FrameLog) -> list[ProduceRequest]:
    out = []
    for frame in frames.frames:
        if request_key(frame)[0] != API_PRODUCE:
            continue
        _header, body = decode_request(frame)
        assert isinstance(body, ProduceRequest), f"undecodable Produce request {request_key(frame)}"
        out.append(body)
    return out


def batch_headers(request: ProduceRequest) -> list[BatchHeader]:
    out = []
    for topic in request.topic_data:
        for part in topic.partition_data:
            buf = bytes(part.records or b"")
            pos = 0
            while pos < len(buf):
                h = BatchHeader.parse(buf, pos)
                out.append(h)
                pos += h.size
    return out


def expected_rows(records: list[ProduceRecord], acks: list[dict]) -> list[tuple]:
    """(partition, offset, key, value, headers, timestamp) of what was acknowledged."""
    return sorted(
        (a["partition"], a["offset"], r.key, r.value, list(r.headers), r.timestamp)
        for r, a in zip(records, acks, strict=True)
    )


def java_rows(lines: list[dict]) -> list[tuple]:
    return sorted(
        (
            m["partition"],
            m["offset"],
            unb64(m["key"]),
            unb64(m["value"]),
            [(name, unb64(value)) for name, value in m["headers"]],
            m["timestamp"],
        )
        for m in lines
        if "offset" in m
    )


@pytest.mark.parametrize("codec", CODECS)
def test_default_producer_compression_round_trip(
    java_client: JavaClient, proxied_broker: ProxiedBroker, topic: str, codec: str
) -> None:
    """The default producer (idempotent, acks=all) with each codec: the wire shows what it sent,
    and the Java assign() consumer and librdkafka both read back every byte."""
    bootstrap = proxied_broker.bootstrap
    create_topic(bootstrap, topic, PARTITIONS)
    records = make_records(300, seed=CODECS.index(codec))

    frames = proxied_broker.watch()
    acks = java_client.produce(bootstrap, topic, records, "--compression", codec)

    for record, ack in zip(records, acks, strict=True):
        assert (ack["partition"], ack["timestamp"]) == (record.partition, record.timestamp), ack
    for p in range(PARTITIONS):
        offsets = [a["offset"] for a in acks if a["partition"] == p]
        assert offsets == list(range(len(offsets))), f"partition {p}: offsets out of send order"

    requests = produce_requests(frames)
    assert requests, "no Produce request went through the proxy"
    assert {r.acks for r in requests} == {-1}, "the default producer should ask for acks=all"
    batches = [h for r in requests for h in batch_headers(r)]
    assert {h.compression for h in batches} == {CODECS.index(codec)}
    assert all(h.has_producer_id and h.base_sequence >= 0 for h in batches), (
        "the default producer should be idempotent (producer id and sequence in every batch)"
    )
    assert not any(h.is_transactional for h in batches)

    expected = expected_rows(records, acks)
    consumed = java_client.run(
        "consume-assign", "--bootstrap", bootstrap, "--topic", topic,
        "--partitions", ",".join(map(str, range(PARTITIONS))), "--from-beginning",
    )
    assert consumed[-1]["summary"]["timedOut"] is False
    assert java_rows(consumed) == expected

    by_librdkafka = read_back(bootstrap, topic, range(PARTITIONS))
    librdkafka_rows = sorted(
        (p, offset, key, value, [tuple(h) for h in headers], ts)
        for p, msgs in by_librdkafka.items()
        for offset, key, value, headers, ts in map(as_tuple, msgs)
    )
    assert librdkafka_rows == expected


def test_admin_topic_lifecycle(java_client: JavaClient, module_broker: BrokerProcess, topic: str) -> None:
    """createTopics, listTopics, describeTopics, createPartitions, describeConfigs,
    describeCluster and deleteTopics through one Admin client, including the refusals."""
    ops = [
        f"create-topics --topic {topic} --partitions 2 --topic-config retention.ms=3600000",
        f"create-topics --topic {topic} --partitions 2",
        "list-topics",
        f"describe-topics --topic {topic}",
        f"create-partitions --topic {topic} --total 5",
        f"create-partitions --topic {topic} --total 3",
        f"describe-topics --topic {topic}",
        f"describe-configs --topic {topic}",
        "describe-cluster",
        f"delete-topics --topic {topic}",
        "list-topics",
        f"describe-topics --topic {topic}",
    ]
    lines = java_client.admin(module_broker.bootstrap, *ops)
    results = [line.get("result", line) for line in lines]
    (created, exists, listed, described, grown, shrink, described_after, configs, cluster, deleted,
     listed_after, described_deleted) = results

    assert created[topic]["partitions"] == 2, created
    assert created[topic]["replicationFactor"] == 1, created
    assert exists[topic]["error"]["class"].endswith("TopicExistsException"), exists

    assert topic in listed and listed[topic]["internal"] is False, listed
    topic_id = listed[topic]["topicId"]
    assert topic_id == created[topic]["topicId"] == described[topic]["topicId"]

    parts = described[topic]["partitions"]
    assert [p["partition"] for p in parts] == [0, 1]
    assert all(p["leader"] == 0 and p["replicas"] == [0] and p["isr"] == [0] for p in parts), parts

    assert grown == {topic: {}}, grown
    assert shrink[topic]["error"]["class"].endswith("InvalidPartitionsException"), shrink
    assert [p["partition"] for p in described_after[topic]["partitions"]] == [0, 1, 2, 3, 4]

    entries = configs[f"topic:{topic}"]
    assert entries["retention.ms"]["value"] == "3600000", entries.get("retention.ms")
    assert entries["retention.ms"]["source"] == "DYNAMIC_TOPIC_CONFIG"
    assert entries["cleanup.policy"]["value"] == "delete"

    assert cluster["clusterId"], cluster
    node = {"id": 0, "host": "127.0.0.1", "port": module_broker.port, "rack": None}
    assert cluster["nodes"] == [node]
    assert cluster["controller"]["id"] == 0

    assert deleted == {topic: {}}, deleted
    assert topic not in listed_after
    assert described_deleted[topic]["error"]["class"].endswith("UnknownTopicOrPartitionException")


def test_list_offsets_on_auto_created_topic(
    java_client: JavaClient, module_broker: BrokerProcess, topic: str
) -> None:
    """The producer's metadata request creates the topic (num.partitions=3); ListOffsets answers
    earliest, latest and by timestamp, also for a timestamp inside a batch and past the end."""
    bootstrap = module_broker.bootstrap
    n = 20
    records = [
        ProduceRecord(key=None, value=f"v{i}".encode(), partition=0, timestamp=TS0 + 1000 * i)
        for i in range(n)
    ]
    # small batches, so that lookups cross batch boundaries as well as land inside batches
    java_client.produce(bootstrap, topic, records, "--config", "batch.size=120")

    lines = java_client.admin(
        bootstrap,
        f"describe-topics --topic {topic}",
        f"list-offsets --topic {topic} --spec earliest",
        f"list-offsets --topic {topic} --spec latest",
        f"list-offsets --topic {topic} --spec timestamp:{TS0 - 5}",
        f"list-offsets --topic {topic} --spec timestamp:{TS0 + 7000}",
        f"list-offsets --topic {topic} --spec timestamp:{TS0 + 3500}",
        f"list-offsets --topic {topic} --spec timestamp:{TS0 + 1000 * n}",
    )
    described, earliest, latest, before, exact, between, after = [line.get("result", line) for line in lines]

    assert len(described[topic]["partitions"]) == 3, described
    assert {p: o["offset"] for p, o in earliest.items()} == {"0": 0, "1": 0, "2": 0}
    assert {p: o["offset"] for p, o in latest.items()} == {"0": n, "1": 0, "2": 0}
    assert (before["0"]["offset"], before["0"]["timestamp"]) == (0, TS0)
    assert (exact["0"]["offset"], exact["0"]["timestamp"]) == (7, TS0 + 7000)
    assert (between["0"]["offset"], between["0"]["timestamp"]) == (4, TS0 + 4000)
    assert after["0"]["offset"] == -1, after
    assert before["1"]["offset"] == -1, "an empty partition has no offset for any timestamp"
