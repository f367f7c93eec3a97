"""Apache Kafka 3.9's log-dirs, reassignment, leader-election and transactions tools against
pybroker.

Each tool must exit as it exits against Apache Kafka 3.9 (ZooKeeper mode, one broker) and print
what it prints there; sizes and producer ids are checked against the segment files on disk,
which the broker does not get to describe.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from protocol.records.batch import BatchHeader
from protocol.records.record import iter_batches
from pybroker.testing.broker_process import BrokerProcess
from tests.compat.cli.conftest import KafkaCli

pytestmark = pytest.mark.compat


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create_topic(cli: KafkaCli, topic: str, partitions: int) -> None:
    run = cli.tool("kafka-topics", "--create", "--topic", topic, "--partitions", str(partitions))
    assert run.lines == [f"Created topic {topic}."], run.explain()


def console_produce(cli: KafkaCli, topic: str, lines: list[str], *options: str) -> None:
    """Through kafka-console-producer, which is idempotent by default in 3.9."""
    run = cli.tool("kafka-console-producer", "--topic", topic, *options,
                   stdin="".join(f"{line}\n" for line in lines))
    assert run.stdout.strip(">\n ") == "", run.explain()


def segment_files(broker: BrokerProcess, topic: str, partition: int) -> list[Path]:
    return sorted((broker.data_dir / f"{topic}-{partition}").glob("*.log"))


def batch_headers(broker: BrokerProcess, topic: str, partition: int) -> list[BatchHeader]:
    """The record batches of a partition, read from its segment files."""
    headers = []
    for path in segment_files(broker, topic, partition):
        data = path.read_bytes()
        headers += [BatchHeader.parse(data, pos) for pos, _ in iter_batches(data)]
    return headers


# -- kafka-log-dirs ---------------------------------------------------------------------------


def test_log_dirs_describe_reports_partition_sizes(
    cli: KafkaCli, module_broker: BrokerProcess
) -> None:
    topic, other = unique("logdirs"), unique("logdirs-other")
    create_topic(cli, topic, 3)
    create_topic(cli, other, 1)
    # keyed records spread over the partitions; partition 2 may stay empty, which is fine
    console_produce(cli, topic, [f"key-{i}\tvalue-{i}" for i in range(30)],
                    "--property", "parse.key=true")
    console_produce(cli, other, ["x"])

    run = cli.tool("kafka-log-dirs", "--describe", "--topic-list", topic)
    assert run.lines[:2] == [
        "Querying brokers for log directories information",
        "Received log directory information from brokers 0",
    ], run.explain()
    report = json.loads(run.lines[2])
    assert report["version"] == 1
    [broker] = report["brokers"]
    assert broker["broker"] == 0
    [log_dir] = broker["logDirs"]
    assert log_dir["logDir"] == str(module_broker.data_dir.absolute())
    assert log_dir["error"] is None
    sizes = {p["partition"]: p["size"] for p in log_dir["partitions"]}
    expected = {
        f"{topic}-{i}": sum(f.stat().st_size for f in segment_files(module_broker, topic, i))
        for i in range(3)
    }
    assert sizes == expected, run.explain()  # the other topic is filtered out
    assert sum(sizes.values()) > 0
    assert {(p["offsetLag"], p["isFuture"]) for p in log_dir["partitions"]} == {(0, False)}


# -- kafka-reassign-partitions ----------------------------------------------------------------


def test_reassign_partitions_list_execute_verify_cancel(cli: KafkaCli, tmp_path: Path) -> None:
    topic = unique("reassign")
    create_topic(cli, topic, 2)
    assert cli.tool("kafka-reassign-partitions", "--list").lines == [
        "No partition reassignments found."]

    plan = tmp_path / "reassignment.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": p, "replicas": [0]} for p in (0, 1)]}))
    run = cli.tool("kafka-reassign-partitions", "--execute", "--reassignment-json-file", str(plan))
    current = {"version": 1, "partitions": [
        {"topic": topic, "partition": p, "replicas": [0], "log_dirs": ["any"]} for p in (0, 1)]}
    assert run.lines == [
        "Current partition replica assignment",
        json.dumps(current, separators=(",", ":")),
        "Save this to use as the --reassignment-json-file option during rollback",
        f"Successfully started partition reassignments for {topic}-0,{topic}-1",
    ], run.explain()

    # The move to the current replicas is complete at once; the tool then clears the
    # replication throttles it may have set (IncrementalAlterConfigs DELETEs on the broker).
    run = cli.tool("kafka-reassign-partitions", "--verify",
                   "--reassignment-json-file", str(plan))
    assert run.lines == [
        "Status of partition reassignment:",
        f"Reassignment of partition {topic}-0 is completed.",
        f"Reassignment of partition {topic}-1 is completed.",
        "Clearing broker-level throttles on broker 0",
        f"Clearing topic-level throttles on topic {topic}",
    ], run.explain()
    run = cli.tool("kafka-reassign-partitions", "--cancel",
                   "--reassignment-json-file", str(plan))
    assert run.lines == [
        "None of the specified partition reassignments are active.",
        # (the tool itself prints no line break here, against Kafka too)
        "None of the specified partition moves are active.Clearing broker-level throttles on "
        "broker 0",
        f"Clearing topic-level throttles on topic {topic}",
    ], run.explain()
    assert cli.tool("kafka-reassign-partitions", "--list").lines == [
        "No partition reassignments found."]


# -- kafka-leader-election --------------------------------------------------------------------


def test_leader_election_finds_valid_leaders(cli: KafkaCli, tmp_path: Path) -> None:
    topic = unique("election")
    create_topic(cli, topic, 2)

    # Over all partitions Kafka reports only the partitions that needed an election: none.
    for election_type in ("preferred", "unclean"):
        run = cli.tool("kafka-leader-election", "--election-type", election_type,
                       "--all-topic-partitions")
        assert run.lines == [], run.explain()

    run = cli.tool("kafka-leader-election", "--election-type", "preferred",
                   "--topic", topic, "--partition", "0")
    assert run.lines == [f"Valid replica already elected for partitions {topic}-0"], run.explain()
    run = cli.tool("kafka-leader-election", "--election-type", "unclean",
                   "--topic", topic, "--partition", "1")
    assert run.lines == [f"Valid replica already elected for partitions {topic}-1"], run.explain()

    partitions = tmp_path / "partitions.json"
    partitions.write_text(json.dumps({"partitions": [
        {"topic": topic, "partition": p} for p in (0, 1)]}))
    run = cli.tool("kafka-leader-election", "--election-type", "preferred",
                   "--path-to-json-file", str(partitions))
    [line] = run.lines
    prefix = "Valid replica already elected for partitions "
    assert line.startswith(prefix), run.explain()
    assert sorted(line.removeprefix(prefix).split(", ")) == [f"{topic}-0", f"{topic}-1"]

    missing = cli.run_raw("kafka-leader-election", "--bootstrap-server", cli.bootstrap,
                          "--election-type", "preferred", "--topic", topic, "--partition", "7")
    assert missing.returncode == 1, missing.explain()
    assert missing.lines == [
        f"Error completing leader election (PREFERRED) for partition: {topic}-7: "
        "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: "
        "The partition does not exist."
    ], missing.explain()


# -- kafka-transactions describe-producers ----------------------------------------------------


def producer_table(cli: KafkaCli, topic: str, partition: int) -> list[dict[str, str]]:
    run = cli.tool("kafka-transactions", "describe-producers",
                   "--topic", topic, "--partition", str(partition))
    header, *rows = [line.split() for line in run.lines]
    assert header == ["ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence",
                      "LastTimestamp", "CurrentTransactionStartOffset"], run.explain()
    return [dict(zip(header, row, strict=True)) for row in rows]


def test_transactions_describe_producers(cli: KafkaCli, module_broker: BrokerProcess) -> None:
    topic, plain = unique("producers"), unique("producers-plain")
    create_topic(cli, topic, 1)
    create_topic(cli, plain, 1)
    console_produce(cli, topic, [f"line {i}" for i in range(7)])
    console_produce(cli, plain, ["a", "b"], "--producer-property", "enable.idempotence=false")

    headers = batch_headers(module_broker, topic, 0)
    assert headers, "nothing was written"
    producer_ids = {h.producer_id for h in headers}
    assert len(producer_ids) == 1 and min(producer_ids) >= 0, headers
    last = headers[-1]
    assert producer_table(cli, topic, 0) == [{
        "ProducerId": str(last.producer_id),
        "ProducerEpoch": str(last.producer_epoch),
        "LatestCoordinatorEpoch": "-1",
        "LastSequence": "6",
        "LastTimestamp": str(last.max_timestamp),
        "CurrentTransactionStartOffset": "None",
    }]

    # A producer without idempotence leaves no state behind.
    assert {h.producer_id for h in batch_headers(module_broker, plain, 0)} == {-1}
    assert producer_table(cli, plain, 0) == []
