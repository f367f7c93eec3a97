"""The Java producer's transactions and the Java consumer's read_committed, on pybroker and on
the reference Kafka (``txn_bootstrap``): commits and aborts with their markers' offsets, and a
zombie fenced by a newer producer with the same transactional id."""

from __future__ import annotations

import uuid

import pytest

from tests.compat.java.conftest import JavaClient, unb64

pytestmark = pytest.mark.compat

READ_COMMITTED = ("--config", "isolation.level=read_committed")


def create_topic(java_client: JavaClient, bootstrap: str, topic: str) -> None:
    [result] = java_client.admin(bootstrap, f"create-topics --topic {topic} --partitions 1")
    assert "error" not in result, result


def values(java_client: JavaClient, bootstrap: str, topic: str, *options: str) -> list[str]:
    lines = java_client.run("consume-assign", "--bootstrap", bootstrap, "--topic", topic,
                            *options)
    return [unb64(line["value"]).decode() for line in lines if "offset" in line]


def test_commits_and_aborts(java_client: JavaClient, txn_bootstrap: str) -> None:
    topic = f"jtxn-{uuid.uuid4().hex[:8]}"
    create_topic(java_client, txn_bootstrap, topic)
    lines = java_client.run("txn-produce", "--bootstrap", txn_bootstrap, "--topic", topic,
                            "--transactional-id", f"{topic}-tid", "--plan", "c10,a5,c3",
                            "--partition", "0")
    # every transaction ends with a marker, which takes an offset of its own
    assert lines == [
        {"txn": 0, "outcome": "commit", "offsets": list(range(0, 10))},
        {"txn": 1, "outcome": "abort", "offsets": list(range(11, 16))},
        {"txn": 2, "outcome": "commit", "offsets": list(range(17, 20))},
    ]
    committed = values(java_client, txn_bootstrap, topic, *READ_COMMITTED)
    assert committed == [f"txn0-{i}" for i in range(10)] + [f"txn2-{i}" for i in range(3)]
    everything = values(java_client, txn_bootstrap, topic)
    assert len(everything) == 18 and "txn1-4" in everything


def test_a_zombie_is_fenced_by_its_successor(java_client: JavaClient, txn_bootstrap: str) -> None:
    topic = f"jfence-{uuid.uuid4().hex[:8]}"
    create_topic(java_client, txn_bootstrap, topic)
    lines = java_client.run("txn-fence", "--bootstrap", txn_bootstrap, "--topic", topic,
                            "--transactional-id", f"{topic}-tid")
    assert lines[0]["zombie"]["class"] == "org.apache.kafka.common.errors.ProducerFencedException"
    assert lines[1] == {"successor": "committed"}
    assert values(java_client, txn_bootstrap, topic, *READ_COMMITTED) == [
        "successor-0", "successor-1"]
