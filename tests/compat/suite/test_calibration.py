"""Calibration of the compatibility suite: every scenario runs against Apache Kafka 3.9 and
against a pybroker process, in one run with the report card of both. The scenarios of what
Kafka 3.9 does not serve in ZooKeeper mode (the KIP-848 consumer group protocol) are calibrated
against Apache Kafka 4.1 instead, in a run of their own.

Every scenario must pass against Kafka: one that does not is a wrong scenario, not a broker
difference. Against pybroker every scenario passes, or KNOWN names the scenario, the status it
gets and why; a KNOWN entry that no longer happens fails too, so the list stays true. A scenario
is skipped only when its client is truly missing here (and the test says so loudly).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from pybroker.compat.clients import CLIENTS
from pybroker.compat.report import render_html, write_report
from pybroker.compat.runner import Run, run_suite
from pybroker.compat.scenario import load_scenarios
from pybroker.compat.scenarios.security import SECURED_CAPABILITIES
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.reference_kafka4 import ReferenceKafka4
from tests.compat.suite.jvm_subset import calibration_scenarios, fetch_jvm_jars

pytestmark = pytest.mark.compat

#: scenario id -> (the status it gets against pybroker, why)
KNOWN: dict[str, tuple[str, str]] = {}

#: capabilities Kafka 3.9 does not offer in ZooKeeper mode: calibrated against Kafka 4.1
KAFKA4_CAPABILITIES = frozenset({"group-kip848"})


@pytest.fixture(scope="module")
def calibration(suite_broker: BrokerProcess, reference_kafka: ReferenceKafka,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Run, Path]]:
    work = tmp_path_factory.mktemp("calibration")
    fetch_jvm_jars()
    # the security scenarios are calibrated against secured brokers (test_calibration_security)
    chosen = [s for s in calibration_scenarios(load_scenarios().values())
              if s.capability not in {*SECURED_CAPABILITIES, *KAFKA4_CAPABILITIES}]
    run = run_suite(suite_broker.bootstrap, chosen,
                    name="pybroker",
                    reference_bootstrap=reference_kafka.bootstrap, work_dir=work / "scenarios",
                    jobs=2, group_wait=10)
    write_report(run.to_json(), work / "card")
    yield run, work / "card"


def _truly_missing(results: dict, where: str) -> None:
    skipped = {k: r for k, r in results.items() if r.status == "skipped"}
    for key, r in skipped.items():
        assert CLIENTS[r.client].missing(), f"{key} skipped on {where} though {r.client} is here"
    if skipped:
        warnings.warn(f"scenarios skipped on {where} (client missing): "
                      + "; ".join(f"{k}: {r.message}" for k, r in skipped.items()), stacklevel=2)


def test_every_scenario_passes_against_kafka(calibration: tuple[Run, Path]) -> None:
    run, card = calibration
    assert run.reference is not None
    results = run.reference.results
    _truly_missing(results, "Kafka 3.9")
    wrong = {k: f"{r.status}: {r.message}" for k, r in results.items()
             if r.status not in ("pass", "skipped")}
    assert not wrong, f"scenarios that do not pass against Kafka 3.9 (see {card}): {wrong}"
    assert run.reference.cleanup["left"] == []


def test_every_scenario_passes_against_pybroker_or_is_known(
        calibration: tuple[Run, Path]) -> None:
    run, card = calibration
    results = run.target.results
    _truly_missing(results, "pybroker")
    unexplained = {k: f"{r.status}: {r.message}" for k, r in results.items()
                   if r.status not in ("pass", "skipped") and KNOWN.get(k, ("",))[0] != r.status}
    stale = {k: v for k, v in KNOWN.items() if k not in results or results[k].status != v[0]}
    assert not unexplained, f"scenarios failing against pybroker (see {card}): {unexplained}"
    assert not stale, f"KNOWN entries that no longer happen (remove them): {stale}"
    assert run.target.cleanup["left"] == []


def test_the_card_of_the_calibration_run(calibration: tuple[Run, Path]) -> None:
    run, card = calibration
    page = (card / "report.html").read_text()
    assert page == render_html(run.to_json())
    for scenario in run.target.results:
        assert scenario in page
    assert "Kafka 3.9: pass" in page


def test_the_kafka4_scenarios_pass_against_kafka4_and_pybroker(
        suite_broker: BrokerProcess, reference_kafka4: ReferenceKafka4,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    work = tmp_path_factory.mktemp("calibration4")
    chosen = [s for s in calibration_scenarios(load_scenarios().values())
              if s.capability in KAFKA4_CAPABILITIES]
    assert chosen, "no scenario of the capabilities Kafka 3.9 does not offer"
    run = run_suite(suite_broker.bootstrap, chosen, name="pybroker",
                    reference_bootstrap=reference_kafka4.bootstrap,
                    work_dir=work / "scenarios", jobs=2, group_wait=10)
    assert run.reference is not None
    for where, results in (("Kafka 4.1", run.reference.results),
                           ("pybroker", run.target.results)):
        _truly_missing(results, where)
        wrong = {k: f"{r.status}: {r.message}" for k, r in results.items()
                 if r.status not in ("pass", "skipped")}
        assert not wrong, f"scenarios that do not pass against {where}: {wrong}"
