"""Fixtures that run Apache Kafka's own command-line tools against pybroker.

``scripts/kafka-tools-deps.sh`` puts the jars of ``kafka_2.13`` and ``kafka-tools`` under
``.cache/kafka-tools/<version>/lib`` (once; it does nothing when the cache is current). Each tool
then runs in a JVM of its own through its main class, which is what ``bin/kafka-topics.sh`` and
friends do via ``kafka-run-class.sh``; there is no Kafka distribution on disk.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from pybroker.testing.broker_process import REPO_ROOT, BrokerProcess
from pybroker.testing.reference_kafka import LIB

CLI_DIR = Path(__file__).resolve().parent
LOG4J_CONFIG = CLI_DIR / "tools-log4j.properties"

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
}

#: each JVM lives for one command: skip the optimising compiler and the parallel collector;
#: no hsperfdata file (when one with the same pid is held by another JVM, the JVM warns on
#: stderr, which the side-by-side comparison would see); log4j (reload4j) gets a config that
#: sends warnings to stderr and keeps stdout for the tool
JVM_FLAGS = (
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    "-XX:-UsePerfData",
    "-Djava.awt.headless=true",
    f"-Dlog4j.configuration={LOG4J_CONFIG.as_uri()}",
)


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


@dataclass(frozen=True)
class KafkaCli:
    """Kafka's CLI tools, pointed at one broker by the arguments the tests pass."""

    bootstrap: str
    lib: Path = LIB

    def run_raw(
        self, tool: str, *args: str, stdin: str | None = None, timeout: float = 90.0
    ) -> ToolRun:
        cmd = [
            shutil.which("java") or "java", *JVM_FLAGS,
            "-cp", f"{self.lib}/*", MAIN_CLASSES[tool], *args,
        ]
        try:
            proc = subprocess.run(
                cmd,
                input=stdin,
                capture_output=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                cwd=REPO_ROOT,
            )
        except subprocess.TimeoutExpired as exc:
            run = ToolRun(tool, list(args), -1, _text(exc.stdout), _text(exc.stderr))
            raise AssertionError(
                run.explain().replace("exit code -1", f"killed after {timeout:.0f}s")
            ) from None
        return ToolRun(tool, list(args), proc.returncode, proc.stdout, proc.stderr)

    def run(
        self, tool: str, *args: str, stdin: str | None = None, timeout: float = 90.0
    ) -> ToolRun:
        """Run ``tool`` (a key of :data:`MAIN_CLASSES`); fails the test unless it exits 0."""
        result = self.run_raw(tool, *args, stdin=stdin, timeout=timeout)
        if result.returncode != 0:
            raise AssertionError(result.explain())
        return result

    def tool(
        self, tool: str, *args: str, stdin: str | None = None, timeout: float = 90.0
    ) -> ToolRun:
        """:meth:`run` with ``--bootstrap-server`` pointing at this broker."""
        bootstrap = ("--bootstrap-server", self.bootstrap)
        return self.run(tool, *bootstrap, *args, stdin=stdin, timeout=timeout)


def _text(output: str | bytes | None) -> str:
    """What a timed-out subprocess had printed (bytes, whatever ``text`` mode asked for)."""
    if isinstance(output, bytes):
        return output.decode(errors="replace")
    return output or ""


@pytest.fixture(scope="module")
def cli(kafka_tools_lib: Path, module_broker: BrokerProcess) -> KafkaCli:
    """The tools, with the bootstrap address of this module's broker."""
    return KafkaCli(module_broker.bootstrap, kafka_tools_lib)
