"""Run ``pybroker console`` as a child process, as a user starts it (the console script with
``--cluster`` arguments or a config file), on a free loopback port; stopped by its pid. Its
output goes to a file so that a failing test can show what the console said."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from pybroker.testing.broker_process import REPO_ROOT, free_port


class ConsoleStartError(RuntimeError):
    """The console exited or never answered its health check."""


class ConsoleProcess:
    """``clusters`` maps each cluster's name to its bootstrap servers; ``args`` are more
    command-line arguments (``--read-only``, ``--config FILE``); ``auth`` the basic
    authentication the test's own requests send."""

    def __init__(self, work_dir: Path, clusters: Mapping[str, str], *,
                 args: Sequence[str] = (), auth: tuple[str, str] | None = None) -> None:
        self.work_dir = Path(work_dir)
        self.clusters = dict(clusters)
        self.args = list(args)
        self.auth = auth
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.work_dir / "console.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None

    def __enter__(self) -> ConsoleProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, timeout: float = 30.0) -> ConsoleProcess:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pybroker", "console",
                   "--listen", f"127.0.0.1:{self.port}"]
        for name, bootstrap in self.clusters.items():
            command += ["--cluster", f"{name}={bootstrap}"]
        command += self.args
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(REPO_ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        self._log = self.log_path.open("ab")
        self.proc = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT,
                                     env=env, cwd=self.work_dir)
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()  # nothing the test started outlives a failed start
            raise
        return self

    def _wait_ready(self, timeout: float) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ConsoleStartError(f"the console exited with {self.proc.returncode}:\n"
                                        + self.output())
            try:
                self.get_json("/api/health", timeout=1.0)
                return
            except OSError:
                time.sleep(0.1)
        raise ConsoleStartError(f"the console did not answer within {timeout}s:\n"
                                + self.output())

    def stop(self) -> int | None:
        """SIGTERM by pid, then SIGKILL if it lingers; its exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if self._log is not None:
            self._log.close()
            self._log = None
        return self.proc.returncode

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-8000:]
        except OSError:
            return ""

    # -- requests -------------------------------------------------------------------------

    def request(self, path: str, *, data: bytes | None = None,
                headers: Mapping[str, str] | None = None, timeout: float = 30.0,
                ) -> tuple[int, dict[str, str], bytes]:
        """Status, headers (names in lower case) and body of one request (HTTP errors are
        answers too)."""
        req = urllib.request.Request(self.url + path, data=data, headers=dict(headers or {}))
        if self.auth is not None:
            import base64

            token = base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode()
            req.add_header("Authorization", f"Basic {token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as response:
                return response.status, _lower(response.headers), response.read()
        except urllib.error.HTTPError as e:
            return e.code, _lower(e.headers), e.read()

    def get_json(self, path: str, timeout: float = 30.0) -> Any:
        status, _, body = self.request(path, timeout=timeout)
        if status != 200:
            raise AssertionError(f"GET {path}: HTTP {status}: {body[:500]!r}")
        return json.loads(body)


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}
