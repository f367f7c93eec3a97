"""A pybroker process configured as the reference Kafka is (Kafka's defaults plus the same
overrides) except that it creates no topic automatically, for the compatibility suite's
calibration runs: every scenario must create its topics, as it must against the many brokers
that turn auto-creation off."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pybroker.testing.broker_process import BrokerProcess
from tests.conftest import REFERENCE_OVERRIDES


@pytest.fixture(scope="module")
def suite_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    broker = BrokerProcess(tmp_path_factory.mktemp("compat-suite") / "kafka-logs",
                           overrides={**REFERENCE_OVERRIDES, "auto.create.topics.enable": "false"},
                           config=None)
    try:
        yield broker.start()
    finally:
        broker.stop()
