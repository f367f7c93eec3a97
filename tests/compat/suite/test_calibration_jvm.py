"""Calibration of the suite's JVM and Spark scenarios: each must pass against the reference
Apache Kafka 3.9 (otherwise the scenario is wrong, not the broker) and against pybroker.

They run as ``pybroker compat`` runs them (:func:`pybroker.compat.runner.run_suite`: a child
process per scenario, its time limit, the cleanup of the run's names). A JVM or a
SparkSession starts slowly, so CI runs one scenario per client here (:data:`SHORT`);
``COMPAT_CALIBRATION=full`` runs every Java, CLI and Spark scenario, and ``make compat-peers``
runs the whole suite against both brokers and the peers.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pybroker.compat.clients import CLIENTS
from pybroker.compat.runner import run_suite
from pybroker.compat.scenario import Scenario, load_scenarios
from pybroker.testing.broker_process import REPO_ROOT, BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from tests.compat.maven_jars import fetch_or_skip

pytestmark = pytest.mark.compat

#: the scenarios CI runs against both brokers: one per client
SHORT = ("java/transactions", "cli/produce-fetch", "spark/produce-fetch")
JVM_CLIENTS = ("java", "cli", "spark")
FULL = os.environ.get("COMPAT_CALIBRATION") == "full"


def chosen() -> list[str]:
    if not FULL:
        return list(SHORT)
    return [s.id for s in load_scenarios().values() if s.client in JVM_CLIENTS]


@pytest.fixture(scope="module")
def jvm_jars(kafka_tools_lib: Path) -> Callable[[str], None]:
    """``need(client)``: fetch what the client's scenarios run from (a no-op when the cache is
    current), or skip naming the missing tool."""
    fetched: set[str] = set()

    def need(client: str) -> None:
        if client in fetched:
            return
        if client == "java":
            fetch_or_skip(REPO_ROOT / "scripts" / "java-deps.sh", "3.9.1",
                          tools=("java", "javac", "mvn"), needed_for="the suite's Java scenarios")
        elif client == "spark":
            pytest.importorskip("pyspark", reason="SKIPPED: the Spark scenarios need PySpark")
            fetch_or_skip(REPO_ROOT / "scripts" / "spark-deps.sh", sys.executable,
                          tools=("java", "mvn"), needed_for="the suite's Spark scenarios")
        fetched.add(client)

    return need


@pytest.fixture(params=["kafka", "pybroker"])
def bootstrap(request: pytest.FixtureRequest) -> str:
    if request.param == "kafka":
        ref: ReferenceKafka = request.getfixturevalue("reference_kafka")
        return ref.bootstrap
    broker: BrokerProcess = request.getfixturevalue("suite_broker")
    return broker.bootstrap


@pytest.mark.parametrize("scenario_id", chosen())
def test_the_scenario_passes(scenario_id: str, bootstrap: str, jvm_jars: Callable[[str], None],
                             tmp_path: Path) -> None:
    scenario: Scenario = load_scenarios()[scenario_id]
    jvm_jars(scenario.client)
    missing = CLIENTS[scenario.client].missing()
    assert missing is None, f"{scenario.client} is still missing after fetching: {missing}"
    run = run_suite(bootstrap, [scenario], work_dir=tmp_path, jobs=1, group_wait=5)
    result = run.target.results[scenario_id]
    assert result.status == "pass", (
        f"{scenario_id} against {bootstrap}: {result.status}: {result.message}\n"
        f"evidence: {result.evidence}\n{result.traceback}\n--- output ---\n{result.output}"
    )
    assert run.target.cleanup.get("left") == [], run.target.cleanup
