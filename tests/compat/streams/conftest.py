"""Fixtures that run a Kafka Streams application (tests/compat/streams/src/WordCount.java).

``scripts/streams-deps.sh`` fetches Kafka Streams from Maven Central and compiles the
application into ``.cache/streams/<version>/``; it runs once per test session and does nothing
when the cache is current. Without java, javac or mvn the tests skip and say so.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from pybroker.testing.broker_process import REPO_ROOT
from tests.compat.maven_jars import fetch_or_skip

VERSION = "3.9.1"
CACHE = REPO_ROOT / ".cache" / "streams" / VERSION
DEPS_SCRIPT = REPO_ROOT / "scripts" / "streams-deps.sh"


class StreamsApp:
    """One WordCount JVM; its stdout (``STATE ...`` lines) is collected by a reader thread."""

    def __init__(self, bootstrap: str, app_id: str, input_topic: str, output_topic: str,
                 state_dir: Path, guarantee: str, log_path: Path) -> None:
        self.argv = [
            "java", "-XX:+UseSerialGC", "-XX:-UsePerfData",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp", f"{CACHE / 'classes'}:{CACHE / 'lib'}/*", "WordCount",
            bootstrap, app_id, input_topic, output_topic, str(state_dir), guarantee,
        ]
        self.log_path = log_path
        self.proc: subprocess.Popen[str] | None = None
        self.lines: list[str] = []
        self._changed = threading.Condition()

    def start(self) -> StreamsApp:
        log = self.log_path.open("a")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=log, text=True)
        log.close()
        self.lines = []
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self._changed:
                self.lines.append(line.strip())
                self._changed.notify_all()

    def wait_for_state(self, state: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while f"STATE {state}" not in self.lines:
                errors = [line for line in self.lines if line.startswith("ERROR")]
                assert not errors, f"the Streams application failed: {errors}\n{self.describe()}"
                left = deadline - time.monotonic()
                assert left > 0, f"the Streams application never reached {state}\n{self.describe()}"
                self._changed.wait(min(left, 0.5))

    def kill(self) -> None:
        """SIGKILL by pid: no commit, no clean shutdown."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        """Close stdin (the application then closes its KafkaStreams); SIGKILL if it hangs."""
        if self.proc is None or self.proc.poll() is not None:
            return
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
            self.proc.wait(45)
        except subprocess.TimeoutExpired:
            self.kill()

    def describe(self) -> str:
        try:
            tail = self.log_path.read_text(errors="replace").splitlines()[-40:]
        except OSError:
            tail = []
        return "stdout: " + " | ".join(self.lines[-20:]) + "\nstderr tail:\n" + "\n".join(tail)


@pytest.fixture(scope="session")
def streams_jars() -> Path:
    fetch_or_skip(DEPS_SCRIPT, VERSION, tools=("java", "javac", "mvn"),
                  needed_for="Kafka Streams tests")
    return CACHE
