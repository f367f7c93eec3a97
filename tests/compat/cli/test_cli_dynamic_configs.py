"""Dynamic broker configs (KIP-226) with Kafka's own kafka-configs, against a broker of the
test's own: broker 0's configs and the cluster-wide defaults set, described (also with
``--all``), deleted and refused; kept across a restart; in effect at once for a real producer;
and the broker's logger levels (``--entity-type broker-loggers``)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, Producer

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.cli.conftest import KafkaCli, ToolRun

pytestmark = pytest.mark.compat

BROKER = ("--entity-type", "brokers", "--entity-name", "0")
DEFAULT = ("--entity-type", "brokers", "--entity-default")
LOGGERS = ("--entity-type", "broker-loggers", "--entity-name", "0")


@pytest.fixture
def cli(kafka_tools_lib: Path, broker: BrokerProcess) -> KafkaCli:
    return KafkaCli(broker.bootstrap, kafka_tools_lib)


def entries(run: ToolRun) -> dict[str, str]:
    """``name -> the rest of the line`` of a kafka-configs --describe."""
    out = {}
    for line in run.lines[1:]:
        assert line.startswith("  "), run.explain()
        name, _, rest = line.strip().partition("=")
        out[name] = rest
    return out


def produce(bootstrap: str, topic: str, size: int) -> int:
    """One record of ``size`` bytes; the error code of its delivery (0: delivered)."""
    producer = Producer({"bootstrap.servers": bootstrap, "message.send.max.retries": 0,
                         "delivery.timeout.ms": 20000})
    errors: list[KafkaError] = []
    producer.produce(topic, b"x" * size,
                     on_delivery=lambda err, _msg: errors.append(err) if err else None)
    assert producer.flush(30) == 0
    del producer
    return errors[0].code() if errors else 0


def test_broker_configs_set_described_and_deleted(cli: KafkaCli) -> None:
    assert cli.tool("kafka-configs", "--describe", *BROKER).lines == [
        "Dynamic configs for broker 0 are:"]
    assert cli.tool("kafka-configs", "--describe", *DEFAULT).lines == [
        "Default configs for brokers in the cluster are:"]

    done = cli.tool("kafka-configs", "--alter", *DEFAULT,
                    "--add-config", "log.segment.bytes=10485760,log.cleaner.backoff.ms=20000")
    assert done.lines == ["Completed updating default config for brokers in the cluster."]
    done = cli.tool("kafka-configs", "--alter", *BROKER,
                    "--add-config", "log.retention.ms=86400000,min.insync.replicas=1")
    assert done.lines == ["Completed updating config for broker 0."]

    assert entries(cli.tool("kafka-configs", "--describe", *DEFAULT)) == {
        "log.cleaner.backoff.ms": "20000 sensitive=false synonyms={"
                                  "DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.backoff.ms=20000}",
        "log.segment.bytes": "10485760 sensitive=false synonyms={"
                             "DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=10485760}",
    }
    # the shipped server.properties sets log.retention.hours and log.segment.bytes
    assert entries(cli.tool("kafka-configs", "--describe", *BROKER)) == {
        "log.retention.ms": "86400000 sensitive=false synonyms={"
                            "DYNAMIC_BROKER_CONFIG:log.retention.ms=86400000, "
                            "STATIC_BROKER_CONFIG:log.retention.hours=168, "
                            "DEFAULT_CONFIG:log.retention.hours=168}",
        "min.insync.replicas": "1 sensitive=false synonyms={"
                               "DYNAMIC_BROKER_CONFIG:min.insync.replicas=1, "
                               "DEFAULT_CONFIG:min.insync.replicas=1}",
    }
    every = entries(cli.tool("kafka-configs", "--describe", "--all", *BROKER))
    assert every["log.segment.bytes"] == (
        "10485760 sensitive=false synonyms={"
        "DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=10485760, "
        "STATIC_BROKER_CONFIG:log.segment.bytes=1073741824, "
        "DEFAULT_CONFIG:log.segment.bytes=1073741824}")
    assert every["broker.id"].startswith("0 sensitive=false synonyms={STATIC_BROKER_CONFIG")

    # a topic without overrides takes them
    topic = f"dynamic-{uuid.uuid4().hex[:8]}"
    cli.tool("kafka-topics", "--create", "--topic", topic)
    on_topic = entries(cli.tool("kafka-configs", "--describe", "--all",
                                "--entity-type", "topics", "--entity-name", topic))
    assert on_topic["retention.ms"].startswith(
        "86400000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=86400000")
    assert on_topic["segment.bytes"].startswith(
        "10485760 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes")

    cli.tool("kafka-configs", "--alter", *BROKER, "--delete-config", "min.insync.replicas")
    assert list(entries(cli.tool("kafka-configs", "--describe", *BROKER))) == [
        "log.retention.ms"]

    refused = cli.run_raw("kafka-configs", "--bootstrap-server", cli.bootstrap, "--alter",
                          *BROKER, "--add-config", "broker.id=5")
    assert refused.returncode != 0
    assert ("InvalidRequestException: Cannot update these configs dynamically: Set(broker.id)"
            in refused.stderr), refused.explain()
    refused = cli.run_raw("kafka-configs", "--bootstrap-server", cli.bootstrap, "--alter",
                          *DEFAULT, "--add-config", "advertised.listeners=PLAINTEXT://h:1")
    assert ("Cannot update these configs at default cluster level, broker id must be "
            "specified: Set(advertised.listeners)" in refused.stderr), refused.explain()


def test_broker_configs_survive_a_restart_and_act_at_once(cli: KafkaCli,
                                                          broker: BrokerProcess) -> None:
    topic = f"dynamic-{uuid.uuid4().hex[:8]}"
    cli.tool("kafka-topics", "--create", "--topic", topic)
    assert produce(broker.bootstrap, topic, 5000) == 0
    cli.tool("kafka-configs", "--alter", *DEFAULT, "--add-config", "message.max.bytes=2000")
    # the topic has no max.message.bytes of its own: the new default holds at once
    assert produce(broker.bootstrap, topic, 5000) == KafkaError.MSG_SIZE_TOO_LARGE

    broker.restart()
    assert entries(cli.tool("kafka-configs", "--describe", *DEFAULT)) == {
        "message.max.bytes": "2000 sensitive=false synonyms={"
                             "DYNAMIC_DEFAULT_BROKER_CONFIG:message.max.bytes=2000}"}
    assert produce(broker.bootstrap, topic, 5000) == KafkaError.MSG_SIZE_TOO_LARGE

    cli.tool("kafka-configs", "--alter", *DEFAULT, "--delete-config", "message.max.bytes")
    assert produce(broker.bootstrap, topic, 5000) == 0


def test_broker_logger_levels(cli: KafkaCli) -> None:
    loggers = entries(cli.tool("kafka-configs", "--describe", *LOGGERS))
    assert "root" in loggers and "pybroker.broker" in loggers
    cli.tool("kafka-configs", "--alter", *LOGGERS, "--add-config", "pybroker.broker=DEBUG")
    loggers = entries(cli.tool("kafka-configs", "--describe", *LOGGERS))
    assert loggers["pybroker.broker"] == "DEBUG sensitive=false synonyms={}"
    cli.tool("kafka-configs", "--alter", *LOGGERS, "--delete-config", "pybroker.broker")
    after = entries(cli.tool("kafka-configs", "--describe", *LOGGERS))
    assert after["pybroker.broker"] == after["root"]  # inherited again
    refused = cli.run_raw("kafka-configs", "--bootstrap-server", cli.bootstrap, "--alter",
                          *LOGGERS, "--add-config", "no.such.logger=INFO")
    assert "Invalid broker logger(s): no.such.logger" in refused.stderr, refused.explain()
