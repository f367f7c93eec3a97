"""kafka-python's transactional producer and read_committed consumer, on pybroker and on the
reference Kafka (``txn_bootstrap``): commits and aborts, and offsets sent in a transaction."""

from __future__ import annotations

import time
import uuid

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic
from kafka.structs import OffsetAndMetadata

pytestmark = [pytest.mark.compat, pytest.mark.timeout(120)]


def create_topic(bootstrap: str, topic: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(topic, 1, 1)])
    finally:
        admin.close()


def read(bootstrap: str, topic: str, isolation: str, expected: int) -> list[tuple[int, bytes]]:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level=isolation,
                             enable_auto_commit=False, auto_offset_reset="earliest")
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    out: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + 20
    try:
        while len(out) < expected and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=300).values():
                out.extend((r.offset, r.value) for r in records)
        for records in consumer.poll(timeout_ms=300).values():
            out.extend((r.offset, r.value) for r in records)
    finally:
        consumer.close()
    return out


def test_commit_abort_and_offsets_in_a_transaction(txn_bootstrap: str) -> None:
    topic = f"kptxn-{uuid.uuid4().hex[:8]}"
    group = f"{topic}-g"
    create_topic(txn_bootstrap, topic)
    producer = KafkaProducer(bootstrap_servers=txn_bootstrap, transactional_id=f"{topic}-tid")
    try:
        producer.init_transactions()
        producer.begin_transaction()
        for i in range(4):
            producer.send(topic, f"a{i}".encode(), partition=0)
        producer.commit_transaction()
        producer.begin_transaction()
        for i in range(3):
            producer.send(topic, f"x{i}".encode(), partition=0)
        producer.flush()  # (without it the aborted records may never be sent)
        producer.abort_transaction()
        producer.begin_transaction()
        producer.send(topic, b"b0", partition=0)
        producer.send_offsets_to_transaction(
            {TopicPartition(topic, 0): OffsetAndMetadata(42, "in-txn", -1)}, group)
        producer.commit_transaction()
    finally:
        producer.close()
    committed = read(txn_bootstrap, topic, "read_committed", expected=5)
    assert committed == [(0, b"a0"), (1, b"a1"), (2, b"a2"), (3, b"a3"), (9, b"b0")]
    everything = read(txn_bootstrap, topic, "read_uncommitted", expected=8)
    assert [o for o, _ in everything] == [0, 1, 2, 3, 5, 6, 7, 9]
    consumer = KafkaConsumer(bootstrap_servers=txn_bootstrap, group_id=group,
                             enable_auto_commit=False)
    try:
        assert consumer.committed(TopicPartition(topic, 0)) == 42
    finally:
        consumer.close()
