"""Apache Kafka 3.9's ``kafka-transactions`` list, describe and find-hanging against pybroker's
transaction coordinator (ListTransactions, DescribeTransactions, FindCoordinator with key type
TRANSACTION; find-hanging adds DescribeProducers), with transactions made by confluent-kafka's
transactional producer: one committed, one left open."""

from __future__ import annotations

import time
import uuid

import pytest
from confluent_kafka import Producer

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.cli.conftest import KafkaCli

pytestmark = pytest.mark.compat


def table(lines: list[str]) -> list[dict[str, str]]:
    """A table ToolsUtils.prettyPrintTable printed, as rows keyed by the header (an empty last
    column leaves its rows one cell short)."""
    header, *rows = [line.split() for line in lines]
    return [dict(zip(header, row + [""] * (len(header) - len(row)), strict=True))
            for row in rows]


def test_list_describe_and_find_hanging(cli: KafkaCli, module_broker: BrokerProcess) -> None:
    suffix = uuid.uuid4().hex[:8]
    topic, committed, open_ = f"txn-cli-{suffix}", f"committed-{suffix}", f"open-{suffix}"
    cli.tool("kafka-topics", "--create", "--topic", topic, "--partitions", "2")

    done = Producer({"bootstrap.servers": module_broker.bootstrap, "transactional.id": committed})
    done.init_transactions(30)
    done.begin_transaction()
    done.produce(topic, value=b"committed", partition=0)
    done.commit_transaction(30)
    pending = Producer({"bootstrap.servers": module_broker.bootstrap, "transactional.id": open_,
                        "transaction.timeout.ms": 600_000})
    pending.init_transactions(30)
    pending.begin_transaction()
    pending.produce(topic, value=b"open", partition=1)
    pending.flush(10)

    def listed() -> dict[str, dict[str, str]]:
        rows = table(cli.tool("kafka-transactions", "list").lines)
        return {row["TransactionalId"]: row for row in rows}

    deadline = time.monotonic() + 30
    rows = listed()
    while rows.get(committed, {}).get("TransactionState") != "CompleteCommit":
        assert time.monotonic() < deadline, rows
        time.sleep(0.2)
        rows = listed()
    assert rows[committed]["Coordinator"] == "0"
    assert rows[open_]["TransactionState"] == "Ongoing"

    [described] = table(cli.tool("kafka-transactions", "describe",
                                 "--transactional-id", open_).lines)
    assert (described["CoordinatorId"], described["TransactionalId"],
            described["ProducerEpoch"], described["TransactionState"],
            described["TransactionTimeoutMs"], described["TopicPartitions"]) == (
        "0", open_, "0", "Ongoing", "600000", f"{topic}-1")
    assert int(described["CurrentTransactionStartTimeMs"]) <= time.time() * 1000
    [finished] = table(cli.tool("kafka-transactions", "describe",
                                "--transactional-id", committed).lines)
    assert (finished["TransactionState"], finished["TopicPartitions"]) == (
        "CompleteCommit", "")

    # the open transaction is known to its coordinator, so it is not hanging
    hanging = cli.tool("kafka-transactions", "find-hanging", "--broker-id", "0")
    assert table(hanging.lines) == [], hanging.explain()
    pending.abort_transaction(30)
