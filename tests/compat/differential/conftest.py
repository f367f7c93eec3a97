"""Fixtures for the differential tests: a pybroker and a reference Apache Kafka, configured alike.

The reference Kafka (pybroker/testing/reference_kafka.py, started once per session by the
``reference_kafka`` fixture in tests/conftest.py) runs from the same Maven jars as the CLI tools;
without java or Maven these tests skip and say so.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.reference_kafka4 import ReferenceKafka4
from tests.compat.differential.differ import Difference, Known, Recorder, compare, triage
from tests.conftest import KAFKA4_OVERRIDES, REFERENCE_OVERRIDES


@dataclass
class Names:
    """Names a scenario uses, the same on both brokers (unique per test)."""

    base: str
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def topic(self) -> str:
        return self.base

    def __call__(self, suffix: str) -> str:
        return f"{self.base}-{suffix}"


@dataclass
class Pair:
    pybroker: BrokerProcess
    kafka: ReferenceKafka

    def run(self, scenario, names: Names) -> tuple[Recorder, Recorder]:
        ours, theirs = Recorder(self.pybroker.bootstrap), Recorder(self.kafka.bootstrap)
        for rec in (ours, theirs):
            try:
                scenario(rec, names)
            finally:
                rec.close()
        return ours, theirs

    def check(self, scenario, names: Names, known: list[Known]) -> list[Difference]:
        """Run ``scenario`` on both; fail on any difference ``known`` does not document, or
        documents for this scenario and no longer occurs. Returns the documented ones seen.

        The test's own names are written ``T`` in labels and paths (``topics{T-v2}``), so that
        a documented path does not depend on the run."""
        ours, theirs = self.run(scenario, names)
        diffs = [
            Difference(d.label.replace(names.base, "T"), d.path.replace(names.base, "T"),
                       d.pybroker, d.kafka)
            for d in compare(ours.steps, theirs.steps)
        ]
        mine = [k for k in known if k.scenario == scenario.__name__]
        unexplained, used = triage(diffs, mine)
        problems = []
        if unexplained:
            problems.append(
                "differences from Apache Kafka that the test module's KNOWN list does not document:\n  "
                + "\n  ".join(str(d) for d in unexplained)
            )
        stale = [k for k in mine if k not in used]
        if stale:
            problems.append(
                "documented differences that no longer occur (remove them from "
                "the KNOWN list, then run make compat-doc):\n  "
                + "\n  ".join(f"{k.label} {k.path}: {k.reason}" for k in stale)
            )
        assert not problems, "\n".join(problems)
        return [d for d in diffs if d not in unexplained]


@pytest.fixture(scope="module")
def pair(
    reference_kafka: ReferenceKafka, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Pair]:
    base: Path = tmp_path_factory.mktemp("differential")
    # no config file: Kafka's defaults plus the same overrides as the reference broker, and
    # Kafka 3.9's default protocols (3.9 refuses the KIP-848 protocol in ZooKeeper mode)
    broker = BrokerProcess(base / "kafka-logs", config=None, overrides={
        **REFERENCE_OVERRIDES, "group.coordinator.rebalance.protocols": "classic"})
    try:
        yield Pair(broker.start(), reference_kafka)
    finally:
        broker.stop()


@pytest.fixture(scope="module")
def pair4(
    reference_kafka4: ReferenceKafka4, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Pair]:
    """pybroker beside Apache Kafka 4.1 (KRaft), configured alike: the tests of what 3.9
    cannot answer (the KIP-848 consumer group protocol)."""
    base: Path = tmp_path_factory.mktemp("differential4")
    broker = BrokerProcess(base / "kafka-logs", overrides=KAFKA4_OVERRIDES, config=None)
    try:
        yield Pair(broker.start(), reference_kafka4)  # type: ignore[arg-type]
    finally:
        broker.stop()


@pytest.fixture
def names(request: pytest.FixtureRequest) -> Names:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", request.node.name).strip("-")[:100]
    return Names(f"{stem}-{uuid.uuid4().hex[:8]}")
