"""Apache Kafka 3.9's kafka-transactions tool (list, describe, describe-producers, find-hanging,
abort) against an open transaction, on pybroker and on the reference Kafka
(``txn_bootstrap``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.compat.cli.conftest import KafkaCli

pytestmark = [pytest.mark.compat, pytest.mark.timeout(240)]

OPEN_TRANSACTION = textwrap.dedent("""
    import sys, time
    from confluent_kafka import Producer
    bootstrap, topic, tid = sys.argv[1:4]
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid,
                  "transaction.timeout.ms": 300000})
    p.init_transactions(30)
    p.begin_transaction()
    for i in range(3):
        p.produce(topic, f"open-{i}".encode(), partition=0)
    p.flush(30)
    print("open", flush=True)
    time.sleep(600)
""")


def table(run_lines: list[str]) -> list[dict[str, str]]:
    """A tool's tab/space-aligned table as one dict per row."""
    header, *rows = [line.split() for line in run_lines]
    return [dict(zip(header, row, strict=False)) for row in rows]


@pytest.fixture
def open_transaction(txn_bootstrap: str) -> Iterator[tuple[str, str]]:
    """(topic, transactional id) of a transaction left open by a live producer process, which
    the test stops by its pid."""
    topic = f"clitxn-{uuid.uuid4().hex[:8]}"
    tid = f"{topic}-tid"
    admin = AdminClient({"bootstrap.servers": txn_bootstrap})
    for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(30)
    proc = subprocess.Popen([sys.executable, "-c", OPEN_TRANSACTION, txn_bootstrap, topic, tid],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
        yield topic, tid
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)


def test_list_describe_find_hanging_and_abort(txn_bootstrap: str, kafka_tools_lib: Path,
                                              open_transaction: tuple[str, str]) -> None:
    topic, tid = open_transaction
    cli = KafkaCli(txn_bootstrap, kafka_tools_lib)

    listed = {row["TransactionalId"]: row
              for row in table(cli.tool("kafka-transactions", "list").lines)}
    assert listed[tid]["TransactionState"] == "Ongoing", listed

    [described] = table(cli.tool("kafka-transactions", "describe",
                                 "--transactional-id", tid).lines)
    assert described["TransactionalId"] == tid and described["TransactionState"] == "Ongoing"
    assert f"{topic}-0" in " ".join(described.values())

    [producer] = table(cli.tool("kafka-transactions", "describe-producers", "--topic", topic,
                                "--partition", "0").lines)
    assert producer["CurrentTransactionStartOffset"] == "0", producer

    # a transaction the coordinator knows and that is younger than its timeout is not hanging
    hanging = cli.tool("kafka-transactions", "find-hanging", "--broker-id", "0")
    assert table(hanging.lines) == [], hanging.explain()

    # the open transaction holds the last stable offset (read_committed "latest") at 0
    assert last_stable_offset(txn_bootstrap, topic) == 0
    cli.tool("kafka-transactions", "abort", "--topic", topic, "--partition", "0",
             "--start-offset", "0")
    [producer] = table(cli.tool("kafka-transactions", "describe-producers", "--topic", topic,
                                "--partition", "0").lines)
    assert producer["CurrentTransactionStartOffset"] == "None", producer
    # three records and the abort marker: the last stable offset moved past them
    assert last_stable_offset(txn_bootstrap, topic) == 4


def last_stable_offset(bootstrap: str, topic: str) -> int:
    """ListOffsets latest with isolation_level read_committed (librdkafka asks with its
    consumer's isolation level)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"c-{uuid.uuid4()}",
                         "isolation.level": "read_committed"})
    try:
        _low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10,
                                                    cached=False)
        return high
    finally:
        consumer.close()
