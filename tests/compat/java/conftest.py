"""Fixtures that run the Apache Kafka Java clients against pybroker.

The clients are driven by ``src/ClientDriver.java`` in a JVM of its own per call: the driver
prints one JSON object per line, which :meth:`JavaClient.run` parses. ``scripts/java-deps.sh``
puts the jars of every version in ``versions.txt`` (and the compiled driver) under
``.cache/java/<version>/``; it runs once per test session and does nothing when the cache is
current.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pybroker.testing.broker_process import REPO_ROOT
from tests.compat.maven_jars import fetch_or_skip

JAVA_DIR = Path(__file__).resolve().parent
CACHE = REPO_ROOT / ".cache" / "java"
DEPS_SCRIPT = REPO_ROOT / "scripts" / "java-deps.sh"
TOOLS = ("java", "javac", "mvn")
#: the JVM lives for one command: skip the optimising compiler and the parallel collector, and
#: write no hsperfdata file (a stale one for the same pid makes the JVM warn on stderr)
JVM_FLAGS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData")


def client_versions() -> list[str]:
    """The kafka-clients releases under test, from ``versions.txt``."""
    lines = (JAVA_DIR / "versions.txt").read_text().splitlines()
    return [v.strip() for v in lines if v.strip() and not v.lstrip().startswith("#")]


CLIENT_VERSIONS = client_versions()


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
    lines: list[dict]
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
    """The Java clients of one kafka-clients release."""

    version: str
    home: Path

    @property
    def classpath(self) -> str:
        return f"{self.home / 'classes'}{os.pathsep}{self.home / 'lib' / '*'}"

    def run_raw(self, *argv: str, stdin: str | None = None, timeout: float = 90.0) -> DriverRun:
        cmd = [shutil.which("java") or "java", *JVM_FLAGS, "-cp", self.classpath, "ClientDriver", *argv]
        try:
            proc = subprocess.run(
                cmd, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT
            )
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
            err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
            raise AssertionError(
                DriverRun(list(argv), -1, [], out, err).explain().replace(
                    "exit code -1", f"killed after {timeout:.0f}s"
                )
            ) from None
        lines = []
        for text in proc.stdout.splitlines():
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError:
                raise AssertionError(
                    f"driver printed a line that is not JSON: {text!r}\n"
                    + DriverRun(list(argv), proc.returncode, [], proc.stdout, proc.stderr).explain()
                ) from None
        return DriverRun(list(argv), proc.returncode, lines, proc.stdout, proc.stderr)

    def run(self, *argv: str, stdin: str | None = None, timeout: float = 90.0) -> list[dict]:
        """Run the driver and return its JSON lines; fails the test if it exits non-zero."""
        result = self.run_raw(*argv, stdin=stdin, timeout=timeout)
        if result.returncode != 0:
            raise AssertionError(result.explain())
        return result.lines

    def produce(
        self, bootstrap: str, topic: str, records: Iterable[ProduceRecord], *options: str
    ) -> list[dict]:
        """Send the records with one producer; returns one {"index", "partition", "offset",
        "timestamp"} per record, in the order given. Fails the test if any is not acknowledged."""
        records = list(records)
        stdin = "".join(r.line() + "\n" for r in records)
        lines = self.run("produce", "--bootstrap", bootstrap, "--topic", topic, *options, stdin=stdin)
        acks = [line for line in lines if "index" in line]
        assert [a["index"] for a in acks] == list(range(len(records))), lines[-1]
        return acks

    def admin(self, bootstrap: str, *ops: str) -> list[dict]:
        """Run admin operations, one per string (``"create-topics --topic t --partitions 3"``),
        in one JVM and one Admin client; returns one {"op", "result" | "error"} per operation."""
        result = self.run_raw("admin", "script", "--bootstrap", bootstrap, stdin="\n".join(ops) + "\n")
        if len(result.lines) != len(ops):
            raise AssertionError(f"{len(ops)} operations, {len(result.lines)} results\n{result.explain()}")
        return result.lines


@pytest.fixture(scope="session")
def java_clients() -> Callable[[str], JavaClient]:
    """``java_clients(version)``: the Java clients of that release, fetched and compiled once."""
    fetch_or_skip(DEPS_SCRIPT, *CLIENT_VERSIONS, tools=TOOLS, needed_for="Java client tests")

    def for_version(version: str) -> JavaClient:
        home = CACHE / version
        if not (home / "classes" / "ClientDriver.class").exists():
            pytest.fail(f"no compiled driver in {home}: run scripts/java-deps.sh {version}")
        return JavaClient(version, home)

    return for_version


@pytest.fixture(params=CLIENT_VERSIONS, ids=lambda v: f"java-{v}")
def java_client(request: pytest.FixtureRequest, java_clients: Callable[[str], JavaClient]) -> JavaClient:
    """The Java clients, once for each release in ``versions.txt``."""
    return java_clients(request.param)
