"""confluent-kafka's (librdkafka's) transactional producer and read_committed consumer, on
pybroker and on the reference Kafka (``txn_bootstrap``): commit and abort, a
consume-transform-produce loop with ``send_offsets_to_transaction``, and a producer killed in
the middle of a transaction, whose open transaction holds back read_committed readers until
the broker aborts it on its timeout."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

pytestmark = [pytest.mark.compat, pytest.mark.timeout(180)]


def create_topics(bootstrap: str, *topics: str, partitions: int = 1) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, partitions, 1) for t in topics]).values():
        f.result(30)


def transactional_producer(bootstrap: str, transactional_id: str, **config) -> Producer:
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id,
                         "linger.ms": 5, **config})
    producer.init_transactions(30)
    return producer


def read(bootstrap: str, topic: str, isolation: str, expected: int | None = None,
         timeout: float = 20.0, partitions: int = 1) -> list[tuple[int, int, str]]:
    """(partition, offset, value) of every record a consumer with ``isolation`` reads, until
    the end of each partition (or ``expected`` records)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"r-{uuid.uuid4()}",
                         "isolation.level": isolation, "enable.partition.eof": True,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: list[tuple[int, int, str]] = []
    at_end: set[int] = set()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            for m in consumer.consume(100, 0.3):
                if m.error():
                    if m.error().code() == -191:  # _PARTITION_EOF
                        at_end.add(m.partition())
                    continue
                out.append((m.partition(), m.offset(), m.value().decode()))
            if expected is None and len(at_end) == partitions:
                break
            if expected is not None and len(out) >= expected:
                break
    finally:
        consumer.close()
    return out


def test_commit_and_abort(txn_bootstrap: str) -> None:
    topic = f"ctxn-{uuid.uuid4().hex[:8]}"
    create_topics(txn_bootstrap, topic)
    producer = transactional_producer(txn_bootstrap, f"{topic}-tid")
    for outcome, n in (("commit", 10), ("abort", 5), ("commit", 3)):
        producer.begin_transaction()
        for i in range(n):
            producer.produce(topic, f"{outcome}-{n}-{i}".encode(), partition=0)
        producer.flush(30)
        if outcome == "commit":
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)
    committed = read(txn_bootstrap, topic, "read_committed")
    assert [v for _, _, v in committed] == (
        [f"commit-10-{i}" for i in range(10)] + [f"commit-3-{i}" for i in range(3)])
    # offsets 10 and 16 are the markers, 11-15 the aborted records
    assert [o for _, o, _ in committed] == list(range(10)) + [17, 18, 19]
    everything = read(txn_bootstrap, topic, "read_uncommitted")
    assert [o for _, o, _ in everything] == list(range(10)) + list(range(11, 16)) + [17, 18, 19]


def test_consume_transform_produce_with_offsets_in_the_transaction(txn_bootstrap: str) -> None:
    """Read a topic, write each record upper-cased with the consumed offsets in the same
    transaction; one round is aborted and replayed from the committed position. The output
    holds every record exactly once and the group's committed offset is the input's end."""
    suffix = uuid.uuid4().hex[:8]
    source, sink, group = f"ctp-in-{suffix}", f"ctp-out-{suffix}", f"ctp-g-{suffix}"
    create_topics(txn_bootstrap, source, sink)
    plain = Producer({"bootstrap.servers": txn_bootstrap})
    for i in range(100):
        plain.produce(source, f"record-{i}".encode(), partition=0)
    assert plain.flush(30) == 0

    consumer = Consumer({"bootstrap.servers": txn_bootstrap, "group.id": group,
                         "isolation.level": "read_committed", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    tp = TopicPartition(source, 0)
    consumer.assign([tp])
    producer = transactional_producer(txn_bootstrap, f"ctp-tid-{suffix}")
    rounds = 0
    done = 0
    aborted_once = False
    deadline = time.monotonic() + 60
    try:
        while done < 100:
            assert time.monotonic() < deadline, f"stuck after {done} records"
            batch = [m for m in consumer.consume(15, 1.0) if not m.error()]
            if not batch:
                continue
            producer.begin_transaction()
            for m in batch:
                producer.produce(sink, m.value().upper(), partition=0)
            position = [TopicPartition(source, 0, batch[-1].offset() + 1)]
            producer.send_offsets_to_transaction(position, consumer.consumer_group_metadata(), 30)
            rounds += 1
            if rounds == 3 and not aborted_once:
                aborted_once = True
                producer.abort_transaction(30)
                committed = consumer.committed([tp], 30)[0].offset
                consumer.seek(TopicPartition(source, 0, committed))
                continue
            producer.commit_transaction(30)
            done = batch[-1].offset() + 1
    finally:
        consumer.close()
    output = [v for _, _, v in read(txn_bootstrap, sink, "read_committed")]
    assert output == [f"RECORD-{i}" for i in range(100)]
    check = Consumer({"bootstrap.servers": txn_bootstrap, "group.id": group})
    try:
        assert check.committed([tp], 30)[0].offset == 100
    finally:
        check.close()


HANGING_PRODUCER = textwrap.dedent("""
    import sys, time
    from confluent_kafka import Producer
    bootstrap, topic, tid = sys.argv[1:4]
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid,
                  "transaction.timeout.ms": 3000})
    p.init_transactions(30)
    p.begin_transaction()
    for i in range(5):
        p.produce(topic, f"hanging-{i}".encode(), partition=0)
    p.flush(30)
    print("open", flush=True)
    time.sleep(600)
""")


def test_a_killed_producers_transaction_is_aborted_on_its_timeout(txn_bootstrap: str) -> None:
    topic = f"chang-{uuid.uuid4().hex[:8]}"
    create_topics(txn_bootstrap, topic)
    proc = subprocess.Popen([sys.executable, "-c", HANGING_PRODUCER, txn_bootstrap, topic,
                             f"{topic}-hanging"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        # another producer commits after the open transaction
        producer = transactional_producer(txn_bootstrap, f"{topic}-other")
        producer.begin_transaction()
        producer.produce(topic, b"after", partition=0)
        producer.commit_transaction(30)
        # the open transaction holds the last stable offset back: nothing is readable yet
        assert read(txn_bootstrap, topic, "read_committed", expected=1, timeout=1.0) == []
        # ... until the broker aborts it (transaction.timeout.ms, then its periodic check)
        started = time.monotonic()
        after = read(txn_bootstrap, topic, "read_committed", expected=1, timeout=60)
        assert [v for _, _, v in after] == ["after"], after
        assert time.monotonic() - started < 60
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)


def test_a_fenced_producer_cannot_commit(txn_bootstrap: str) -> None:
    topic = f"cfence-{uuid.uuid4().hex[:8]}"
    create_topics(txn_bootstrap, topic)
    zombie = transactional_producer(txn_bootstrap, f"{topic}-tid")
    zombie.begin_transaction()
    zombie.produce(topic, b"zombie", partition=0)
    zombie.flush(30)
    successor = transactional_producer(txn_bootstrap, f"{topic}-tid")
    with pytest.raises(KafkaException) as raised:
        zombie.commit_transaction(30)
    assert raised.value.args[0].fatal(), raised.value
    successor.begin_transaction()
    successor.produce(topic, b"successor", partition=0)
    successor.commit_transaction(30)
    assert [v for _, _, v in read(txn_bootstrap, topic, "read_committed")] == ["successor"]
