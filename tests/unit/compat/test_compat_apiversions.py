"""The not-offered decision of the compatibility suite (pure)."""

from __future__ import annotations

from pybroker.compat.apiversions import (
    not_offered,
    offered_capabilities,
    reference_table,
    table_from_json,
    table_to_json,
    unmet,
)
from pybroker.compat.capabilities import CAPABILITIES, Requirement
from tests.unit.paths import DOCS


def test_a_requirement_is_met_by_any_advertised_version_in_its_range() -> None:
    assert not unmet(Requirement(0, 3), {0: (0, 11)})
    assert unmet(Requirement(0, 3), {0: (0, 2)})
    assert unmet(Requirement(0, 3), {1: (0, 17)})
    assert not unmet(Requirement(0, 0, 2), {0: (0, 11)})
    assert unmet(Requirement(0, 0, 2), {0: (3, 11)})  # a broker without the old formats
    assert not unmet(Requirement(0, 0, 2), {0: (2, 2)})


def test_not_offered_names_the_missing_apis() -> None:
    table = {0: (3, 11), 1: (4, 17), 3: (1, 12)}
    assert not_offered(CAPABILITIES["produce-fetch"], table) == []
    assert not_offered(CAPABILITIES["codec-zstd"], table) == []
    assert not_offered(CAPABILITIES["codec-zstd"], {0: (3, 6), 1: (4, 17), 3: (1, 12)}) == [
        "Produce v7+"]
    assert not_offered(CAPABILITIES["old-formats"], table) == ["Produce v0-v2", "Fetch v0-v3"]
    missing = not_offered(CAPABILITIES["transactions"], table)
    assert "InitProducerId v0+" in missing and "EndTxn v0+" in missing


def test_kafka_39_advertises_the_apis_of_every_capability() -> None:
    # but the KIP-848 protocol's: 3.9 lists ConsumerGroupHeartbeat v0 and refuses it in
    # ZooKeeper mode (the suite calibrates that capability against Kafka 4.1)
    offered = offered_capabilities(reference_table())
    assert offered.pop("group-kip848") == ["ConsumerGroupHeartbeat v1+"]
    assert all(not unmet_ for unmet_ in offered.values()), offered


def test_tables_round_trip_through_json() -> None:
    table = reference_table()
    assert table_from_json(table_to_json(table)) == table
    assert table[18] == (0, 4)


def test_the_docs_explain_every_capability() -> None:
    doc = (DOCS / "compat-suite.md").read_text()
    missing = [c for c in CAPABILITIES if f"`{c}`" not in doc]
    assert not missing, f"docs/compat-suite.md does not explain {missing}"
