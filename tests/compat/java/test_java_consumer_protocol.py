"""The Java consumer 4.x with ``group.protocol=consumer`` (KIP-848), against pybroker and
against Apache Kafka 4.1 with the same assertions: a lone member gets every partition from the
broker's assignor, reads everything and commits at its member epoch; the next member of the
group resumes at those commits."""

from __future__ import annotations

import uuid

import pytest

from tests.compat.confluent_kafka.test_consumer_protocol import create
from tests.compat.java.conftest import JavaClient, ProduceRecord, unb64

pytestmark = pytest.mark.compat

PARTITIONS = 3
JAVA4 = "4.4.0"


@pytest.fixture
def java4(java_clients) -> JavaClient:
    return java_clients(JAVA4)


def records(first: int, n: int) -> list[ProduceRecord]:
    return [ProduceRecord(key=f"k{i}".encode(), value=f"v{i}".encode(),
                          partition=i % PARTITIONS) for i in range(first, first + n)]


def consume(java: JavaClient, bootstrap: str, topic: str, group: str, count: int) -> list[dict]:
    return java.run("consume-group", "--bootstrap", bootstrap, "--topic", topic,
                    "--group", group, "--count", str(count), "--timeout-ms", "60000",
                    "--config", "group.protocol=consumer")


def test_the_java_consumer_with_the_consumer_protocol(java4: JavaClient, kip848_bootstrap: str) -> None:
    topic, group = f"jk848-{uuid.uuid4().hex[:6]}", f"jg-{uuid.uuid4().hex[:6]}"
    create(kip848_bootstrap, topic, PARTITIONS)
    first = java4.produce(kip848_bootstrap, topic, records(0, 30))
    lines = consume(java4, kip848_bootstrap, topic, group, 30)
    assert not [line for line in lines if "error" in line], lines
    assigned = [line["assigned"] for line in lines if "assigned" in line]
    held = {(a["topic"], a["partition"]) for batch in assigned for a in batch}
    assert held == {(topic, p) for p in range(PARTITIONS)}, lines
    got = sorted(unb64(m["value"]) for m in lines if "offset" in m)
    assert got == sorted(f"v{i}".encode() for i in range(30))
    ends = {p: sum(1 for a in first if a["partition"] == p) for p in range(PARTITIONS)}
    committed = next(line["committed"] for line in lines if "committed" in line)
    assert committed == {f"{topic}-{p}": ends[p] for p in range(PARTITIONS)}
    summary = next(line["summary"] for line in lines if "summary" in line)
    assert summary["groupMetadata"]["groupId"] == group
    assert summary["groupMetadata"]["generationId"] >= 1  # the member epoch
    java4.produce(kip848_bootstrap, topic, records(30, 9))
    lines = consume(java4, kip848_bootstrap, topic, group, 9)
    got = sorted(unb64(m["value"]) for m in lines if "offset" in m)
    assert got == sorted(f"v{i}".encode() for i in range(30, 39)), "should resume at the commits"
