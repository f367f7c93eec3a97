"""Broker properties from KAFKA_* environment variables, in the Kafka images' convention."""

from __future__ import annotations

import os

import pytest

from pybroker.cli import main
from pybroker.config import BrokerConfig
from pybroker.config.environment import properties_from_env, property_name, render_properties


@pytest.mark.parametrize(("variable", "name"), [
    ("KAFKA_BROKER_ID", "broker.id"),
    ("KAFKA_ZOOKEEPER_CONNECT", "zookeeper.connect"),
    ("KAFKA_LISTENERS", "listeners"),
    ("KAFKA_ADVERTISED_LISTENERS", "advertised.listeners"),
    ("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "listener.security.protocol.map"),
    ("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "offsets.topic.replication.factor"),
    # "__" is "_", "___" is "-"
    ("KAFKA_LISTENER_NAME_INTERNAL_SSL_KEYSTORE__LOCATION",
     "listener.name.internal.ssl.keystore_location"),
    ("KAFKA_CONFLUENT_SUPPORT___METRICS_ENABLE", "confluent.support-metrics.enable"),
    ("KAFKA_A___B__C_D", "a-b_c.d"),
])
def test_variable_names(variable: str, name: str) -> None:
    assert property_name(variable) == name


@pytest.mark.parametrize("variable", [
    # the JVM's and the images' own settings, not broker properties
    "KAFKA_HEAP_OPTS", "KAFKA_OPTS", "KAFKA_JMX_PORT", "KAFKA_JMX_HOSTNAME", "KAFKA_LOG4J_OPTS",
    "KAFKA_LOG4J_LOGGERS", "KAFKA_LOG4J_ROOT_LOGLEVEL", "KAFKA_JVM_PERFORMANCE_OPTS",
    "KAFKA_GC_LOG_OPTS", "KAFKA_VERSION", "KAFKA_HOME",
    # not KAFKA_*, or nothing after the prefix
    "ZOOKEEPER_CLIENT_PORT", "CONFLUENT_METRICS_ENABLE", "KAFKA_", "KAFKA", "PATH",
    "KAFKA_BAD-NAME", "KAFKA___",
])
def test_variables_that_are_not_properties(variable: str) -> None:
    assert property_name(variable) is None


def test_a_confluent_compose_environment() -> None:
    environ = {
        "KAFKA_BROKER_ID": "1",
        "KAFKA_ZOOKEEPER_CONNECT": "zookeeper:2181",
        "KAFKA_LISTENERS": "INTERNAL://0.0.0.0:29092,EXTERNAL://0.0.0.0:9092",
        "KAFKA_ADVERTISED_LISTENERS": "INTERNAL://kafka:29092,EXTERNAL://localhost:9092",
        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
        "KAFKA_INTER_BROKER_LISTENER_NAME": "INTERNAL",
        "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
        "KAFKA_HEAP_OPTS": "-Xmx1G",
        "HOSTNAME": "kafka",
    }
    props = properties_from_env(environ)
    assert props == {
        "advertised.listeners": "INTERNAL://kafka:29092,EXTERNAL://localhost:9092",
        "broker.id": "1",
        "inter.broker.listener.name": "INTERNAL",
        "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
        "listeners": "INTERNAL://0.0.0.0:29092,EXTERNAL://0.0.0.0:9092",
        "offsets.topic.replication.factor": "1",
        "zookeeper.connect": "zookeeper:2181",
    }
    config = BrokerConfig.from_dict(props)
    assert config.broker_id == 1
    assert [e.listener for e in config.advertised_listeners] == ["INTERNAL", "EXTERNAL"]


def test_rendered_properties_read_back() -> None:
    from pybroker.config import parse_properties

    props = {"broker.id": "2", "listeners": "PLAINTEXT://:9092", "log.dirs": "/a b,/c"}
    text = render_properties(props)
    assert text == "broker.id=2\nlisteners=PLAINTEXT://:9092\nlog.dirs=/a b,/c\n"
    assert parse_properties(text) == props
    with pytest.raises(ValueError, match="line break"):
        render_properties({"x": "a\nb"})


def test_env_properties_command(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    for name in [n for n in os.environ if n.startswith("KAFKA_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("KAFKA_NUM_PARTITIONS", "3")
    monkeypatch.setenv("KAFKA_LOG_RETENTION_HOURS", "1")
    monkeypatch.setenv("KAFKA_OPTS", "-Dx=y")
    assert main(["env-properties"]) == 0
    assert capsys.readouterr().out == "log.retention.hours=1\nnum.partitions=3\n"
