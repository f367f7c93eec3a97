from pathlib import Path

import pytest

from pybroker.config import BrokerConfig, parse_listeners, parse_properties
from pybroker.config.catalogue import BROKER_CONFIGS
from tests.unit.paths import REPO_ROOT


def test_parse_properties_handles_comments_separators_and_continuations():
    text = """
# a comment
! another comment
broker.id=3
listeners = PLAINTEXT://127.0.0.1:9092
log.dirs: /data/a,\\
    /data/b
empty.value=
num.partitions 6
"""
    props = parse_properties(text)
    assert props == {
        "broker.id": "3",
        "listeners": "PLAINTEXT://127.0.0.1:9092",
        "log.dirs": "/data/a,/data/b",
        "empty.value": "",
        "num.partitions": "6",
    }


def test_defaults_file_and_overrides_layer_in_kafkas_order(tmp_path: Path):
    f = tmp_path / "server.properties"
    f.write_text("broker.id=1\nnum.partitions=3\nlog.dirs=/x\n")
    config = BrokerConfig.load(f, ["num.partitions=5", "log.dirs=/y,/z"])
    assert config.broker_id == 1
    assert config.get_int("num.partitions") == 5
    assert config.log_dirs == [Path("/y"), Path("/z")]
    assert config.get_int("default.replication.factor") == 1  # Kafka's default
    assert "num.partitions" in config.explicit
    assert "default.replication.factor" not in config.explicit


def test_log_dir_is_used_when_log_dirs_is_unset():
    assert BrokerConfig.from_dict({}).log_dirs == [Path("/tmp/kafka-logs")]


def test_bad_override_is_rejected():
    with pytest.raises(ValueError):
        BrokerConfig.load(None, ["no-equals-sign"])


def test_listeners_and_advertised_listeners():
    eps = parse_listeners("PLAINTEXT://127.0.0.1:9092, internal://:9093")
    assert [(e.listener, e.host, e.port) for e in eps] == [
        ("PLAINTEXT", "127.0.0.1", 9092),
        ("INTERNAL", "", 9093),
    ]
    config = BrokerConfig.from_dict({"listeners": "PLAINTEXT://:9092"})
    assert config.advertised_listeners[0].host == "127.0.0.1"
    config = BrokerConfig.from_dict({"listeners": "PLAINTEXT://:9092",
                                     "advertised.listeners": "PLAINTEXT://broker1:19092"})
    assert (config.advertised_listeners[0].host, config.advertised_listeners[0].port) == ("broker1", 19092)
    with pytest.raises(ValueError):
        parse_listeners("127.0.0.1:9092")



@pytest.mark.parametrize(("props", "message"), [
    ({"num.partitions": "abc"},
     "Invalid value abc for configuration num.partitions: Not a number of type INT"),
    ({"num.partitions": "0"},
     "Invalid value 0 for configuration num.partitions: Value must be at least 1"),
    ({"auto.create.topics.enable": "yes"}, "Invalid value yes for configuration "
                                           "auto.create.topics.enable: Expected value to be "
                                           "either true or false"),
    ({"log.cleanup.policy": "compact,shred"}, "Invalid value shred for configuration "
                                              "log.cleanup.policy: String must be one of: "
                                              "compact, delete"),
    # the value as Kafka prints the parsed double
    ({"log.cleaner.min.cleanable.ratio": "2"}, "Invalid value 2.0 for configuration "
                                               "log.cleaner.min.cleanable.ratio: Value must be no "
                                               "more than 1"),
    ({"log.retention.ms": "soon"},
     "Invalid value soon for configuration log.retention.ms: Not a number of type LONG"),
    ({"offsets.retention.minutes": ""},
     "Invalid value  for configuration offsets.retention.minutes: Not a number of type INT"),
])
def test_a_bad_value_is_refused_at_load_with_kafkas_message(props: dict[str, str],
                                                           message: str) -> None:
    with pytest.raises(ValueError) as e:
        BrokerConfig.from_dict(props)
    assert str(e.value) == message


def test_a_bad_listener_is_refused_at_load(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="invalid listener"):
        BrokerConfig.load(None, ["advertised.listeners=127.0.0.1:9092"])


def test_unknown_properties_are_accepted_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    config = BrokerConfig.from_dict({"num.network.threads": "3", "num.partitions": "2"})
    assert config.get("num.network.threads") == "3" and config.get_int("num.partitions") == 2
    assert [r.getMessage() for r in caplog.records] == [
        "the configuration 'num.network.threads' was supplied but is not one this broker "
        "knows: it is ignored"]


def test_typed_values_and_defaults() -> None:
    config = BrokerConfig.from_dict({"log.retention.minutes": "+5", "delete.topic.enable": "FALSE",
                                     "log.cleanup.policy": "compact , delete"})
    assert config.value("log.retention.minutes") == 5
    assert config.get("log.retention.minutes") == "+5"  # as written
    assert config.get_bool("delete.topic.enable") is False
    assert config.value("log.cleanup.policy") == ["compact", "delete"]
    assert config.value("log.retention.ms") is None and config.get("log.retention.ms") is None
    assert config.get("log.retention.hours") == "168"  # Kafka's default, as Kafka prints it
    assert config.get_int("socket.request.max.bytes") == 104857600
    with pytest.raises(KeyError):
        config.get_int("log.retention.ms")  # unset and without a default
    with pytest.raises(KeyError):
        config.get_int("no.such.property")


def test_the_shipped_server_properties_parse_with_kafkas_quickstart_values() -> None:
    """config/server.properties (what ``make run`` serves) loads without a warning and carries
    the values of the file Kafka 3.9 ships wherever pybroker has the setting."""
    shipped = REPO_ROOT / "config" / "server.properties"
    config = BrokerConfig.load(shipped)
    assert not config.get("zookeeper.connect")  # the embedded single node
    kafka_quickstart = {
        "num.partitions": 1,
        "socket.request.max.bytes": 104857600,
        "offsets.topic.replication.factor": 1,
        "log.retention.hours": 168,
        "log.segment.bytes": 1073741824,
        "log.retention.check.interval.ms": 300000,
        "group.initial.rebalance.delay.ms": 0,
    }
    assert {name: config.value(name) for name in kafka_quickstart} == kafka_quickstart
    assert all(name in BROKER_CONFIGS for name in config.explicit)
