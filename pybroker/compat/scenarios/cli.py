"""Scenarios with Apache Kafka 3.9's command-line tools, run through their main classes.

The assertions read what the tools print (tables, ``Created topic`` lines, the console
consumer's records), as an operator would; each command is a JVM of its own (a second or
two). :mod:`pybroker.compat.jvm_clients` runs them.
"""

from __future__ import annotations

import re
from pathlib import Path

from pybroker.compat.clients import Client, register_client
from pybroker.compat.jvm_clients import KafkaCli, ToolRun, kafka_tools_missing
from pybroker.compat.scenario import Context, scenario

#: available when java runs and the jars are in .cache, not only when java is on PATH
register_client(Client("cli", "Apache Kafka 3.9's command-line tools", kafka_tools_missing))

#: the console consumer prints partition, offset and key before each value (tab-separated)
PRINT_ALL = (
    "--property", "print.partition=true",
    "--property", "print.offset=true",
    "--property", "print.key=true",
)


def _cli(ctx: Context) -> KafkaCli:
    missing = kafka_tools_missing()
    if missing:
        ctx.skip(missing)
    return KafkaCli(ctx.bootstrap)


#: the option by which each tool reads a client properties file
CONFIG_OPTIONS = {"kafka-console-producer": "--producer.config",
                  "kafka-console-consumer": "--consumer.config"}


def _config_file(ctx: Context, tool: str) -> tuple[str, ...]:
    """The tool's option naming a properties file with the run's secured-broker settings, as
    an operator would give it (none for a plaintext run)."""
    props = ctx.security.java_properties()
    if not props:
        return ()
    path = Path("client.properties").resolve()  # the scenario's own working directory
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text("".join(f"{k}={_escape(v)}\n" for k, v in props.items()))
    return (CONFIG_OPTIONS.get(tool, "--command-config"), str(path))


def _escape(value: str) -> str:
    """A value in a Java properties file."""
    return value.replace("\\", "\\\\")


def _tool(ctx: Context, cli: KafkaCli, tool: str, *args: str, stdin: str | None = None) -> ToolRun:
    """Run ``tool`` against the broker; fail the scenario with its output unless it exits 0."""
    run = cli.run_raw(tool, "--bootstrap-server", ctx.bootstrap, *_config_file(ctx, tool),
                      *args, stdin=stdin,
                      timeout=max(1.0, ctx.remaining() - 2))
    if run.returncode != 0:
        ctx.fail(f"{tool} exited {run.returncode}: {said(run)}",
                 command=f"{tool} {' '.join(args)}", stdout=run.stdout[-3000:],
                 stderr=run.stderr[-3000:])
    return run


def said(run: ToolRun) -> str:
    """The line of a tool's output that says what went wrong: the first naming an error or
    exception, else its first line (pure)."""
    lines = [line.strip() for line in (run.stdout + "\n" + run.stderr).splitlines()
             if line.strip()]
    for line in lines:
        if "error" in line.lower() or "exception" in line.lower():
            return line
    return lines[0] if lines else "(it printed nothing)"


def tab_fields(line: str) -> dict[str, str]:
    """``Topic: t<TAB>Partition: 0<TAB>Leader: 0 ...`` (kafka-topics --describe) as a dict."""
    out = {}
    for field in line.strip().split("\t"):
        name, _, value = field.partition(":")
        out[name.strip()] = value.strip()
    return out


def describe_topic(ctx: Context, cli: KafkaCli, topic: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The summary line and the partition lines of ``kafka-topics --describe --topic``."""
    run = _tool(ctx, cli, "kafka-topics", "--describe", "--topic", topic)
    summary = [tab_fields(line) for line in run.lines if not line.startswith("\t")]
    partitions = [tab_fields(line) for line in run.lines if line.startswith("\t")]
    ctx.check(len(summary) == 1, "kafka-topics --describe printed no single summary line",
              stdout=run.stdout)
    return summary[0], partitions


def table(ctx: Context, run: ToolRun, first_column: str) -> list[dict[str, str]]:
    """Rows of a whitespace-aligned table whose header starts with ``first_column``."""
    lines = run.lines
    starts = [i for i, line in enumerate(lines) if line.split()[:1] == [first_column]]
    ctx.check(len(starts) == 1, f"no single {first_column} table header", stdout=run.stdout)
    header = lines[starts[0]].split()
    rows = [dict(zip(header, line.split(), strict=False)) for line in lines[starts[0] + 1:]]
    return rows


def consumed(ctx: Context, run: ToolRun) -> list[tuple[int, int, str, str]]:
    """(partition, offset, key, value) printed by the console consumer with :data:`PRINT_ALL`."""
    out = []
    for line in run.stdout.splitlines():
        fields = line.split("\t", 3)
        ctx.check(len(fields) == 4 and fields[0].startswith("Partition:")
                  and fields[1].startswith("Offset:"),
                  "the console consumer printed an unexpected line", line=line)
        partition, offset, key, value = fields
        out.append((int(partition.removeprefix("Partition:")),
                    int(offset.removeprefix("Offset:")), key, value))
    return out


def topic_configs(run: ToolRun) -> dict[str, str]:
    """The dynamic configs ``kafka-configs --describe`` prints for one topic: lines of
    ``  name=value sensitive=... synonyms={...}`` under ``Dynamic configs for topic T are:``."""
    out = {}
    for line in run.stdout.splitlines():
        match = re.match(r"^\s+([A-Za-z0-9._-]+)=(\S*) sensitive=", line)
        if match:
            out[match.group(1)] = match.group(2)
    return out


def c_has(configs: dict[str, str], name: str, value: str) -> bool:
    """``configs`` holds ``name`` set to ``value``."""
    return configs.get(name) == value


def create_topic(ctx: Context, cli: KafkaCli, topic: str, partitions: int) -> None:
    run = _tool(ctx, cli, "kafka-topics", "--create", "--topic", topic,
                "--partitions", str(partitions), "--replication-factor", "1")
    ctx.check(run.lines == [f"Created topic {topic}."], "kafka-topics --create did not say "
              "it created the topic", stdout=run.stdout)


def produce_keyed(ctx: Context, cli: KafkaCli, topic: str, records: list[tuple[str, str]]) -> None:
    """Write ``records`` (key, value) with kafka-console-producer (parse.key, tab-separated)."""
    stdin = "".join(f"{key}\t{value}\n" for key, value in records)
    run = _tool(ctx, cli, "kafka-console-producer", "--topic", topic,
                "--property", "parse.key=true", "--producer-property", "acks=all", stdin=stdin)
    ctx.check(run.stdout.strip(">\n ") == "", "kafka-console-producer printed more than "
              "its prompts", stdout=run.stdout, stderr=run.stderr[-2000:])


def console_consume(ctx: Context, cli: KafkaCli, topic: str, count: int,
                    *options: str) -> list[tuple[int, int, str, str]]:
    run = _tool(ctx, cli, "kafka-console-consumer", "--topic", topic, "--max-messages",
                str(count), "--timeout-ms", "30000", *PRINT_ALL, *options)
    ctx.check(f"Processed a total of {count} messages" in run.stderr,
              f"the console consumer did not process {count} messages",
              stderr=run.stderr[-2000:])
    return consumed(ctx, run)


@scenario("admin-topics", client="cli", timeout=120)
def topics(ctx: Context) -> None:
    """kafka-topics creates a topic with 2 partitions, lists and describes it, alters it to 3
    partitions and deletes it."""
    cli = _cli(ctx)
    topic = ctx.topic()
    create_topic(ctx, cli, topic, 2)
    listed = _tool(ctx, cli, "kafka-topics", "--list").lines
    ctx.check(topic in listed, "kafka-topics --list does not show the new topic", listed=listed)
    summary, partitions = describe_topic(ctx, cli, topic)
    ctx.evidence("describe", summary)
    ctx.check(summary.get("PartitionCount") == "2" and len(partitions) == 2,
              "kafka-topics --describe does not show 2 partitions", summary=summary,
              partitions=partitions)
    _tool(ctx, cli, "kafka-topics", "--alter", "--topic", topic, "--partitions", "3")
    ctx.wait_until(lambda: describe_topic(ctx, cli, topic)[0].get("PartitionCount") == "3",
                   "kafka-topics --describe showing 3 partitions", timeout=30, interval=0.5)
    _tool(ctx, cli, "kafka-topics", "--delete", "--topic", topic)
    ctx.wait_until(lambda: topic not in _tool(ctx, cli, "kafka-topics", "--list").lines,
                   "the deleted topic leaving kafka-topics --list", timeout=30, interval=0.5)


@scenario("produce-fetch", client="cli", timeout=120)
def console_roundtrip(ctx: Context) -> None:
    """kafka-console-producer writes 20 keyed lines (UTF-8 included); kafka-console-consumer
    --from-beginning prints them back with their keys, partitions and offsets."""
    cli = _cli(ctx)
    topic = ctx.create_topic()
    sent = [(f"key-{i % 4}", f"value {i} ✓" if i % 5 == 0 else f"value-{i}") for i in range(20)]
    produce_keyed(ctx, cli, topic, sent)
    got = console_consume(ctx, cli, topic, len(sent), "--from-beginning")
    expected = [(0, i, k, v) for i, (k, v) in enumerate(sent)]
    ctx.check(got == expected, "the console consumer did not print what was produced",
              expected=expected[:5], printed=got[:5], count=len(got))


@scenario("admin-groups", client="cli", timeout=150)
def consumer_groups(ctx: Context) -> None:
    """A console consumer in a group reads and commits 12 records; kafka-consumer-groups lists
    and describes the group (no lag), resets its offsets to the earliest and deletes it."""
    cli = _cli(ctx)
    topic, group = ctx.create_topic(partitions=2), ctx.group()
    produce_keyed(ctx, cli, topic, [(f"k{i}", f"v{i}") for i in range(12)])
    console_consume(ctx, cli, topic, 12, "--group", group, "--from-beginning")
    listed = _tool(ctx, cli, "kafka-consumer-groups", "--list").lines
    ctx.check(group in listed, "kafka-consumer-groups --list does not show the group",
              listed=listed)

    def described() -> list[dict[str, str]]:
        run = _tool(ctx, cli, "kafka-consumer-groups", "--describe", "--group", group)
        return table(ctx, run, "GROUP")

    rows = described()
    ctx.evidence("describe", rows)
    ctx.check(sorted(r.get("PARTITION", "") for r in rows) == ["0", "1"]
              and all(r.get("TOPIC") == topic for r in rows),
              "the group is not described with the topic's 2 partitions", rows=rows)
    ctx.check(sum(int(r["CURRENT-OFFSET"]) for r in rows) == 12
              and all(r.get("LAG") == "0" for r in rows),
              "the committed offsets do not cover the 12 records (lag should be 0)", rows=rows)
    run = _tool(ctx, cli, "kafka-consumer-groups", "--reset-offsets", "--group", group,
                "--topic", topic, "--to-earliest", "--execute")
    words = run.stdout.split()
    ctx.check(words[:4] == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"],
              f"--reset-offsets printed no plan: {said(run)}", stdout=run.stdout)
    rows = described()
    ctx.check(all(r.get("CURRENT-OFFSET") == "0" for r in rows),
              "the reset did not move the committed offsets to 0", rows=rows)
    deleted = _tool(ctx, cli, "kafka-consumer-groups", "--delete", "--group", group)
    ctx.check(any("Deletion of requested consumer groups" in line and "successful" in line
                  for line in deleted.lines), "--delete did not report a successful deletion",
              stdout=deleted.stdout)
    listed = _tool(ctx, cli, "kafka-consumer-groups", "--list").lines
    ctx.check(group not in listed, "the deleted group is still listed", listed=listed)


@scenario("admin-configs", client="cli", timeout=120)
def configs(ctx: Context) -> None:
    """kafka-configs adds retention.ms and cleanup.policy to a topic, describes them, deletes
    one and describes the topic again."""
    cli = _cli(ctx)
    topic = ctx.create_topic()
    entity = ("--entity-type", "topics", "--entity-name", topic)
    _tool(ctx, cli, "kafka-configs", "--alter", *entity,
          "--add-config", "retention.ms=3600000,cleanup.policy=compact")

    def dynamic_configs() -> dict[str, str]:
        run = _tool(ctx, cli, "kafka-configs", "--describe", *entity)
        return topic_configs(run)

    def with_retention() -> dict[str, str]:
        shown = dynamic_configs()
        return shown if c_has(shown, "retention.ms", "3600000") else {}

    def without_retention() -> tuple[dict[str, str]] | None:
        shown = dynamic_configs()
        return None if "retention.ms" in shown else (shown,)

    shown = ctx.wait_until(with_retention, "kafka-configs --describe showing "
                           "retention.ms=3600000", timeout=30, interval=0.5)
    ctx.evidence("describe", shown)
    ctx.check(c_has(shown, "cleanup.policy", "compact"), "cleanup.policy=compact is not "
              "described", configs=shown)
    _tool(ctx, cli, "kafka-configs", "--alter", *entity, "--delete-config", "retention.ms")
    (after,) = ctx.wait_until(without_retention, "retention.ms leaving kafka-configs "
                              "--describe", timeout=30, interval=0.5)
    ctx.check(after == {"cleanup.policy": "compact"}, "after deleting retention.ms the topic "
              "should keep cleanup.policy=compact alone", configs=after)
