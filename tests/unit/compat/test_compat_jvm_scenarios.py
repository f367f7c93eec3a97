"""The JVM and Spark scenarios' pure parts: their registration, what they parse from the tools'
output, the driver's input format, and the calibration's short subset."""

from __future__ import annotations

from pathlib import Path

from pybroker.compat import jvm_clients
from pybroker.compat.jvm_clients import ProduceRecord, ToolRun
from pybroker.compat.scenario import Scenario, load_scenarios
from pybroker.compat.scenarios import cli
from tests.compat.suite.jvm_subset import SHORT, calibration_scenarios

#: kafka-configs --describe for a topic with two dynamic configs (Kafka 3.9's layout)
DESCRIBE = """\
Dynamic configs for topic t are:
  cleanup.policy=compact sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact, \
DEFAULT_CONFIG:log.cleanup.policy=delete}
  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000, \
STATIC_BROKER_CONFIG:log.retention.ms=1000}
"""


def test_each_jvm_client_has_its_scenarios() -> None:
    registry = load_scenarios()
    by_client: dict[str, set[str]] = {}
    for s in registry.values():
        by_client.setdefault(s.client, set()).add(s.capability)
    assert by_client["java"] == {"produce-fetch", "group-classic", "admin-topics", "transactions"}
    assert by_client["cli"] == {"admin-topics", "produce-fetch", "admin-groups", "admin-configs"}
    assert by_client["spark"] == {"produce-fetch"}
    assert set(SHORT) <= set(registry)


def test_the_calibration_keeps_one_slow_scenario_per_client() -> None:
    def s(client: str, name: str) -> Scenario:
        return Scenario(capability=name, client=client, name=name, timeout=30, module="m",
                        function="f")

    scenarios = [s("kafka-python", "produce-fetch"), s("java", "transactions"),
                 s("java", "admin-topics"), s("cli", "produce-fetch"), s("cli", "admin-configs"),
                 s("spark", "produce-fetch")]
    short = [x.id for x in calibration_scenarios(scenarios, everything=False)]
    assert short == ["kafka-python/produce-fetch", "java/transactions", "cli/produce-fetch",
                     "spark/produce-fetch"]
    assert calibration_scenarios(scenarios, everything=True) == scenarios


def test_topic_configs_reads_the_dynamic_configs_only() -> None:
    run = ToolRun("kafka-configs", [], 0, DESCRIBE, "")
    assert cli.topic_configs(run) == {"cleanup.policy": "compact", "retention.ms": "3600000"}
    empty = ToolRun("kafka-configs", [], 0, "Dynamic configs for topic t are:\n", "")
    assert cli.topic_configs(empty) == {}


def test_tab_fields_reads_a_kafka_topics_line() -> None:
    line = "Topic: t\tTopicId: abc\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: "
    assert cli.tab_fields(line) == {"Topic": "t", "TopicId": "abc", "PartitionCount": "2",
                                    "ReplicationFactor": "1", "Configs": ""}


def test_the_drivers_record_line() -> None:
    record = ProduceRecord(key=b"k", value=None, headers=[("h", b"v"), ("n", None)],
                           partition=0, timestamp=5)
    assert record.line() == "0\t5\taw==\t-\taA==:dg==\tbg==:-"
    assert ProduceRecord(key=None, value=b"").line() == "-\t-\t-\t"


def test_missing_jars_name_the_make_target(tmp_path: Path) -> None:
    why = jvm_clients.java_clients_missing("0.0.0-none")
    assert why is not None and ("make java-deps" in why or "java not found" in why)
    why = jvm_clients.kafka_tools_missing(tmp_path)
    assert why is not None and ("make kafka-tools-deps" in why or "java not found" in why)


def test_said_picks_the_line_that_names_the_error() -> None:
    run = ToolRun("kafka-topics", [], 1, "\nError while executing topic command : boom\n",
                  "[2026] ERROR java.lang.NullPointerException\n")
    assert cli.said(run) == "Error while executing topic command : boom"
    assert cli.said(ToolRun("t", [], 1, "first\nsecond\n", "")) == "first"
    assert cli.said(ToolRun("t", [], 1, "", "")) == "(it printed nothing)"
