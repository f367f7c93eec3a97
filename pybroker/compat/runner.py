"""Runs scenarios against a broker, each in a child process with a time limit, and collects
the results of a run (with ``--reference``, of the same scenarios against Kafka 3.9 too).

Order of a run against one broker: ApiVersions (a broker that does not answer fails every
scenario with that reason); for each scenario, skipped when its client is missing here, not
offered when the broker does not advertise its capability's APIs, else run; then cleanup of
everything under the run prefix (also when the run is interrupted).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pybroker.compat.apiversions import (
    REFERENCE_NAME,
    ApiTable,
    ProbeError,
    not_offered,
    probe,
    reference_table,
    table_to_json,
)
from pybroker.compat.capabilities import CAPABILITIES
from pybroker.compat.cleanup import cleanup
from pybroker.compat.clients import CLIENTS
from pybroker.compat.report import FAIL, NOT_OFFERED, PASS, SKIPPED
from pybroker.compat.scenario import PREFIX, Scenario
from pybroker.compat.security import ClientSecurity

#: how much of a scenario's output (its client library's logging) a result keeps
OUTPUT_TAIL = 6000


@dataclass
class Result:
    scenario: str
    capability: str
    client: str
    status: str
    message: str = ""
    seconds: float = 0.0
    evidence: dict[str, Any] = field(default_factory=dict)
    traceback: str = ""
    output: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TargetRun:
    """One broker's results."""

    name: str
    bootstrap: str
    api_versions: list[dict[str, Any]] | None
    probe_error: str
    results: dict[str, Result]
    cleanup: dict[str, Any]
    seconds: float
    #: how the suite connected (ClientSecurity.describe(): no password)
    connection: str = "PLAINTEXT"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "bootstrap": self.bootstrap, "connection": self.connection,
            "api_versions": self.api_versions,
            "probe_error": self.probe_error, "seconds": self.seconds, "cleanup": self.cleanup,
            "results": {k: r.to_json() for k, r in self.results.items()},
        }


def new_run_id() -> str:
    return time.strftime("%Y%m%d%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6]


class _Children:
    """The scenario processes running now, so an interrupted run kills them (by id)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: set[subprocess.Popen[bytes]] = set()
        self.stopping = False

    def kill_all(self) -> None:
        with self.lock:
            self.stopping = True
            procs = list(self.running)
        for proc in procs:
            _kill_session(proc)


def _kill_session(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the child leads its own session
        except ProcessLookupError:
            pass
    proc.wait()


def _tail(path: Path, limit: int = OUTPUT_TAIL) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    text = data[-limit:].decode("utf-8", "replace")
    return ("..." + text) if len(data) > limit else text


def _evidence(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return found
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        found[entry["label"]] = entry["value"]
    return found


def _child_environment() -> dict[str, str]:
    """The child imports the scenario's module by name: it gets this process's import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def run_child(s: Scenario, bootstrap: str, run_id: str, work: Path,
              children: _Children | None = None, security: ClientSecurity | None = None,
              ) -> Result:
    """Run one scenario in its own process (a new session, killed when its time is up)."""
    work.mkdir(parents=True, exist_ok=True)
    spec, result_path = work / "spec.json", work / "result.json"
    evidence_path, output_path = work / "evidence.jsonl", work / "output.log"
    spec.write_text(json.dumps({
        "scenario": s.id, "module": s.module, "bootstrap": bootstrap, "run_id": run_id,
        "timeout": s.timeout, "evidence": str(evidence_path),
        "security": (security or ClientSecurity()).to_json(),
    }))
    spec.chmod(0o600)  # it may hold a SASL password
    started = time.monotonic()
    with output_path.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pybroker.compat.child", str(spec), str(result_path)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, cwd=work, env=_child_environment(),
        )
    if children is not None:
        with children.lock:
            children.running.add(proc)
            if children.stopping:
                _kill_session(proc)
    timed_out = False
    try:
        proc.wait(s.timeout + 5.0)  # the child's own start-up on top of the scenario's limit
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_session(proc)  # whatever it started in its session goes with it
        if children is not None:
            with children.lock:
                children.running.discard(proc)
    seconds = round(time.monotonic() - started, 3)
    base = Result(s.id, s.capability, s.client, FAIL, seconds=seconds,
                  output=_tail(output_path))
    if result_path.exists():
        data = json.loads(result_path.read_text())
        base.status, base.message = data["status"], data["message"]
        base.traceback, base.evidence = data.get("traceback", ""), data.get("evidence", {})
        if base.status == PASS:
            base.output = ""  # a client's chatter matters only next to a failure
        return base
    base.evidence = _evidence(evidence_path)
    if timed_out:
        base.message = f"timed out after {s.timeout:g}s (killed)"
    elif children is not None and children.stopping:
        base.message = "interrupted"
    else:
        base.message = f"the scenario's process exited with status {proc.returncode} and no result"
    return base


def plan(s: Scenario, table: ApiTable | None, probe_error: str) -> Result | None:
    """The result a scenario gets without running (pure), or None when it is to run."""
    missing = CLIENTS[s.client].missing()
    if missing:
        return Result(s.id, s.capability, s.client, SKIPPED, message=missing)
    if table is None:
        return Result(s.id, s.capability, s.client, FAIL,
                      message=f"the broker did not answer ApiVersions: {probe_error}")
    unmet = not_offered(CAPABILITIES[s.capability], table)
    if unmet:
        return Result(s.id, s.capability, s.client, NOT_OFFERED,
                      message="not advertised: " + ", ".join(unmet))
    return None


def run_target(
    name: str, bootstrap: str, scenarios: Iterable[Scenario], *, run_id: str, work_dir: Path,
    jobs: int = 2, on_result: Callable[[str, Result], None] | None = None,
    children: _Children | None = None, group_wait: float = 50.0, probe_timeout: float = 10.0,
    security: ClientSecurity | None = None,
) -> TargetRun:
    started = time.monotonic()
    children = children or _Children()
    table: ApiTable | None
    try:
        table, probe_error = probe(bootstrap, probe_timeout, security), ""
    except ProbeError as e:
        table, probe_error = None, str(e)
    chosen = list(scenarios)
    results: dict[str, Result] = {}
    to_run = []
    for s in chosen:
        decided = plan(s, table, probe_error)
        if decided is None:
            to_run.append(s)
        else:
            results[s.id] = decided
            if on_result:
                on_result(name, decided)

    def one(s: Scenario) -> Result:
        r = run_child(s, bootstrap, run_id, work_dir / name / s.id.replace("/", "_"), children,
                      security)
        if on_result:
            on_result(name, r)
        return r

    cleaned: dict[str, Any] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        for r in pool.map(one, to_run):
            results[r.scenario] = r
    except BaseException:
        children.kill_all()  # Ctrl-C: the scenarios running now stop at once
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if table is not None:
            cleaned = cleanup(bootstrap, f"{PREFIX}{run_id}-", group_wait=group_wait,
                              security=security).to_json()
    return TargetRun(
        name=name, bootstrap=bootstrap,
        api_versions=None if table is None else table_to_json(table), probe_error=probe_error,
        results={s.id: results[s.id] for s in chosen}, cleanup=cleaned,
        seconds=round(time.monotonic() - started, 3),
        connection=(security or ClientSecurity()).describe(),
    )


@dataclass
class Run:
    run_id: str
    started: str
    target: TargetRun
    reference: TargetRun | None
    reference_api_versions: list[dict[str, Any]]
    reference_name: str = REFERENCE_NAME
    seconds: float = 0.0

    def failed(self) -> list[Result]:
        return [r for r in self.target.results.values() if r.status == FAIL]

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "started": self.started, "seconds": self.seconds,
            "reference_name": self.reference_name,
            "reference_api_versions": self.reference_api_versions,
            "capabilities": {c.id: {"meaning": c.meaning, "needs": [str(r) for r in c.needs]}
                             for c in CAPABILITIES.values()},
            "clients": {c.name: c.description for c in CLIENTS.values()},
            "target": self.target.to_json(),
            "reference": None if self.reference is None else self.reference.to_json(),
        }


def run_suite(
    bootstrap: str, scenarios: Iterable[Scenario], *, name: str = "broker",
    reference_bootstrap: str | None = None, work_dir: Path | None = None, jobs: int = 2,
    run_id: str | None = None, on_result: Callable[[str, Result], None] | None = None,
    group_wait: float = 50.0, probe_timeout: float = 10.0,
    security: ClientSecurity | None = None, reference_security: ClientSecurity | None = None,
) -> Run:
    """Run ``scenarios`` against ``bootstrap`` (and against ``reference_bootstrap``, a Kafka
    3.9, when given), every client connecting as ``security`` says (``reference_security``
    for the reference; by default the same). Ctrl-C kills the scenarios running, cleans up,
    and raises."""
    run_id = run_id or new_run_id()
    started_wall = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    started = time.monotonic()
    chosen = list(scenarios)
    work = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="pybroker-compat-"))
    target = run_target(name, bootstrap, chosen, run_id=run_id, work_dir=work, jobs=jobs,
                        on_result=on_result, group_wait=group_wait, probe_timeout=probe_timeout,
                        security=security)
    reference = None
    if reference_bootstrap:
        reference = run_target("reference", reference_bootstrap, chosen, run_id=run_id,
                               work_dir=work, jobs=jobs, on_result=on_result,
                               group_wait=group_wait, probe_timeout=probe_timeout,
                               security=reference_security or security)
    return Run(run_id=run_id, started=started_wall, target=target, reference=reference,
               reference_api_versions=table_to_json(reference_table()),
               seconds=round(time.monotonic() - started, 3))
