"""A real Prometheus server for tests: Debian's ``prometheus`` binary, run with the example
configuration in ``config/prometheus/`` (its targets and intervals replaced), listening on a
free loopback port, and stopped by its pid.

    with PrometheusServer(tmp_path, ["127.0.0.1:9404"]) as prometheus:
        prometheus.wait_up(1)
        prometheus.query("sum(kafka_controller_kafkacontroller_activecontrollercount)")
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import yaml

from pybroker.testing.broker_process import REPO_ROOT, free_port, port_accepts

#: the example configuration operators start from (docs/operations.md)
EXAMPLE_DIR = REPO_ROOT / "config" / "prometheus"


class PrometheusServer:
    """Prometheus scraping ``targets`` (``host:port`` of metrics endpoints) every
    ``interval_s``, with the example's rule files."""

    def __init__(self, work_dir: Path, targets: Sequence[str], *, interval_s: float = 1.0,
                 binary: str | None = None) -> None:
        self.work_dir = Path(work_dir)
        self.targets = list(targets)
        self.interval_s = interval_s
        self.binary = binary or shutil.which("prometheus")
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None

    @staticmethod
    def missing() -> str | None:
        """What is missing to run one (None: nothing)."""
        if shutil.which("prometheus") is None:
            return "the prometheus binary (Debian's prometheus package; make setup installs it)"
        return None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.work_dir / "prometheus.log"

    def write_config(self) -> Path:
        """The example configuration with this server's targets and intervals, beside copies
        of its rule files."""
        self.work_dir.mkdir(parents=True, exist_ok=True)
        config = yaml.safe_load((EXAMPLE_DIR / "prometheus.yml").read_text())
        interval = f"{int(self.interval_s * 1000)}ms"
        config["global"].update(scrape_interval=interval, evaluation_interval=interval)
        [job] = config["scrape_configs"]
        job["static_configs"] = [{"targets": self.targets}]
        for rules in config.get("rule_files", []):
            shutil.copy(EXAMPLE_DIR / rules, self.work_dir / rules)
        path = self.work_dir / "prometheus.yml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        return path

    def start(self, timeout: float = 30.0) -> PrometheusServer:
        if self.binary is None:
            raise RuntimeError(self.missing())
        config = self.write_config()
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [self.binary, f"--config.file={config}",
             f"--storage.tsdb.path={self.work_dir / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self._log, stderr=subprocess.STDOUT, cwd=self.work_dir)
        deadline = time.monotonic() + timeout
        while not self._ready():
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited {self.proc.returncode}: "
                                   f"{self.log_path.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"prometheus not ready in {timeout}s")
            time.sleep(0.1)
        return self

    def _ready(self) -> bool:
        if not port_accepts(self.port):
            return False
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as r:  # noqa: S310
                return int(r.status) == 200
        except OSError:
            return False

    def stop(self) -> None:
        """SIGTERM by pid, SIGKILL after 10 s."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> PrometheusServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- the HTTP API --------------------------------------------------------------------------
    def api(self, path: str, **params: str) -> Any:
        """``GET /api/v1/<path>``'s ``data`` (raises on an error answer)."""
        url = f"{self.url}/api/v1/{path}?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as r:  # noqa: S310 - loopback
            body = json.loads(r.read())
        if body.get("status") != "success":
            raise RuntimeError(f"{path} {params}: {body}")
        return body["data"]

    def query(self, expr: str) -> list[tuple[dict[str, str], float]]:
        """An instant vector query: each series' labels and value."""
        data = self.api("query", query=expr)
        if data["resultType"] == "scalar":
            return [({}, float(data["result"][1]))]
        return [(r["metric"], float(r["value"][1])) for r in data["result"]]

    def value(self, expr: str) -> float | None:
        """The one value ``expr`` gives (None: no series)."""
        result = self.query(expr)
        if not result:
            return None
        if len(result) != 1:
            raise AssertionError(f"{expr} gave {len(result)} series: {result}")
        return result[0][1]

    def wait(self, expr: str, expected: float, timeout: float = 30.0) -> float:
        """Wait until ``expr`` gives exactly ``expected``; how long it took."""
        started = time.monotonic()
        last: object = None
        while time.monotonic() - started < timeout:
            try:
                last = self.value(expr)
            except AssertionError as e:
                last = str(e)
            if last == expected:
                return time.monotonic() - started
            time.sleep(0.25)
        raise AssertionError(f"{expr} is {last!r}, not {expected}, after {timeout}s")
