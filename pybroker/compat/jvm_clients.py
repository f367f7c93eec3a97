"""The JVM clients the suite drives: the Apache Kafka Java clients and Kafka's command-line tools.

Both run from jars in the repository's git-ignored ``.cache`` (nothing is downloaded when a
scenario runs), each call in a JVM of its own:

- **The Java clients** through ``ClientDriver`` (``tests/compat/java/src/ClientDriver.java``),
  which ``scripts/java-deps.sh`` (``make java-deps``) compiles against the kafka-clients jars of
  each release into ``.cache/java/<version>/``. It takes commands (``produce``,
  ``consume-assign``, ``consume-group``, ``admin OP``, ``txn-produce``, ``txn-fence``) and
  prints one JSON object per line; :class:`JavaClient` runs it and parses them.
- **Kafka's CLI tools** through their main classes (what ``bin/kafka-topics.sh`` and friends
  run via ``kafka-run-class.sh``), from the Kafka 3.9 jars ``scripts/kafka-tools-deps.sh``
  (``make kafka-tools-deps``) puts in ``.cache/kafka-tools/<version>/lib``; :class:`KafkaCli`.

A failed call raises :class:`ToolFailed` (an AssertionError, so a test shows it as a failed
assertion and the suite as a failed scenario) with the command, its exit code and its output.
The test suite's Java and CLI fixtures use these classes too.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the repository checkout this package runs from (pybroker/compat/ is two levels below it)
REPO_ROOT = Path(__file__).resolve().parents[2]
JAVA_CACHE = REPO_ROOT / ".cache" / "java"
JAVA_VERSIONS_FILE = REPO_ROOT / "tests" / "compat" / "java" / "versions.txt"
#: the Kafka release whose CLI tools (and reference broker) the suite uses
KAFKA_TOOLS_VERSION = "3.9.1"
KAFKA_TOOLS_LIB = REPO_ROOT / ".cache" / "kafka-tools" / KAFKA_TOOLS_VERSION / "lib"
#: the kafka-clients release the suite's Java scenarios run (the first of versions.txt)
DEFAULT_JAVA_VERSION = "3.9.1"

#: the JVM lives for one command: skip the optimising compiler and the parallel collector, and
#: write no hsperfdata file (a stale one for the same pid makes the JVM warn on stderr)
JVM_FLAGS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData")

#: the script name a user types -> the class it starts in Kafka 3.9
MAIN_CLASSES = {
    "kafka-topics": "org.apache.kafka.tools.TopicCommand",
    "kafka-console-producer": "kafka.tools.ConsoleProducer",
    "kafka-console-consumer": "org.apache.kafka.tools.consumer.ConsoleConsumer",
    "kafka-consumer-groups": "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
    "kafka-configs": "kafka.admin.ConfigCommand",
    "kafka-get-offsets": "org.apache.kafka.tools.GetOffsetShell",
    "kafka-producer-perf-test": "org.apache.kafka.tools.ProducerPerformance",
    "kafka-consumer-perf-test": "org.apache.kafka.tools.ConsumerPerformance",
    "kafka-log-dirs": "org.apache.kafka.tools.LogDirsCommand",
    "kafka-reassign-partitions": "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
    "kafka-leader-election": "org.apache.kafka.tools.LeaderElectionCommand",
    "kafka-transactions": "org.apache.kafka.tools.TransactionsCommand",
    "kafka-acls": "kafka.admin.AclCommand",
    "kafka-dump-log": "kafka.tools.DumpLogSegments",
    "kafka-delegation-tokens": "org.apache.kafka.tools.DelegationTokenCommand",
}

#: log4j (reload4j) for the tools: warnings and errors to stderr, stdout left to the tool
TOOLS_LOG4J = """\
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
"""


class ToolFailed(AssertionError):
    """A JVM client or tool exited non-zero, printed something unreadable or ran out of time."""


def _java() -> str:
    return shutil.which("java") or "java"


def _text(output: str | bytes | None) -> str:
    """What a timed-out subprocess had printed (bytes, whatever ``text`` mode asked for)."""
    if isinstance(output, bytes):
        return output.decode(errors="replace")
    return output or ""


def java_versions(path: Path = JAVA_VERSIONS_FILE) -> list[str]:
    """The kafka-clients releases ``scripts/java-deps.sh`` prepares, from ``versions.txt``."""
    lines = path.read_text().splitlines()
    return [v.strip() for v in lines if v.strip() and not v.lstrip().startswith("#")]


def java_clients_missing(version: str = DEFAULT_JAVA_VERSION) -> str | None:
    """Why the Java clients of ``version`` cannot run here (None when they can)."""
    if shutil.which("java") is None:
        return "java not found on PATH (a JDK 17+)"
    home = JAVA_CACHE / version
    if not (home / "classes" / "ClientDriver.class").exists():
        return (f"the Java clients {version} and their driver are not in {home} "
                "(run make java-deps)")
    return None


def kafka_tools_missing(lib: Path = KAFKA_TOOLS_LIB) -> str | None:
    """Why Kafka's CLI tools cannot run here (None when they can)."""
    if shutil.which("java") is None:
        return "java not found on PATH (a JDK 17+)"
    if not (lib / f"kafka_2.13-{KAFKA_TOOLS_VERSION}.jar").exists():
        return f"the Kafka {KAFKA_TOOLS_VERSION} tool jars are not in {lib} (run make kafka-tools-deps)"
    return None


# -- the Java clients -------------------------------------------------------------------------


def b64_field(data: bytes | None) -> str:
    """Bytes as the driver reads them on stdin: base64, or ``-`` for null."""
    return "-" if data is None else base64.b64encode(data).decode()


def unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


@dataclass(frozen=True)
class ProduceRecord:
    """One record for ``ClientDriver produce``; None partition/timestamp let the producer choose."""

    key: bytes | None
    value: bytes | None
    headers: Sequence[tuple[str, bytes | None]] = ()
    partition: int | None = None
    timestamp: int | None = None

    def line(self) -> str:
        """The driver's stdin format: tab-separated, base64 bytes, ``-`` for null."""
        fields = [
            "-" if self.partition is None else str(self.partition),
            "-" if self.timestamp is None else str(self.timestamp),
            b64_field(self.key),
            b64_field(self.value),
        ]
        fields += [f"{b64_field(name.encode())}:{b64_field(value)}" for name, value in self.headers]
        return "\t".join(fields)


@dataclass(frozen=True)
class DriverRun:
    """What one driver invocation printed and how it ended."""

    argv: list[str]
    returncode: int
    lines: list[dict[str, Any]]
    stdout: str
    stderr: str

    def explain(self, tail: int = 60) -> str:
        err = "\n".join(self.stderr.splitlines()[-tail:])
        return (
            f"ClientDriver {' '.join(self.argv)}\nexit code {self.returncode}\n"
            f"--- stdout ---\n{self.stdout[-6000:]}\n--- stderr (last {tail} lines) ---\n{err}"
        )


@dataclass(frozen=True)
class JavaClient:
    """The Java clients of one kafka-clients release (``home``: ``.cache/java/<version>``)."""

    version: str
    home: Path
    #: client properties every command gets (``--config k=v``; the secured-broker settings)
    config: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, version: str = DEFAULT_JAVA_VERSION,
           config: Iterable[tuple[str, str]] = ()) -> JavaClient:
        return cls(version, JAVA_CACHE / version, tuple(config))

    @property
    def classpath(self) -> str:
        return f"{self.home / 'classes'}{os.pathsep}{self.home / 'lib' / '*'}"

    def run_raw(self, *argv: str, stdin: str | None = None, timeout: float = 90.0) -> DriverRun:
        extra = [arg for k, v in self.config for arg in ("--config", f"{k}={v}")]
        cmd = [_java(), *JVM_FLAGS, "-cp", self.classpath, "ClientDriver", *argv, *extra]
        try:
            proc = subprocess.run(
                cmd, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT
            )
        except subprocess.TimeoutExpired as exc:
            run = DriverRun(list(argv), -1, [], _text(exc.stdout), _text(exc.stderr))
            raise ToolFailed(
                run.explain().replace("exit code -1", f"killed after {timeout:.0f}s")
            ) from None
        lines: list[dict[str, Any]] = []
        for text in proc.stdout.splitlines():
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError:
                run = DriverRun(list(argv), proc.returncode, [], proc.stdout, proc.stderr)
                raise ToolFailed(
                    f"driver printed a line that is not JSON: {text!r}\n" + run.explain()
                ) from None
        return DriverRun(list(argv), proc.returncode, lines, proc.stdout, proc.stderr)

    def run(self, *argv: str, stdin: str | None = None, timeout: float = 90.0) -> list[dict[str, Any]]:
        """Run the driver and return its JSON lines; :class:`ToolFailed` if it exits non-zero."""
        result = self.run_raw(*argv, stdin=stdin, timeout=timeout)
        if result.returncode != 0:
            raise ToolFailed(result.explain())
        return result.lines

    def produce(
        self, bootstrap: str, topic: str, records: Iterable[ProduceRecord], *options: str,
        timeout: float = 90.0,
    ) -> list[dict[str, Any]]:
        """Send the records with one producer; returns one {"index", "partition", "offset",
        "timestamp"} per record, in the order given. :class:`ToolFailed` unless every record
        is acknowledged."""
        records = list(records)
        stdin = "".join(r.line() + "\n" for r in records)
        lines = self.run("produce", "--bootstrap", bootstrap, "--topic", topic, *options,
                         stdin=stdin, timeout=timeout)
        acks = [line for line in lines if "index" in line]
        if [a.get("index") for a in acks] != list(range(len(records))):
            raise ToolFailed(f"{len(records)} records sent, acknowledgements: {lines}")
        return acks

    def admin(self, bootstrap: str, *ops: str, timeout: float = 90.0) -> list[dict[str, Any]]:
        """Run admin operations, one per string (``"create-topics --topic t --partitions 3"``),
        in one JVM and one Admin client; returns one {"op", "result" | "error"} per operation."""
        result = self.run_raw("admin", "script", "--bootstrap", bootstrap,
                              stdin="\n".join(ops) + "\n", timeout=timeout)
        if len(result.lines) != len(ops):
            raise ToolFailed(f"{len(ops)} operations, {len(result.lines)} results\n{result.explain()}")
        return result.lines


# -- Kafka's command-line tools ---------------------------------------------------------------


@dataclass(frozen=True)
class ToolRun:
    """What one tool invocation printed and how it ended."""

    tool: str
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        """Non-blank stdout lines, trailing whitespace removed."""
        return [line.rstrip() for line in self.stdout.splitlines() if line.strip()]

    def explain(self, tail: int = 60) -> str:
        err = "\n".join(self.stderr.splitlines()[-tail:])
        return (
            f"{self.tool} {' '.join(self.args)}\nexit code {self.returncode}\n"
            f"--- stdout ---\n{self.stdout[-6000:]}\n--- stderr (last {tail} lines) ---\n{err}"
        )


def tools_log4j_config() -> Path:
    """A file with :data:`TOOLS_LOG4J` (written once per user, the same every time)."""
    path = Path(tempfile.gettempdir()) / f"pybroker-compat-tools-log4j-{os.getuid()}.properties"
    if not path.exists() or path.read_text() != TOOLS_LOG4J:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(TOOLS_LOG4J)
        tmp.replace(path)
    return path


def tool_jvm_flags(log4j: Path) -> tuple[str, ...]:
    """Each tool's JVM lives for one command (:data:`JVM_FLAGS`), headless, with ``log4j``
    as its logging configuration."""
    return (*JVM_FLAGS, "-Djava.awt.headless=true", f"-Dlog4j.configuration={log4j.as_uri()}")


@dataclass(frozen=True)
class KafkaCli:
    """Kafka's CLI tools, pointed at one broker by :meth:`tool` (or any by :meth:`run`)."""

    bootstrap: str
    lib: Path = KAFKA_TOOLS_LIB
    #: the tools' log4j configuration (default: :func:`tools_log4j_config`)
    log4j: Path | None = None

    def run_raw(
        self, tool: str, *args: str, stdin: str | None = None, timeout: float = 90.0
    ) -> ToolRun:
        log4j = self.log4j or tools_log4j_config()
        cmd = [_java(), *tool_jvm_flags(log4j), "-cp", f"{self.lib}/*", MAIN_CLASSES[tool], *args]
        try:
            proc = subprocess.run(
                cmd, input=stdin, capture_output=True, encoding="utf-8", errors="replace",
                timeout=timeout, cwd=REPO_ROOT,
            )
        except subprocess.TimeoutExpired as exc:
            run = ToolRun(tool, list(args), -1, _text(exc.stdout), _text(exc.stderr))
            raise ToolFailed(
                run.explain().replace("exit code -1", f"killed after {timeout:.0f}s")
            ) from None
        return ToolRun(tool, list(args), proc.returncode, proc.stdout, proc.stderr)

    def run(
        self, tool: str, *args: str, stdin: str | None = None, timeout: float = 90.0
    ) -> ToolRun:
        """Run ``tool`` (a key of :data:`MAIN_CLASSES`); :class:`ToolFailed` unless it exits 0."""
        result = self.run_raw(tool, *args, stdin=stdin, timeout=timeout)
        if result.returncode != 0:
            raise ToolFailed(result.explain())
        return result

    def tool(
        self, tool: str, *args: str, stdin: str | None = None, timeout: float = 90.0
    ) -> ToolRun:
        """:meth:`run` with ``--bootstrap-server`` pointing at this broker."""
        return self.run(tool, "--bootstrap-server", self.bootstrap, *args, stdin=stdin,
                        timeout=timeout)
