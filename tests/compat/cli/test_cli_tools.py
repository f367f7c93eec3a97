"""Apache Kafka 3.9's command-line tools against pybroker.

Every command must exit 0 and print what it prints against Apache Kafka; the assertions read
the tools' own output (tables, ``topic:partition:offset`` lines, CSV) rather than asking the
broker by other means. Each command is one JVM (about a second), and a consumer that joins a
group waits out the broker's initial rebalance delay, so the tests share topics where they can.
"""

from __future__ import annotations

import re
import uuid
from collections import Counter, defaultdict

import pytest

from tests.compat.cli.conftest import KafkaCli, ToolRun

pytestmark = pytest.mark.compat

PARTITIONS = 3
#: key -> values, produced through kafka-console-producer with parse.key=true (tab-separated)
KEYED = [(f"key-{i % 7}", f"value {i} ✓" if i % 5 == 0 else f"value-{i}") for i in range(40)]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# -- output parsers ---------------------------------------------------------------------------


def tab_fields(line: str) -> dict[str, str]:
    """``Topic: t<TAB>Partition: 0<TAB>Leader: 0 ...`` (kafka-topics --describe) as a dict."""
    out = {}
    for field in line.strip().split("\t"):
        name, _, value = field.partition(":")
        out[name.strip()] = value.strip()
    return out


def describe_topic(cli: KafkaCli, topic: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The summary line and the partition lines of ``kafka-topics --describe --topic``."""
    run = cli.tool("kafka-topics", "--describe", "--topic", topic)
    summary = [tab_fields(line) for line in run.lines if not line.startswith("\t")]
    partitions = [tab_fields(line) for line in run.lines if line.startswith("\t")]
    assert len(summary) == 1, run.explain()
    return summary[0], partitions


def list_topics(cli: KafkaCli) -> list[str]:
    return cli.tool("kafka-topics", "--list").lines


def table(run: ToolRun, first_column: str = "GROUP") -> list[dict[str, str]]:
    """Rows of a whitespace-aligned table whose header starts with ``first_column``."""
    lines = run.lines
    starts = [i for i, line in enumerate(lines) if line.split()[:1] == [first_column]]
    assert len(starts) == 1, f"no single {first_column} table header\n{run.explain()}"
    header = lines[starts[0]].split()
    rows = [dict(zip(header, line.split(), strict=True)) for line in lines[starts[0] + 1 :]]
    return rows


def reset_plan(run: ToolRun) -> list[tuple[str, str, int, int]]:
    """(group, topic, partition, new offset) of ``--reset-offsets``. The 3.9 tool prints its
    table without line breaks between rows, so the words are read four at a time."""
    words = run.stdout.split()
    assert words[:4] == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"], run.explain()
    body = words[4:]
    assert len(body) % 4 == 0, run.explain()
    return sorted(
        (body[i], body[i + 1], int(body[i + 2]), int(body[i + 3])) for i in range(0, len(body), 4)
    )


def offsets_by_partition(run: ToolRun, topic: str) -> dict[int, int]:
    """``topic:partition:offset`` lines of kafka-get-offsets."""
    out = {}
    for line in run.lines:
        name, partition, offset = line.rsplit(":", 2)
        assert name == topic, run.explain()
        out[int(partition)] = int(offset)
    return out


def consumed_records(run: ToolRun) -> list[tuple[int, int, str, str]]:
    """(partition, offset, key, value) printed by kafka-console-consumer with print.partition,
    print.offset and print.key on (fields in that order, tab-separated)."""
    out = []
    for line in run.stdout.splitlines():
        partition, offset, key, value = line.split("\t", 3)
        assert partition.startswith("Partition:") and offset.startswith("Offset:"), line
        partition_no = int(partition.removeprefix("Partition:"))
        out.append((partition_no, int(offset.removeprefix("Offset:")), key, value))
    return out


PRINT_ALL = (
    "--property", "print.partition=true",
    "--property", "print.offset=true",
    "--property", "print.key=true",
)


def console_consume(
    cli: KafkaCli, topic: str, count: int, *options: str
) -> list[tuple[int, int, str, str]]:
    """Exactly ``count`` records through kafka-console-consumer, as :func:`consumed_records`."""
    run = cli.tool(
        "kafka-console-consumer", "--topic", topic,
        "--max-messages", str(count), "--timeout-ms", "30000", *PRINT_ALL, *options,
    )
    assert f"Processed a total of {count} messages" in run.stderr, run.explain()
    return consumed_records(run)


def create_topic(cli: KafkaCli, topic: str, *options: str) -> None:
    run = cli.tool("kafka-topics", "--create", "--topic", topic, *options)
    assert run.lines == [f"Created topic {topic}."], run.explain()


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keyed_topic(cli: KafkaCli) -> str:
    """A three-partition topic holding :data:`KEYED`, written by kafka-console-producer."""
    name = unique("cli-keyed")
    create_topic(cli, name, "--partitions", str(PARTITIONS))
    stdin = "".join(f"{key}\t{value}\n" for key, value in KEYED)
    run = cli.tool(
        "kafka-console-producer", "--topic", name,
        "--property", "parse.key=true", stdin=stdin,
    )
    assert run.stdout.strip(">\n ") == "", run.explain()
    return name


# -- kafka-topics -----------------------------------------------------------------------------


def test_topics_create_list_describe_alter_delete(cli: KafkaCli) -> None:
    defaulted, sized = unique("cli-default"), unique("cli-sized")
    create_topic(cli, defaulted)
    create_topic(cli, sized, "--partitions", "4", "--replication-factor", "1")
    assert {defaulted, sized} <= set(list_topics(cli))

    summary, partitions = describe_topic(cli, sized)
    assert summary["Topic"] == sized
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", summary["TopicId"]), summary
    assert summary["TopicId"] != "AAAAAAAAAAAAAAAAAAAAAA", "the zero UUID is no topic id"
    assert (summary["PartitionCount"], summary["ReplicationFactor"]) == ("4", "1")
    assert [p["Partition"] for p in partitions] == ["0", "1", "2", "3"]
    for p in partitions:
        assert (p["Topic"], p["Leader"], p["Replicas"], p["Isr"]) == (sized, "0", "0", "0"), p

    summary_default, partitions_default = describe_topic(cli, defaulted)
    assert summary_default["PartitionCount"] == str(PARTITIONS), "num.partitions of the broker"
    assert summary_default["ReplicationFactor"] == "1"
    assert len(partitions_default) == PARTITIONS

    cli.tool("kafka-topics", "--alter", "--topic", sized, "--partitions", "6")
    altered, partitions = describe_topic(cli, sized)
    assert altered["TopicId"] == summary["TopicId"]
    assert altered["PartitionCount"] == "6"
    leaders = [(p["Partition"], p["Leader"], p["Isr"]) for p in partitions]
    assert leaders == [(str(i), "0", "0") for i in range(6)]

    cli.tool("kafka-topics", "--delete", "--topic", defaulted)
    remaining = list_topics(cli)
    assert defaulted not in remaining
    assert sized in remaining


# -- console producer and consumer ------------------------------------------------------------


def check_keyed_records(records: list[tuple[int, int, str, str]]) -> None:
    """Everything of :data:`KEYED` once; one partition per key; per partition, offsets from 0
    without gaps and values in the order they were produced."""
    assert Counter((k, v) for _, _, k, v in records) == Counter(KEYED)
    partitions_of_key = defaultdict(set)
    for partition, _, key, _ in records:
        partitions_of_key[key].add(partition)
    assert all(len(ps) == 1 for ps in partitions_of_key.values()), dict(partitions_of_key)
    produce_order = {kv: i for i, kv in enumerate(KEYED)}
    for partition in range(PARTITIONS):
        rows = sorted((o, k, v) for p, o, k, v in records if p == partition)
        assert [o for o, _, _ in rows] == list(range(len(rows))), f"partition {partition}"
        order = [produce_order[(k, v)] for _, k, v in rows]
        assert order == sorted(order), f"partition {partition} out of produce order"


def test_console_consumer_with_group_reads_what_the_producer_sent(
    cli: KafkaCli, keyed_topic: str
) -> None:
    group = unique("cli-console")
    records = console_consume(cli, keyed_topic, len(KEYED), "--from-beginning", "--group", group)
    check_keyed_records(records)


def test_console_consumer_partition_and_offset(cli: KafkaCli, keyed_topic: str) -> None:
    ends = offsets_by_partition(
        cli.tool("kafka-get-offsets", "--topic", keyed_topic), keyed_topic
    )
    partition, end = max(ends.items(), key=lambda item: item[1])
    assert end >= 2

    at = ("--partition", str(partition), "--offset")
    whole = console_consume(cli, keyed_topic, end, *at, "earliest")
    assert [(p, o) for p, o, _, _ in whole] == [(partition, o) for o in range(end)]
    tail = console_consume(cli, keyed_topic, end - 1, *at, "1")
    assert tail == whole[1:]


# -- kafka-consumer-groups --------------------------------------------------------------------


def describe_group(cli: KafkaCli, group: str) -> dict[int, dict[str, str]]:
    run = cli.tool("kafka-consumer-groups", "--describe", "--group", group)
    assert f"Consumer group '{group}' has no active members." in run.stderr, run.explain()
    rows = table(run)
    assert all(row["GROUP"] == group for row in rows), run.explain()
    return {int(row["PARTITION"]): row for row in rows}


def progress(row: dict[str, str]) -> tuple[str, str, str]:
    return row["CURRENT-OFFSET"], row["LOG-END-OFFSET"], row["LAG"]


def test_consumer_groups_list_describe_reset_delete(cli: KafkaCli, keyed_topic: str) -> None:
    group = unique("cli-group")
    records = console_consume(cli, keyed_topic, len(KEYED), "--from-beginning", "--group", group)
    per_partition = Counter(p for p, _, _, _ in records)

    listed = cli.tool("kafka-consumer-groups", "--list")
    assert group in listed.lines

    described = describe_group(cli, group)
    assert sorted(described) == list(range(PARTITIONS))
    for partition, row in described.items():
        count = str(per_partition[partition])
        assert row["TOPIC"] == keyed_topic
        assert progress(row) == (count, count, "0"), row
        assert (row["CONSUMER-ID"], row["HOST"], row["CLIENT-ID"]) == ("-", "-", "-"), row

    reset = cli.tool(
        "kafka-consumer-groups", "--reset-offsets",
        "--to-earliest", "--execute", "--group", group, "--topic", keyed_topic,
    )
    assert reset_plan(reset) == [(group, keyed_topic, p, 0) for p in range(PARTITIONS)]
    for partition, row in describe_group(cli, group).items():
        count = str(per_partition[partition])
        assert progress(row) == ("0", count, count), row

    # the group's consumer starts from the reset positions (no --from-beginning this time)
    again = console_consume(cli, keyed_topic, len(KEYED), "--group", group)
    check_keyed_records(again)

    deleted = cli.tool("kafka-consumer-groups", "--delete", "--group", group)
    expected = f"Deletion of requested consumer groups ('{group}') was successful."
    assert deleted.lines == [expected], deleted.explain()
    listed = cli.tool("kafka-consumer-groups", "--list")
    assert group not in listed.lines


# -- kafka-configs ----------------------------------------------------------------------------

CONFIG_LINE = re.compile(
    r"^  (?P<name>[a-z.]+)=(?P<value>\S*) sensitive=false synonyms=\{(?P<synonyms>.*)\}$"
)


def dynamic_topic_configs(cli: KafkaCli, topic: str) -> dict[str, str]:
    run = cli.tool(
        "kafka-configs", "--describe",
        "--entity-type", "topics", "--entity-name", topic,
    )
    assert run.lines[0] == f"Dynamic configs for topic {topic} are:", run.explain()
    out = {}
    for line in run.lines[1:]:
        m = CONFIG_LINE.match(line)
        assert m, f"unexpected line {line!r}\n{run.explain()}"
        name, value = m["name"], m["value"]
        assert m["synonyms"].startswith(f"DYNAMIC_TOPIC_CONFIG:{name}={value}"), line
        out[name] = value
    return out


def test_configs_describe_and_alter_topic(cli: KafkaCli) -> None:
    name = unique("cli-configs")
    create_topic(cli, name)
    assert dynamic_topic_configs(cli, name) == {}

    altered = cli.tool(
        "kafka-configs", "--alter", "--entity-type", "topics",
        "--entity-name", name, "--add-config", "retention.ms=3600000,cleanup.policy=compact",
    )
    assert altered.lines == [f"Completed updating config for topic {name}."], altered.explain()
    expected = {"retention.ms": "3600000", "cleanup.policy": "compact"}
    assert dynamic_topic_configs(cli, name) == expected

    summary, _ = describe_topic(cli, name)
    assert {"cleanup.policy=compact", "retention.ms=3600000"} <= set(summary["Configs"].split(","))

    cli.tool(
        "kafka-configs", "--alter", "--entity-type", "topics",
        "--entity-name", name, "--delete-config", "cleanup.policy",
    )
    assert dynamic_topic_configs(cli, name) == {"retention.ms": "3600000"}


# -- kafka-get-offsets ------------------------------------------------------------------------


def test_get_offsets(cli: KafkaCli, keyed_topic: str) -> None:
    def offsets(*options: str) -> dict[int, int]:
        run = cli.tool("kafka-get-offsets", "--topic", keyed_topic, *options)
        return offsets_by_partition(run, keyed_topic)

    latest = offsets()
    assert sorted(latest) == list(range(PARTITIONS))
    assert sum(latest.values()) == len(KEYED)
    assert offsets("--time", "-1") == latest
    assert offsets("--time", "-2") == dict.fromkeys(range(PARTITIONS), 0)


# -- perf tests -------------------------------------------------------------------------------

PRODUCER_SUMMARY = re.compile(
    r"(?P<n>\d+) records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency, "
    r"[\d.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\."
)


def test_producer_and_consumer_perf_tests(cli: KafkaCli) -> None:
    name, records, size = unique("cli-perf"), 3000, 200
    create_topic(cli, name, "--partitions", str(PARTITIONS))

    produced = cli.run(
        "kafka-producer-perf-test", "--topic", name, "--num-records", str(records),
        "--record-size", str(size), "--throughput", "-1",
        "--producer-props", f"bootstrap.servers={cli.bootstrap}", "acks=all",
    )
    summary = PRODUCER_SUMMARY.fullmatch(produced.lines[-1])
    assert summary and int(summary["n"]) == records, produced.explain()

    ends = cli.tool("kafka-get-offsets", "--topic", name)
    assert sum(offsets_by_partition(ends, name).values()) == records

    consumed = cli.tool(
        "kafka-consumer-perf-test", "--topic", name,
        "--messages", str(records), "--timeout", "30000",
    )
    header, *rows = consumed.lines
    assert len(rows) == 1, consumed.explain()
    names, values = header.split(","), rows[0].split(",")
    row = {n.strip(): v.strip() for n, v in zip(names, values, strict=True)}
    assert int(row["data.consumed.in.nMsg"]) == records, consumed.explain()
    megabytes = records * size / (1024 * 1024)
    assert float(row["data.consumed.in.MB"]) == pytest.approx(megabytes, abs=1e-4)
