"""Apache Kafka 3.9's command-line tools, side by side: pybroker against Apache Kafka itself.

Every command runs twice, once against a pybroker and once against the reference Kafka
(pybroker/testing/reference_kafka.py: Kafka 3.9.1 with ZooKeeper, from the same Maven jars as
the tools), with the same topic and group names, and what the two runs printed must be the same:
the exit code, stdout, and the tool's own messages on stderr (lines it prints itself, and log
records of the tool's own classes; the client library's log records are timing-dependent and not
compared, nor are stack frames).

Only what differs by nature is normalised, identically on both sides (see :func:`normalise`):
the bootstrap address, topic ids, member ids (``console-consumer-<uuid>``), generated client-id
suffixes, the ``/127.0.0.1`` host, record timestamps, and the test's unique name prefix (``T``).
Some outputs are viewed in a form that keeps what they say and drops what is timing or layout:
kafka-consumer-groups pads its columns to the widest value, so its rows are compared as tokens;
kafka-console-consumer interleaves partitions as fetches arrive, so its lines are ordered by
partition (keeping each partition's order); the perf tools' timings and rates are masked and
their structure and record counts compared; listings of every topic or group keep only this
test's names (the reference Kafka is shared by the session).

A difference that is known and not yet fixed is listed in :data:`EXPECTED_DIFFERENCES` with the
exact lines each side prints and the reason; the comparison removes those lines and compares the
rest. An entry that no longer matches what the brokers print fails the test, so the list stays
true. On a mismatch the test prints a unified diff per command (``pybroker`` against ``kafka``).
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from protocol.messages import alter_configs_request as ac
from pybroker.testing.broker_process import REPO_ROOT, BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.wire_client import WireClient
from tests.compat.cli.conftest import JVM_FLAGS, MAIN_CLASSES, KafkaCli, ToolRun
from tests.conftest import REFERENCE_OVERRIDES

pytestmark = pytest.mark.compat

TIMEOUT = 120.0


# -- expected differences -----------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """Lines (of the normalised transcript, see :meth:`SideBySide.run`) that only pybroker
    prints and lines that only Kafka prints, for one command, and why."""

    pybroker: tuple[str, ...]
    kafka: tuple[str, ...]
    reason: str


#: (test function, command label) -> the differences that command shows and why; a label is the
#: normalised command line without the bootstrap option, with `` #n`` for its n-th run in a test.
#: An entry reads, for instance::
#:
#:     ("test_kafka_configs",
#:      "kafka-configs --alter --entity-type topics --entity-name T-topic "
#:      "--add-config retention.ms=abc"): [
#:         Expected(
#:             pybroker=("java.util.concurrent.ExecutionException: org.apache.kafka.common."
#:                       "errors.InvalidConfigurationException: <pybroker's text>", ...),
#:             kafka=("java.util.concurrent.ExecutionException: org.apache.kafka.common."
#:                    "errors.InvalidConfigurationException: <Kafka's text>", ...),
#:             reason="why they differ, and who is changing it",
#:         ),
#:     ],
#:
#: None is known today: every command below prints what it prints against Apache Kafka.
EXPECTED_DIFFERENCES: dict[tuple[str, str], list[Expected]] = {}


# -- normalising --------------------------------------------------------------------------------

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

#: (pattern, replacement) applied to everything both sides print, in this order
MASKS: list[tuple[re.Pattern[str], str]] = [
    # kafka-topics --describe: a topic id is the broker's own random UUID
    # (base64url: an id may start or end with - or _, so no \b around it)
    (re.compile(r"\bTopicId: [A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])"), "TopicId: <topic-id>"),
    (re.compile(r"\b(ClusterId|clusterId|cluster\.id)(: ?|=)[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])"),
     r"\1\2<cluster-id>"),
    # member ids: <client id>-<UUID> (console-consumer-1b2f...-...)
    (re.compile(UUID), "<uuid>"),
    # generated client ids (consumer-<group>-<n>, producer-<n>, adminclient-<n>) and the
    # console consumer's generated group (console-consumer-<n>)
    (re.compile(r"\b((?:consumer-\S+?)|producer|adminclient|console-consumer|perf-consumer)-\d+\b"),
     r"\1-<n>"),
    (re.compile(r"/127\.0\.0\.1\b"), "/<host>"),
    # record timestamps printed by kafka-console-consumer --property print.timestamp=true
    (re.compile(r"\b(CreateTime|LogAppendTime):\d+"), r"\1:<timestamp>"),
]

LOG4J_START = re.compile(
    r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (?P<level>TRACE|DEBUG|INFO|WARN|ERROR|FATAL) "
)
LOG4J_END = re.compile(r" \((?P<logger>[A-Za-z_$][\w$]*(?:\.[\w$]+)+)\)$")
STACK_FRAME = re.compile(r"^\s+(at |\.\.\. \d+ more)")
#: the lines log4j prints after a record for the exception logged with it
THROWABLE = re.compile(r"^(Caused by: |\s+(at |\.\.\. \d+ more)|([a-z_$][\w$]*\.)+[A-Z][\w$]*(:|$))")
#: the loggers of the tools' own classes, whose records are part of what a tool prints
TOOL_LOGGERS = ("org.apache.kafka.tools.", "kafka.tools.", "kafka.admin.")


def normalise(text: str, base: str, bootstrap: str) -> str:
    text = text.replace(bootstrap, "<bootstrap>").replace(base, "T")
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def tool_messages(stderr: str) -> list[str]:
    """What the tool itself wrote to stderr: its own lines, and the log records of its own
    classes (without the timestamp); no stack frames, no client-library log records."""
    lines = stderr.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        start = LOG4J_START.match(lines[i])
        if start is None:
            if not STACK_FRAME.match(lines[i]):
                out.append(lines[i])
            i += 1
            continue
        j = i  # the record's last line, which ends with its logger
        while j + 1 < len(lines) and not LOG4J_END.search(lines[j]):
            j += 1
        end = LOG4J_END.search(lines[j])
        k = j  # then the exception logged with it, if any
        while k + 1 < len(lines) and THROWABLE.match(lines[k + 1]):
            k += 1
        if end is not None and end["logger"].startswith(TOOL_LOGGERS):
            record = [lines[i][start.start("level"):], *lines[i + 1 : k + 1]]
            out.extend(line for line in record if not STACK_FRAME.match(line))
        i = k + 1
    return out


# -- views: what of stdout is compared ----------------------------------------------------------

View = Callable[[list[str]], list[str]]


def tokens(lines: list[str]) -> list[str]:
    """Rows as whitespace-separated tokens (kafka-consumer-groups pads columns to the widest
    value, so the widths depend on the ids, ports and names)."""
    return [" ".join(line.split()) for line in lines]


def reset_rows(lines: list[str]) -> list[str]:
    """``--reset-offsets``: the 3.9 tool prints its table without line breaks between rows,
    so the tokens are read four at a time."""
    words = " ".join(lines).split()
    return [" ".join(words[i : i + 4]) for i in range(0, len(words), 4)]


def mentioning(*names: str) -> View:
    """Only the lines that name one of ``names`` (as normalised: ``T-...``)."""

    def view(lines: list[str]) -> list[str]:
        return [line for line in lines if any(re.search(rf"\b{re.escape(n)}\b", line)
                                              for n in names)]

    return view


def by_topic(view: View) -> View:
    """``view``, with kafka-topics --describe's topics in name order (each topic's own lines
    kept in their order). The tool prints the topics in the order of a Java HashMap whose size is
    the number of topics on the broker, so the two brokers, holding different other topics, may
    print ours in different orders: that order is not the broker's to decide."""

    def sorted_view(lines: list[str]) -> list[str]:
        picked = view(lines)
        named = [(m.group(1) if (m := re.search(r"Topic: (\S+)", line)) else "", i)
                 for i, line in enumerate(picked)]
        return [picked[i] for _, i in sorted(named)]

    return sorted_view


def own_names(lines: list[str]) -> list[str]:
    """A listing (kafka-topics --list, kafka-consumer-groups --list) cut to this test's names,
    keeping a table header (``GROUP  STATE``) as tokens."""
    return [" ".join(line.split()) for line in lines
            if line.startswith("T-") or line.split()[:1] == ["GROUP"]]


PARTITION_FIELD = re.compile(r"(?:^|\t)Partition:(\d+)(?:\t|$)")


def by_partition(lines: list[str]) -> list[str]:
    """Console-consumer lines ordered by their ``Partition:`` field, each partition's lines in
    the order they were printed (the interleaving of partitions depends on fetch timing)."""

    def partition(line: str) -> int:
        m = PARTITION_FIELD.search(line)
        return int(m[1]) if m else -1

    return sorted(lines, key=partition)


PRODUCER_SUMMARY = re.compile(
    r"^(\d+) records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency, "
    r"[\d.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.$"
)


def producer_perf(lines: list[str]) -> list[str]:
    """kafka-producer-perf-test: the final summary with its numbers masked except the count
    (the progress lines it prints every five seconds depend on the machine's speed)."""
    out = []
    for line in lines:
        m = PRODUCER_SUMMARY.match(line)
        if m:
            out.append(
                f"{m[1]} records sent, <n> records/sec (<n> MB/sec), <n> ms avg latency, "
                "<n> ms max latency, <n> ms 50th, <n> ms 95th, <n> ms 99th, <n> ms 99.9th."
            )
        elif " records sent, " not in line:
            out.append(line)
    return out


#: kafka-consumer-perf-test columns compared by value; the rest are times and rates
CONSUMER_PERF_KEPT = {"data.consumed.in.MB", "data.consumed.in.nMsg"}


def consumer_perf(lines: list[str]) -> list[str]:
    """kafka-consumer-perf-test: the CSV header, and each row with timings and rates masked."""
    if not lines:
        return lines
    header = [c.strip() for c in lines[0].split(",")]
    out = [lines[0]]
    for line in lines[1:]:
        values = [v.strip() for v in line.split(",")]
        if len(values) != len(header):
            out.append(line)
            continue
        out.append(", ".join(v if h in CONSUMER_PERF_KEPT else "<n>"
                             for h, v in zip(header, values, strict=True)))
    return out


# -- running both -------------------------------------------------------------------------------


def transcript(run: ToolRun, base: str, bootstrap: str, view: View | None) -> list[str]:
    """What is compared of one run: exit code, stdout (through ``view``), the tool's messages."""
    stdout = normalise(run.stdout, base, bootstrap).splitlines()
    if view is not None:
        stdout = view(stdout)
    stderr = tool_messages(normalise(run.stderr, base, bootstrap))
    return [f"exit code {run.returncode}", "--- stdout", *stdout, "--- stderr", *stderr]


@dataclass
class Background:
    """A tool left running (a console consumer in a group) on each broker."""

    label: str
    procs: dict[str, subprocess.Popen[str]]
    args: list[str]


@dataclass
class SideBySide:
    """Runs each command against both brokers and collects what differs."""

    pybroker: KafkaCli
    kafka: KafkaCli
    base: str
    test: str
    problems: list[str] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    applied: set[str] = field(default_factory=set)

    @property
    def sides(self) -> dict[str, KafkaCli]:
        return {"pybroker": self.pybroker, "kafka": self.kafka}

    def name(self, suffix: str) -> str:
        """A topic or group name of this test, the same on both brokers."""
        return f"{self.base}-{suffix}"

    def mentioning(self, *names: str) -> View:
        """A view of the lines that name one of ``names`` (of this test)."""
        return mentioning(*(n.replace(self.base, "T") for n in names))

    def _args(self, cli: KafkaCli, args: tuple[str, ...], bootstrap: bool) -> list[str]:
        out = [a.replace("{bootstrap}", cli.bootstrap) for a in args]
        return ["--bootstrap-server", cli.bootstrap, *out] if bootstrap else out

    def _label(self, tool: str, args: tuple[str, ...], label: str | None) -> str:
        text = label or " ".join([tool, *args]).replace("{bootstrap}", "<bootstrap>")
        text = normalise(text, self.base, "<bootstrap>")
        self.labels[text] = self.labels.get(text, 0) + 1
        count = self.labels[text]
        return text if count == 1 else f"{text} #{count}"

    def run(
        self,
        tool: str,
        *args: str,
        stdin: str | None = None,
        view: View | None = None,
        bootstrap: bool = True,
        label: str | None = None,
        timeout: float = TIMEOUT,
    ) -> dict[str, ToolRun]:
        """Run ``tool`` with ``args`` on both brokers (``--bootstrap-server`` first unless
        ``bootstrap`` is false; ``{bootstrap}`` in an argument is the broker's address) and
        compare. Returns each side's run."""
        label = self._label(tool, args, label)

        def one(cli: KafkaCli) -> ToolRun:
            return cli.run_raw(tool, *self._args(cli, args, bootstrap), stdin=stdin,
                               timeout=timeout)

        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {side: pool.submit(one, cli) for side, cli in self.sides.items()}
            runs = {side: f.result() for side, f in futures.items()}
        self.compare(label, runs, view)
        return runs

    def compare(self, label: str, runs: dict[str, ToolRun], view: View | None) -> None:
        ours, theirs = (
            transcript(runs[side], self.base, cli.bootstrap, view)
            for side, cli in self.sides.items()
        )
        for expected in EXPECTED_DIFFERENCES.get((self.test, label), []):
            self.applied.add(label)
            missing = [f"pybroker: {line!r}" for line in expected.pybroker if line not in ours]
            missing += [f"kafka: {line!r}" for line in expected.kafka if line not in theirs]
            if missing:
                self.problems.append(
                    f"$ {label}\nan expected difference no longer occurs (update "
                    f"EXPECTED_DIFFERENCES): {expected.reason}\n  not printed: "
                    + "\n  not printed: ".join(missing)
                )
                continue
            for line in expected.pybroker:
                ours.remove(line)
            for line in expected.kafka:
                theirs.remove(line)
        if ours != theirs:
            diff = difflib.unified_diff(ours, theirs, "pybroker", "kafka", lineterm="")
            self.problems.append(f"$ {label}\n" + "\n".join(diff))

    def background(self, tool: str, *args: str) -> Background:
        """Start ``tool`` on both brokers and leave it running (see :meth:`stop`)."""
        label = self._label(tool, args, None)
        procs = {}
        for side, cli in self.sides.items():
            cmd = [
                shutil.which("java") or "java", *JVM_FLAGS, "-cp", f"{cli.lib}/*",
                MAIN_CLASSES[tool], *self._args(cli, args, True),
            ]
            procs[side] = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", cwd=REPO_ROOT,
            )
        return Background(label, procs, list(args))

    def stop(self, bg: Background, view: View | None = None) -> None:
        """SIGTERM both (the tools' shutdown hooks close their clients), then compare."""
        runs = {}
        for proc in bg.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for side, proc in bg.procs.items():
            try:
                out, err = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate(timeout=10)
            runs[side] = ToolRun(bg.label, bg.args, proc.returncode, out, err)
        self.compare(bg.label, runs, view)

    def until(
        self, what: str, ready: Callable[[ToolRun], bool], tool: str, *args: str,
        timeout: float = 90.0,
    ) -> None:
        """Repeat ``tool`` (not compared) on each broker until ``ready`` holds for its run."""
        for side, cli in self.sides.items():
            deadline = time.monotonic() + timeout
            while True:
                run = cli.run_raw(tool, *self._args(cli, args, True), timeout=TIMEOUT)
                if ready(run):
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(f"{side}: {what} not within {timeout:.0f}s\n"
                                         + run.explain())
                time.sleep(0.5)

    def check(self) -> None:
        """Fail with every difference seen, and with expected differences that never ran."""
        unused = [
            f"{label!r}" for (test, label) in EXPECTED_DIFFERENCES
            if test == self.test and label not in self.applied
        ]
        problems = list(self.problems)
        if unused:
            problems.append(
                "EXPECTED_DIFFERENCES names commands this test did not run: " + ", ".join(unused)
            )
        assert not problems, (
            f"{len(problems)} command(s) printed differently on pybroker and on Apache Kafka "
            "(T is this test's name prefix):\n\n" + "\n\n".join(problems)
        )


# -- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def side_by_side_broker(
    kafka_tools_lib: Path, reference_kafka: ReferenceKafka,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[BrokerProcess]:
    """A pybroker configured as the reference Kafka is: no config file, Kafka's defaults plus
    the same overrides."""
    base = tmp_path_factory.mktemp("cli-side-by-side")
    broker = BrokerProcess(base / "kafka-logs", overrides=REFERENCE_OVERRIDES, config=None)
    try:
        yield broker.start()
    finally:
        broker.stop()


@pytest.fixture
def sbs(
    request: pytest.FixtureRequest, kafka_tools_lib: Path,
    side_by_side_broker: BrokerProcess, reference_kafka: ReferenceKafka,
) -> SideBySide:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", request.node.name).strip("-")[:80]
    return SideBySide(
        KafkaCli(side_by_side_broker.bootstrap, kafka_tools_lib),
        KafkaCli(reference_kafka.bootstrap, kafka_tools_lib),
        base=f"{stem}-{uuid.uuid4().hex[:8]}",
        test=request.node.originalname,
    )


# -- helpers ------------------------------------------------------------------------------------

KEYED = [(f"key-{i % 7}", f"value {i} ✓" if i % 5 == 0 else f"value-{i}") for i in range(30)]


def keyed_input(records: list[tuple[str, str]]) -> str:
    return "".join(f"{key}\t{value}\n" for key, value in records)


def produce_keyed(sbs: SideBySide, topic: str, records: list[tuple[str, str]]) -> None:
    sbs.run("kafka-console-producer", "--topic", topic, "--property", "parse.key=true",
            stdin=keyed_input(records))


def end_offsets(run: ToolRun) -> dict[int, int]:
    """``topic:partition:offset`` lines of kafka-get-offsets."""
    out = {}
    for line in run.stdout.splitlines():
        if line.strip():
            _, partition, offset = line.rsplit(":", 2)
            out[int(partition)] = int(offset)
    return out


def group_rows(run: ToolRun) -> list[list[str]]:
    """The rows of a kafka-consumer-groups table, as tokens (without the header)."""
    rows = [line.split() for line in run.stdout.splitlines() if line.strip()]
    return [row for row in rows if row[0] != "GROUP"]


# -- kafka-topics -------------------------------------------------------------------------------


def test_kafka_topics(sbs: SideBySide) -> None:
    plain, sized, tuned = sbs.name("plain"), sbs.name("sized"), sbs.name("tuned")
    placed, strict = sbs.name("placed"), sbs.name("strict")
    ours = by_topic(sbs.mentioning(plain, sized, tuned, placed, strict))
    # --create without and with --partitions/--replication-factor, and with config overrides
    sbs.run("kafka-topics", "--create", "--topic", plain)
    sbs.run("kafka-topics", "--create", "--topic", sized, "--partitions", "3",
            "--replication-factor", "1")
    sbs.run("kafka-topics", "--create", "--topic", tuned, "--partitions", "2",
            "--config", "retention.ms=3600000", "--config", "cleanup.policy=compact")
    sbs.run("kafka-topics", "--create", "--topic", placed, "--replica-assignment", "0,0,0")
    # min.insync.replicas above the replication factor is accepted (and counts as 1)
    sbs.run("kafka-topics", "--create", "--topic", strict, "--config", "min.insync.replicas=2")
    # refused creations: an existing topic, too many replicas, no partitions, a bad name, a
    # config value of the wrong type, an unknown config
    sbs.run("kafka-topics", "--create", "--topic", plain)
    sbs.run("kafka-topics", "--create", "--if-not-exists", "--topic", plain)
    sbs.run("kafka-topics", "--create", "--topic", sbs.name("wide"), "--replication-factor", "3")
    sbs.run("kafka-topics", "--create", "--topic", sbs.name("empty"), "--partitions", "0")
    sbs.run("kafka-topics", "--create", "--topic", sbs.name("bad name!"))
    sbs.run("kafka-topics", "--create", "--topic", sbs.name("typed"),
            "--config", "retention.ms=abc")
    sbs.run("kafka-topics", "--create", "--topic", sbs.name("unknown"),
            "--config", "no.such.config=1")

    sbs.run("kafka-topics", "--list", view=own_names)
    sbs.run("kafka-topics", "--list", "--topic", f"{sbs.base}-.*")
    sbs.run("kafka-topics", "--describe", "--topic", sized)
    sbs.run("kafka-topics", "--describe", "--topic", f"{sbs.base}-.*")
    sbs.run("kafka-topics", "--describe", view=ours)
    sbs.run("kafka-topics", "--describe", "--under-replicated-partitions", view=ours)
    sbs.run("kafka-topics", "--describe", "--under-min-isr-partitions", view=ours)
    sbs.run("kafka-topics", "--describe", "--at-min-isr-partitions", view=ours)
    sbs.run("kafka-topics", "--describe", "--unavailable-partitions", view=ours)
    sbs.run("kafka-topics", "--describe", "--topics-with-overrides", view=ours)
    sbs.run("kafka-topics", "--describe", "--topic", f"{sbs.base}-.*", "--topics-with-overrides")

    # --alter --partitions: an increase, a decrease and the same count are refused
    sbs.run("kafka-topics", "--alter", "--topic", sized, "--partitions", "5")
    sbs.run("kafka-topics", "--describe", "--topic", sized)
    sbs.run("kafka-topics", "--alter", "--topic", sized, "--partitions", "2")
    sbs.run("kafka-topics", "--alter", "--topic", sized, "--partitions", "5")
    sbs.run("kafka-topics", "--alter", "--topic", sbs.name("missing"), "--partitions", "5")
    sbs.run("kafka-topics", "--alter", "--if-exists", "--topic", sbs.name("missing"),
            "--partitions", "5")

    # --delete, then the topic is gone; deleting or describing it again fails
    sbs.run("kafka-topics", "--delete", "--topic", plain)
    sbs.until("topic deleted", lambda r: plain not in r.stdout.split(),
              "kafka-topics", "--list")
    sbs.run("kafka-topics", "--list", view=own_names)
    sbs.run("kafka-topics", "--describe", "--topic", plain)
    sbs.run("kafka-topics", "--delete", "--topic", plain)
    sbs.check()


# -- console producer and consumer --------------------------------------------------------------


@pytest.mark.long  # make test-long: CI keeps kafka-topics, kafka-configs, perf
def test_console_producer_and_consumer(sbs: SideBySide) -> None:
    topic, single = sbs.name("keyed"), sbs.name("single")
    headed, strict = sbs.name("headed"), sbs.name("strict")
    sbs.run("kafka-topics", "--create", "--topic", topic, "--partitions", "3")
    sbs.run("kafka-topics", "--create", "--topic", single)
    sbs.run("kafka-topics", "--create", "--topic", headed, "--partitions", "2")
    sbs.run("kafka-topics", "--create", "--topic", strict, "--config", "min.insync.replicas=2")
    produce_keyed(sbs, topic, KEYED)
    # no keys, one partition: the order of the values is the order they were sent
    sbs.run("kafka-console-producer", "--topic", single,
            stdin="".join(f"line {i}\n" for i in range(12)))

    everything = (
        "--property", "print.key=true", "--property", "print.partition=true",
        "--property", "print.offset=true", "--property", "print.timestamp=true",
        "--property", "print.headers=true",
    )
    count = str(len(KEYED))
    sbs.run("kafka-console-consumer", "--topic", topic, "--from-beginning",
            "--max-messages", count, "--timeout-ms", "30000", *everything, view=by_partition)
    sbs.run("kafka-console-consumer", "--topic", single, "--from-beginning",
            "--max-messages", "12", "--timeout-ms", "30000")
    sbs.run("kafka-console-consumer", "--topic", topic, "--from-beginning", "--group",
            sbs.name("group"), "--max-messages", count, "--timeout-ms", "30000",
            "--property", "print.partition=true", "--property", "print.key=true",
            "--property", "key.separator= => ", view=by_partition)

    # headers (parse.headers: ``key:value,...<TAB>key<TAB>value``), in each compression codec
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        sbs.run("kafka-console-producer", "--topic", headed, "--compression-codec", codec,
                "--property", "parse.key=true", "--property", "parse.headers=true",
                stdin=f"h1:{codec},h2:✓\tkey-1\tvalue {codec}\nempty:\tkey-2\tsecond {codec}\n")
    sbs.run("kafka-console-consumer", "--topic", headed, "--from-beginning",
            "--max-messages", "8", "--timeout-ms", "30000", *everything, view=by_partition)
    # acks=all (the console producer's default) to a topic whose min.insync.replicas is
    # above its replication factor
    sbs.run("kafka-console-producer", "--topic", strict, "--request-required-acks", "all",
            stdin="one\ntwo\n")
    sbs.run("kafka-get-offsets", "--topic", strict)

    ends = end_offsets(sbs.run("kafka-get-offsets", "--topic", topic)["pybroker"])
    partition, end = max(ends.items(), key=lambda item: item[1])
    at = ("--partition", str(partition), "--offset")
    shown = ("--property", "print.offset=true", "--property", "print.key=true")
    sbs.run("kafka-console-consumer", "--topic", topic, *at, "earliest",
            "--max-messages", str(end), "--timeout-ms", "30000", *shown)
    sbs.run("kafka-console-consumer", "--topic", topic, *at, "2",
            "--max-messages", str(end - 2), "--timeout-ms", "30000", *shown)
    sbs.run("kafka-console-consumer", "--topic", single, "--partition", "0", "--offset", "10",
            "--max-messages", "2", "--timeout-ms", "30000")
    sbs.check()


# -- kafka-consumer-groups ----------------------------------------------------------------------


@pytest.mark.long  # make test-long: CI keeps kafka-topics, kafka-configs, perf
def test_kafka_consumer_groups(sbs: SideBySide) -> None:
    topic, group = sbs.name("topic"), sbs.name("group")
    sbs.run("kafka-topics", "--create", "--topic", topic, "--partitions", "3")
    produce_keyed(sbs, topic, KEYED)
    # a consumer that reads everything, commits on close and leaves the group
    sbs.run("kafka-console-consumer", "--topic", topic, "--group", group, "--from-beginning",
            "--max-messages", str(len(KEYED)), "--timeout-ms", "30000",
            "--property", "print.partition=true", view=by_partition)

    sbs.run("kafka-consumer-groups", "--list", view=own_names)
    sbs.run("kafka-consumer-groups", "--list", "--state", view=own_names)
    sbs.run("kafka-consumer-groups", "--list", "--state", "Empty", view=own_names)
    sbs.run("kafka-consumer-groups", "--list", "--type", view=own_names)
    describe = ("kafka-consumer-groups", "--describe", "--group", group)
    sbs.run(*describe, view=tokens)
    sbs.run(*describe, "--offsets", "--verbose", view=tokens)
    sbs.run(*describe, "--members", view=tokens)
    sbs.run(*describe, "--members", "--verbose", view=tokens)
    sbs.run(*describe, "--state", view=tokens)
    sbs.run(*describe, "--state", "--verbose", view=tokens)
    sbs.run("kafka-consumer-groups", "--describe", "--group", sbs.name("nobody"), view=tokens)

    reset = ("kafka-consumer-groups", "--reset-offsets", "--group", group, "--topic", topic)
    sbs.run(*reset, "--to-earliest", "--dry-run", view=reset_rows)
    sbs.run(*describe, view=tokens)
    sbs.run(*reset, "--to-earliest", "--execute", view=reset_rows)
    sbs.run(*describe, view=tokens)
    sbs.run(*reset, "--to-offset", "4", "--execute", view=reset_rows)
    sbs.run(*describe, view=tokens)
    sbs.run("kafka-consumer-groups", "--reset-offsets", "--group", group,
            "--topic", f"{topic}:0,2", "--shift-by", "-1", "--execute", view=reset_rows)
    sbs.run(*describe, view=tokens)
    sbs.run(*reset, "--to-latest", "--dry-run", view=reset_rows)
    sbs.run(*reset, "--to-current", "--dry-run", view=reset_rows)
    sbs.run(*reset, "--to-datetime", "2000-01-01T00:00:00.000", "--dry-run", view=reset_rows)
    sbs.run(*reset, "--to-offset", "1", view=reset_rows)  # neither --dry-run nor --execute

    # the group's consumer starts where the offsets were reset to, and reads all the lag (all,
    # so that which records it prints does not depend on how fetches interleave partitions)
    lag = sum(int(row[5]) for row in group_rows(sbs.run(*describe, view=tokens)["pybroker"]))
    assert lag > 0
    sbs.run("kafka-console-consumer", "--topic", topic, "--group", group,
            "--max-messages", str(lag), "--timeout-ms", "30000",
            "--property", "print.partition=true", "--property", "print.offset=true",
            view=by_partition)
    sbs.run(*describe, view=tokens)
    # offsets of one partition, and of a topic the group has none of
    sbs.run("kafka-consumer-groups", "--delete-offsets", "--group", group,
            "--topic", f"{topic}:1", view=tokens)
    sbs.run(*describe, view=tokens)
    sbs.run("kafka-consumer-groups", "--delete-offsets", "--group", group,
            "--topic", sbs.name("missing"), view=tokens)

    sbs.run("kafka-consumer-groups", "--delete", "--group", group)
    sbs.run("kafka-consumer-groups", "--list", view=own_names)
    sbs.run(*describe, view=tokens)
    sbs.run("kafka-consumer-groups", "--delete", "--group", group)
    # the offsets topic the groups live in
    sbs.run("kafka-topics", "--describe", "--topic", "__consumer_offsets")
    sbs.check()


@pytest.mark.long  # make test-long: CI keeps kafka-topics, kafka-configs, perf
def test_kafka_consumer_groups_with_an_active_member(sbs: SideBySide) -> None:
    topic, group = sbs.name("topic"), sbs.name("live")
    sbs.run("kafka-topics", "--create", "--topic", topic, "--partitions", "3")
    produce_keyed(sbs, topic, KEYED)
    # no auto commit, so that the committed offsets do not depend on how long this takes
    live = sbs.background(
        "kafka-console-consumer", "--topic", topic, "--group", group, "--timeout-ms", "120000",
        "--consumer-property", "enable.auto.commit=false",
    )
    try:
        sbs.until("one stable member", lambda r: re.search(r"\bStable\s+1\s*$", r.stdout, re.M)
                  is not None, "kafka-consumer-groups", "--describe", "--group", group, "--state")
        describe = ("kafka-consumer-groups", "--describe", "--group", group)
        sbs.run(*describe, view=tokens)
        sbs.run(*describe, "--members", view=tokens)
        sbs.run(*describe, "--members", "--verbose", view=tokens)
        sbs.run(*describe, "--state", view=tokens)
        # an active group's offsets cannot be reset, nor can the group be deleted
        sbs.run("kafka-consumer-groups", "--reset-offsets", "--group", group, "--topic", topic,
                "--to-earliest", "--execute", view=reset_rows)
        sbs.run("kafka-consumer-groups", "--delete", "--group", group)
        sbs.run("kafka-consumer-groups", "--delete-offsets", "--group", group,
                "--topic", topic, view=tokens)
    finally:
        sbs.stop(live)
    sbs.until("the member gone", lambda r: re.search(r"\bEmpty\s+0\s*$", r.stdout, re.M)
              is not None, "kafka-consumer-groups", "--describe", "--group", group, "--state")
    sbs.run("kafka-consumer-groups", "--describe", "--group", group, "--state", view=tokens)
    sbs.check()


# -- kafka-configs ------------------------------------------------------------------------------


def test_kafka_configs(sbs: SideBySide) -> None:
    topic = sbs.name("topic")
    sbs.run("kafka-topics", "--create", "--topic", topic)
    entity = ("--entity-type", "topics", "--entity-name", topic)
    sbs.run("kafka-configs", "--describe", *entity)
    sbs.run("kafka-configs", "--alter", *entity,
            "--add-config", "retention.ms=3600000,cleanup.policy=compact,max.message.bytes=2000")
    sbs.run("kafka-configs", "--describe", *entity)
    sbs.run("kafka-topics", "--describe", "--topic", topic, "--topics-with-overrides")
    sbs.run("kafka-configs", "--describe", "--all", *entity)
    sbs.run("kafka-configs", "--alter", *entity, "--delete-config", "cleanup.policy")
    sbs.run("kafka-configs", "--describe", *entity)
    sbs.run("kafka-configs", "--alter", *entity,
            "--add-config", "segment.ms=86400000,cleanup.policy=[compact,delete]")
    sbs.run("kafka-configs", "--describe", *entity)
    sbs.run("kafka-configs", "--alter", *entity, "--delete-config", "cleanup.policy,segment.ms")
    sbs.run("kafka-configs", "--describe", *entity)
    # refused: values the config does not take, an unknown config, deleting one not set
    sbs.run("kafka-configs", "--alter", *entity, "--add-config", "retention.ms=abc")
    sbs.run("kafka-configs", "--alter", *entity, "--add-config", "cleanup.policy=bogus")
    sbs.run("kafka-configs", "--alter", *entity, "--add-config", "no.such.config=1")
    sbs.run("kafka-configs", "--alter", *entity, "--delete-config", "segment.ms")
    sbs.run("kafka-configs", "--describe", *entity)
    sbs.run("kafka-configs", "--describe", "--entity-type", "topics",
            "--entity-name", sbs.name("missing"))
    # neither broker has dynamic broker configs here (test_kafka_configs_brokers sets some)
    sbs.run("kafka-configs", "--describe", "--entity-type", "brokers", "--entity-name", "0")
    sbs.run("kafka-configs", "--describe", "--entity-type", "brokers", "--entity-default")
    sbs.check()


@pytest.mark.long  # make test-long: CI keeps kafka-topics, kafka-configs, perf
def test_kafka_configs_client_quotas(sbs: SideBySide) -> None:
    """Quotas of users, client ids, both together and IPs (AlterClientQuotas,
    DescribeClientQuotas); a user's quotas beside its SCRAM credentials. Every name is this
    test's own: the reference Kafka is shared, so no default entity is set alone."""
    user, client = sbs.name("alice"), sbs.name("app")
    users = ("--entity-type", "users", "--entity-name", user)
    clients = ("--entity-type", "clients", "--entity-name", client)
    both = (*users, *clients)
    ip = ("--entity-type", "ips", "--entity-name", "127.0.0.77")
    sbs.run("kafka-configs", "--describe", *users)
    sbs.run("kafka-configs", "--alter", *users,
            "--add-config", "producer_byte_rate=1048576,consumer_byte_rate=2097152")
    sbs.run("kafka-configs", "--describe", *users)
    sbs.run("kafka-configs", "--alter", *clients, "--add-config", "request_percentage=50.5")
    sbs.run("kafka-configs", "--alter", *both,
            "--add-config", "producer_byte_rate=4096,controller_mutation_rate=10")
    sbs.run("kafka-configs", "--describe", *both)
    sbs.run("kafka-configs", "--describe", *clients)
    # the user with any client id, and the default user with this client id
    sbs.run("kafka-configs", "--describe", *users, "--entity-type", "clients")
    sbs.run("kafka-configs", "--alter", "--entity-type", "users", "--entity-default", *clients,
            "--add-config", "consumer_byte_rate=8192")
    sbs.run("kafka-configs", "--describe", "--entity-type", "users", "--entity-default",
            *clients)
    # refused: a fraction of a byte, a key that is no quota
    sbs.run("kafka-configs", "--alter", *users, "--add-config", "producer_byte_rate=1.5")
    sbs.run("kafka-configs", "--alter", *users, "--add-config", "no_such_quota=1")
    # SCRAM credentials and quotas in one user entity: altering one keeps the other
    sbs.run("kafka-configs", "--alter", *users,
            "--add-config", "SCRAM-SHA-256=[iterations=8192,password=secret]")
    sbs.run("kafka-configs", "--alter", *users, "--delete-config", "consumer_byte_rate")
    sbs.run("kafka-configs", "--describe", *users)
    sbs.run("kafka-configs", "--alter", *users,
            "--delete-config", "producer_byte_rate,SCRAM-SHA-256")
    sbs.run("kafka-configs", "--describe", *users)
    sbs.run("kafka-configs", "--alter", *both,
            "--delete-config", "producer_byte_rate,controller_mutation_rate")
    sbs.run("kafka-configs", "--alter", "--entity-type", "users", "--entity-default", *clients,
            "--delete-config", "consumer_byte_rate")
    sbs.run("kafka-configs", "--describe", *users, "--entity-type", "clients")
    sbs.run("kafka-configs", "--alter", *clients, "--delete-config", "request_percentage")
    sbs.run("kafka-configs", "--describe", *clients)
    sbs.run("kafka-configs", "--alter", *ip, "--add-config", "connection_creation_rate=10")
    sbs.run("kafka-configs", "--describe", *ip)
    sbs.run("kafka-configs", "--alter", *ip, "--delete-config", "connection_creation_rate")
    sbs.run("kafka-configs", "--describe", *ip)
    sbs.check()


def _clear_broker_configs(sbs: SideBySide) -> None:
    """No dynamic broker config left on either broker (the reference Kafka is shared)."""
    for cli in sbs.sides.values():
        with WireClient(cli.bootstrap) as client:
            for name in ("0", ""):
                client.call(33, 2, ac.AlterConfigsRequest(resources=[ac.AlterConfigsResource(
                    resource_type=4, resource_name=name, configs=[])]))
    sbs.until("no dynamic default left", lambda r: r.lines == [
        "Default configs for brokers in the cluster are:"],
        "kafka-configs", "--describe", "--entity-type", "brokers", "--entity-default")


@pytest.mark.long  # make test-long: CI keeps kafka-topics, kafka-configs, perf
def test_kafka_configs_brokers(sbs: SideBySide) -> None:
    broker = ("--entity-type", "brokers", "--entity-name", "0")
    default = ("--entity-type", "brokers", "--entity-default")
    topic = sbs.name("topic")
    sbs.run("kafka-topics", "--create", "--topic", topic)
    try:
        # longer than the default retention: nothing of anyone's is deleted meanwhile
        sbs.run("kafka-configs", "--alter", *default,
                "--add-config", "log.retention.ms=691200000,log.cleaner.backoff.ms=16000")
        sbs.until("the defaults applied", lambda r: "log.cleaner.backoff.ms" in r.stdout,
                  "kafka-configs", "--describe", *default)
        sbs.run("kafka-configs", "--describe", *default)
        sbs.run("kafka-configs", "--describe", *broker)
        sbs.run("kafka-configs", "--alter", *broker,
                "--add-config", "log.retention.ms=777600000,min.insync.replicas=1")
        sbs.until("broker 0's applied", lambda r: "min.insync.replicas" in r.stdout,
                  "kafka-configs", "--describe", *broker)
        sbs.run("kafka-configs", "--describe", *broker)
        sbs.run("kafka-configs", "--describe", "--all", "--entity-type", "topics",
                "--entity-name", topic)
        sbs.run("kafka-configs", "--alter", *broker, "--delete-config", "min.insync.replicas")
        sbs.until("broker 0's deleted", lambda r: "min.insync.replicas" not in r.stdout,
                  "kafka-configs", "--describe", *broker)
        sbs.run("kafka-configs", "--describe", *broker)
        # refused: a read-only property, a value, a per-broker one at the default, a config
        # not set, a logger that does not exist
        sbs.run("kafka-configs", "--alter", *broker, "--add-config", "broker.id=5")
        sbs.run("kafka-configs", "--alter", *default, "--add-config", "log.retention.ms=soon")
        sbs.run("kafka-configs", "--alter", *default,
                "--add-config", "advertised.listeners=PLAINTEXT://h:1")
        sbs.run("kafka-configs", "--alter", *broker, "--delete-config", "log.segment.bytes")
        sbs.run("kafka-configs", "--alter", "--entity-type", "broker-loggers",
                "--entity-name", "0", "--add-config", "no.such.logger=INFO")
    finally:
        _clear_broker_configs(sbs)
    sbs.run("kafka-configs", "--describe", *broker)
    sbs.check()


# -- kafka-get-offsets --------------------------------------------------------------------------


@pytest.mark.long  # make test-long: CI keeps kafka-topics, kafka-configs, perf
def test_kafka_get_offsets(sbs: SideBySide) -> None:
    topic = sbs.name("topic")
    sbs.run("kafka-topics", "--create", "--topic", topic, "--partitions", "3")
    sbs.run("kafka-get-offsets", "--topic", topic)  # empty partitions
    produce_keyed(sbs, topic, KEYED)
    # then one more record in each partition, with a later timestamp than all the others, so
    # that --time <between> and --time -3 (max timestamp) have one answer
    consumed = sbs.run(
        "kafka-console-consumer", "--topic", topic, "--from-beginning",
        "--max-messages", str(len(KEYED)), "--timeout-ms", "30000",
        "--property", "print.partition=true", "--property", "print.key=true",
        view=by_partition,
    )
    key_of = {}
    for line in consumed["pybroker"].stdout.splitlines():
        partition, key, _ = line.split("\t", 2)
        key_of.setdefault(int(partition.removeprefix("Partition:")), key)
    assert sorted(key_of) == [0, 1, 2], consumed["pybroker"].explain()
    time.sleep(0.05)
    between = str(int(time.time() * 1000))
    time.sleep(0.05)
    produce_keyed(sbs, topic, [(key_of[p], f"last of {p}") for p in sorted(key_of)])

    offsets = ("kafka-get-offsets", "--topic", topic)
    sbs.run(*offsets)
    sbs.run(*offsets, "--time", "-1")
    sbs.run(*offsets, "--time", "latest")
    sbs.run(*offsets, "--time", "-2")
    sbs.run(*offsets, "--time", "earliest")
    sbs.run(*offsets, "--time", "-3")
    sbs.run(*offsets, "--time", "max-timestamp")
    sbs.run(*offsets, "--time", "0")
    sbs.run(*offsets, "--time", between, label="kafka-get-offsets --topic T-topic --time <between>")
    sbs.run(*offsets, "--time", "4102444800000")
    sbs.run(*offsets, "--partitions", "0,2")
    sbs.run("kafka-get-offsets", "--topic-partitions", f"{topic}:1,{topic}:2")
    sbs.run("kafka-get-offsets", "--topic", f"{sbs.base}-.*")
    sbs.run("kafka-get-offsets", "--topic", sbs.name("missing"))
    sbs.check()


# -- perf tests ---------------------------------------------------------------------------------


def test_perf_tests(sbs: SideBySide) -> None:
    topic, records, size = sbs.name("perf"), 3000, 200
    # one partition: the producer's sticky partitioner spreads unkeyed records at random
    sbs.run("kafka-topics", "--create", "--topic", topic, "--partitions", "1")
    sbs.run(
        "kafka-producer-perf-test", "--topic", topic, "--num-records", str(records),
        "--record-size", str(size), "--throughput", "-1",
        "--producer-props", "bootstrap.servers={bootstrap}", "acks=all",
        bootstrap=False, view=producer_perf,
    )
    sbs.run("kafka-get-offsets", "--topic", topic)
    sbs.run(
        "kafka-consumer-perf-test", "--topic", topic, "--messages", str(records),
        "--timeout", "30000", view=consumer_perf,
    )
    sbs.run(
        "kafka-consumer-perf-test", "--topic", topic, "--messages", str(records),
        "--timeout", "30000", "--group", sbs.name("perf-group"), view=consumer_perf,
    )
    sbs.run("kafka-consumer-groups", "--describe", "--group", sbs.name("perf-group"),
            view=tokens)
    sbs.check()
