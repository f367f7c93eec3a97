"""The recorded ApiVersions table of Kafka 3.9 (pybroker/compat/data) is what the live reference
Kafka 3.9 answers: the report card shows it beside the broker's, and the not-offered decisions
of a calibration run against Kafka rest on it."""

from __future__ import annotations

import pytest

from pybroker.compat.apiversions import probe, reference_table, table_to_json
from pybroker.testing.reference_kafka import ReferenceKafka

pytestmark = pytest.mark.compat


def test_the_recorded_table_is_the_live_reference_kafkas(reference_kafka: ReferenceKafka) -> None:
    live = probe(reference_kafka.bootstrap)
    recorded = reference_table()
    assert table_to_json(live) == table_to_json(recorded), (
        "rewrite it: python -m pybroker.compat.apiversions --record " + reference_kafka.bootstrap)
