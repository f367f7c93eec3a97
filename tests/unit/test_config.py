from pathlib import Path

import pytest

from pybroker.config import BrokerConfig, parse_listeners, parse_properties


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

