"""The suite's runner against a real pybroker process: a hung scenario is killed at its limit
and costs only itself, failures keep their evidence, cleanup deletes the run's topics and
groups and nothing else, and the command's exit status says whether anything failed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kafka import KafkaAdminClient
from kafka.admin import NewTopic

from pybroker.compat.runner import run_suite
from pybroker.compat.scenario import load_scenarios
from pybroker.testing.broker_process import BrokerProcess

pytestmark = pytest.mark.compat
MODULE = "tests.compat.suite.scenarios_for_tests"


def test_a_hung_scenario_costs_only_itself_and_cleanup_spares_other_names(
    suite_broker: BrokerProcess, tmp_path: Path
) -> None:
    bystander = f"not-compat-{time.monotonic_ns()}"
    admin = KafkaAdminClient(bootstrap_servers=suite_broker.bootstrap)
    try:
        admin.create_topics([NewTopic(bystander, 1, 1)])
        registry = load_scenarios([MODULE])
        chosen = [registry[f"wire/test-{n}"] for n in ("hangs", "fails", "leaves-things", "skips")]
        started = time.monotonic()
        run = run_suite(suite_broker.bootstrap, chosen, work_dir=tmp_path, jobs=4, group_wait=5)
        took = time.monotonic() - started
        results = run.target.results
        assert results["wire/test-hangs"].status == "fail"
        assert "timed out after 2s" in results["wire/test-hangs"].message
        assert results["wire/test-hangs"].evidence == {"before hanging": "sent a request"}
        assert results["wire/test-fails"].status == "fail"
        assert results["wire/test-fails"].evidence == {
            "request": {"api": "Produce v9"}, "answer": "CORRUPT"}
        assert "the broker answered wrongly" in results["wire/test-fails"].message
        assert results["wire/test-leaves-things"].status == "pass"
        assert results["wire/test-skips"].status == "skipped"
        assert results["wire/test-skips"].message == "this client cannot do that here"
        assert took < 25, f"the run took {took:.1f}s: the hung scenario held it up"
        prefix = f"compat-{run.run_id}-"
        assert run.target.cleanup["topics_deleted"] == [f"{prefix}wire-test-leaves-things-t"]
        assert run.target.cleanup["groups_deleted"] == [f"{prefix}wire-test-leaves-things-g"]
        assert run.target.cleanup["left"] == []
        topics = admin.list_topics()
        assert bystander in topics
        assert not [t for t in topics if t.startswith(prefix)]
        assert not [g for g in admin.list_groups() if g["group_id"].startswith(prefix)]
    finally:
        admin.delete_topics([bystander])
        admin.close()


#: the command's environment: this checkout importable, for the test scenarios under tests/
WITH_TESTS = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(Path(__file__).resolve().parents[3]), *filter(None, [os.environ.get("PYTHONPATH")])])}


def test_the_command_writes_the_card_and_exits_non_zero_on_a_failure(
    suite_broker: BrokerProcess, tmp_path: Path
) -> None:
    def compat(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pybroker", "compat", "--bootstrap", suite_broker.bootstrap,
             "--scenario-module", MODULE, *args],
            capture_output=True, text=True, timeout=120, cwd=tmp_path, env=WITH_TESTS)

    failing = compat("--scenarios", "wire/test-fails,wire/test-skips", "--report", "card")
    assert failing.returncode == 1, failing.stderr
    card = json.loads((tmp_path / "card" / "report.json").read_text())
    assert {k: r["status"] for k, r in card["target"]["results"].items()} == {
        "wire/test-fails": "fail", "wire/test-skips": "skipped"}
    page = (tmp_path / "card" / "report.html").read_text()
    assert "<details" in page and "CORRUPT" in page
    passing = compat("--scenarios", "kafka-python/produce-fetch", "--report", "card2")
    assert passing.returncode == 0, passing.stderr
    assert "1 passed, 0 failed" in (tmp_path / "card2" / "report.md").read_text()
    unknown = compat("--clients", "cobol")
    assert unknown.returncode == 2 and "unknown client" in unknown.stderr


def test_a_broker_that_does_not_answer_fails_every_scenario_quickly(tmp_path: Path) -> None:
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:
        bootstrap = f"127.0.0.1:{silent.getsockname()[1]}"
        registry = load_scenarios()
        started = time.monotonic()
        run = run_suite(bootstrap, [registry["kafka-python/produce-fetch"]], work_dir=tmp_path,
                        probe_timeout=2)
        assert time.monotonic() - started < 10
        result = run.target.results["kafka-python/produce-fetch"]
        assert result.status == "fail" and "did not answer ApiVersions" in result.message
        assert run.target.cleanup == {}
    finally:
        silent.close()


def test_reference_starts_kafka_39_runs_the_same_scenarios_and_stops_it(
    suite_broker: BrokerProcess, tmp_path: Path
) -> None:
    from pybroker.testing.broker_process import port_accepts
    from pybroker.testing.reference_kafka import missing_requirements

    missing = missing_requirements()
    if missing:
        pytest.skip("SKIPPED: the reference Kafka needs a tool that is missing here: "
                    + "; ".join(missing))
    done = subprocess.run(
        [sys.executable, "-m", "pybroker", "compat", "--bootstrap", suite_broker.bootstrap,
         "--reference", "--scenarios", "kafka-python/produce-fetch", "--report", "card"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    card = json.loads((tmp_path / "card" / "report.json").read_text())
    reference = card["reference"]
    assert reference["results"]["kafka-python/produce-fetch"]["status"] == "pass"
    assert reference["cleanup"]["topics_deleted"] == [
        f"compat-{card['run_id']}-kafka-python-produce-fetch-t"]
    port = int(reference["bootstrap"].rsplit(":", 1)[1])
    assert not port_accepts(port), "the reference Kafka still listens after the command"
