"""A pybroker process configured as the reference Kafka is (Kafka's defaults plus the same
overrides), for the compatibility suite's calibration runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pybroker.testing.broker_process import BrokerProcess
from tests.conftest import REFERENCE_OVERRIDES


@pytest.fixture(scope="module")
def suite_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    broker = BrokerProcess(tmp_path_factory.mktemp("compat-suite") / "kafka-logs",
                           overrides=REFERENCE_OVERRIDES, config=None)
    try:
        yield broker.start()
    finally:
        broker.stop()
