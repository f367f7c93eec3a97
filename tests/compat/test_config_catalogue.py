"""The configuration catalogue against Apache Kafka 3.9's own: every broker property and topic
config in ``pybroker.config.catalogue`` has the type, default, valid values and update mode (for
topic configs: the server default property) that Kafka's documentation table gives.

The tables are the ones Kafka's build turns into its configuration documentation, printed by
the jars the other compatibility tests use (``kafka.server.KafkaConfig`` and
``org.apache.kafka.storage.internals.log.LogConfig`` print them when run), so no broker is
started.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pybroker.config import BROKER_CONFIGS, READ_ONLY, TOPIC_CONFIGS, to_config_string
from pybroker.config.catalogue import PYBROKER_CONFIGS
from pybroker.config.kafka_properties import EXTRA_DYNAMIC, KAFKA_READ_ONLY

pytestmark = pytest.mark.compat

#: the differences the catalogue keeps on purpose, with the reason
KNOWN = {
    ("broker.id", "Default"): "pybroker is a single node: its default id is 0; Kafka's -1 asks "
                              "ZooKeeper to generate one",
    ("group.coordinator.rebalance.protocols", "Default"):
        "Kafka 4.0's default, classic,consumer: pybroker serves the KIP-848 protocol, which "
        "Kafka 3.9 refuses in ZooKeeper mode",
    ("group.coordinator.rebalance.protocols", "Valid Values"):
        "Kafka 4.1's group types (classic, consumer, share, streams)",
}
#: Kafka 4 broker properties the catalogue has that Kafka 3.9 does not document, and why
KAFKA4_ONLY = {
    "group.consumer.migration.policy": "Kafka 4.0's policy of online conversion between the "
                                       "classic and consumer protocols (KIP-848)",
}
#: catalogued properties Kafka defines as internal, which its documentation leaves out
INTERNAL = {"producer.id.expiration.check.interval.ms"}

_ENTRY = re.compile(r'<li>\s*<h4><a id="([^"]+)"></a>.*?<table><tbody>(.*?)</tbody></table>',
                    re.S)
_ROW = re.compile(r"<tr><th>([^<]+):</th><td>(.*?)</td></tr>", re.S)


def documented(lib: Path, main_class: str) -> dict[str, dict[str, str]]:
    """Kafka's documentation table for ``main_class``: name -> {"Type": ..., "Default": ...}."""
    java = shutil.which("java") or "java"
    run = subprocess.run([java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                          "-XX:-UsePerfData", "-cp", f"{lib}/*", main_class],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    table = {name: {k: html.unescape(v) for k, v in _ROW.findall(rows)}
             for name, rows in _ENTRY.findall(run.stdout)}
    assert len(table) > 30, run.stdout[:2000]
    return table


def kafka_default(text: str) -> str:
    """The documented default without its reading aid: ``604800000 (7 days)`` -> ``604800000``."""
    return re.sub(r" \([^()]*\)$", "", text)


def ours(default, config_type: str) -> str:
    value = to_config_string(default, config_type)
    return "null" if value is None else '""' if value == "" else value


def differences(name: str, mine: dict[str, str], kafka: dict[str, str]) -> list[str]:
    return [f"{name} {field}: ours {mine[field]!r}, Kafka's {kafka.get(field)!r}"
            for field in mine
            if mine[field] != kafka.get(field) and (name, field) not in KNOWN]


@pytest.fixture(scope="module")
def kafka_broker_table(kafka_tools_lib: Path) -> dict[str, dict[str, str]]:
    table = documented(kafka_tools_lib, "kafka.server.KafkaConfig")
    for row in table.values():
        row["Default"] = kafka_default(row["Default"])
    return table


@pytest.fixture(scope="module")
def kafka_topic_table(kafka_tools_lib: Path) -> dict[str, dict[str, str]]:
    table = documented(kafka_tools_lib, "org.apache.kafka.storage.internals.log.LogConfig")
    for row in table.values():
        row["Default"] = kafka_default(row["Default"])
    return table


def test_broker_properties_are_kafkas(kafka_broker_table: dict[str, dict[str, str]]) -> None:
    problems = []
    for name, key in BROKER_CONFIGS.items():
        if name in INTERNAL:
            assert name not in kafka_broker_table, f"{name} is documented by Kafka now"
            continue
        if name in KAFKA4_ONLY:
            assert name not in kafka_broker_table, f"{name} is documented by Kafka 3.9"
            continue
        if name not in kafka_broker_table:
            problems.append(f"{name}: not a Kafka 3.9 broker property")
            continue
        mine = {"Type": key.type.lower(), "Default": ours(key.default, key.type),
                "Valid Values": str(key.validator or ""), "Update Mode": key.update_mode}
        problems += differences(name, mine, kafka_broker_table[name])
    assert not problems, "\n".join(problems)
    # the known differences still are ones
    for name, field in KNOWN:
        key = BROKER_CONFIGS[name]
        assert ours(key.default, key.type) != kafka_broker_table[name][field]


def test_the_other_broker_properties_are_kafkas(
        kafka_broker_table: dict[str, dict[str, str]]) -> None:
    """What dynamic broker configs know of Kafka's properties beyond the catalogue: every
    dynamic one with its type, default, validator and mode; the name of every read-only one."""
    dynamic = {n for n, row in kafka_broker_table.items() if row["Update Mode"] != READ_ONLY}
    assert set(EXTRA_DYNAMIC) == dynamic - set(BROKER_CONFIGS)
    problems = []
    for name, key in EXTRA_DYNAMIC.items():
        mine = {"Type": key.type.lower(), "Default": ours(key.default, key.type),
                "Valid Values": str(key.validator or ""), "Update Mode": key.update_mode}
        problems += differences(name, mine, kafka_broker_table[name])
    assert not problems, "\n".join(problems)
    read_only = {n for n, row in kafka_broker_table.items() if row["Update Mode"] == READ_ONLY}
    assert KAFKA_READ_ONLY == read_only, (sorted(KAFKA_READ_ONLY - read_only),
                                          sorted(read_only - KAFKA_READ_ONLY))


def test_topic_configs_are_kafkas(kafka_topic_table: dict[str, dict[str, str]]) -> None:
    assert set(TOPIC_CONFIGS) == set(kafka_topic_table)
    problems = []
    for name, key in TOPIC_CONFIGS.items():
        mine = {"Type": key.type.lower(), "Default": ours(key.default, key.type),
                "Valid Values": str(key.validator or ""),
                "Server Default Property": key.synonyms[0][0] if key.synonyms else "null"}
        problems += differences(name, mine, kafka_topic_table[name])
    assert not problems, "\n".join(problems)


def test_pybrokers_own_properties_are_not_kafkas(
        kafka_broker_table: dict[str, dict[str, str]]) -> None:
    """A setting only this broker has must not shadow one of Kafka's (or be one Kafka has now)."""
    assert PYBROKER_CONFIGS
    for name in PYBROKER_CONFIGS:
        assert name not in kafka_broker_table, f"{name} is a Kafka property now"
        assert name not in BROKER_CONFIGS
