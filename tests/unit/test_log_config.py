"""LogConfig: Kafka topic config names, defaults, validation and broker-level synonyms."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.log import LogConfig
from pybroker.log.config import BROKER_SYNONYMS, LONG_MAX, TOPIC_CONFIG_NAMES


def test_defaults_are_kafkas() -> None:
    props = LogConfig().to_properties()
    assert props["segment.bytes"] == "1073741824"
    assert props["segment.ms"] == "604800000"
    assert props["segment.index.bytes"] == "10485760"
    assert props["index.interval.bytes"] == "4096"
    assert props["flush.messages"] == props["flush.ms"] == str(LONG_MAX)
    assert props["max.message.bytes"] == "1048588"
    assert props["message.timestamp.type"] == "CreateTime"
    assert props["retention.ms"] == "604800000"
    assert props["retention.bytes"] == "-1"
    assert props["cleanup.policy"] == "delete"
    assert props["min.insync.replicas"] == "1"
    assert props["compression.type"] == "producer"
    assert props["file.delete.delay.ms"] == "60000"


def test_topic_overrides_and_round_trip() -> None:
    defaults = LogConfig(segment_bytes=1 << 20)
    cfg = LogConfig.from_properties(
        {"retention.ms": "1000", "message.timestamp.type": "LogAppendTime", "cleanup.policy": "compact,delete"},
        defaults,
    )
    assert cfg.segment_bytes == 1 << 20 and cfg.retention_ms == 1000
    assert cfg.log_append_time and cfg.cleanup_policy == "compact,delete"
    assert LogConfig.from_properties(cfg.to_properties()) == cfg
    assert cfg.diff(defaults) == {
        "retention.ms": "1000",
        "message.timestamp.type": "LogAppendTime",
        "cleanup.policy": "compact,delete",
    }


def test_inert_kafka_topic_configs_are_kept() -> None:
    cfg = LogConfig.from_properties({"unclean.leader.election.enable": "false"})
    assert cfg.to_properties()["unclean.leader.election.enable"] == "false"


@pytest.mark.parametrize(
    "props",
    [
        {"segment.bytes": "lots"},
        {"segment.bytes": "10"},
        {"retention.ms": "-2"},
        {"min.insync.replicas": "0"},
        {"message.timestamp.type": "WallClock"},
        {"cleanup.policy": "shred"},
        {"compression.type": "brotli"},
        {"no.such.config": "1"},
    ],
)
def test_invalid_values_are_invalid_config(props: dict[str, str]) -> None:
    with pytest.raises(KafkaError) as e:
        LogConfig.from_properties(props)
    assert e.value.code == ErrorCode.INVALID_CONFIG


def test_broker_properties_supply_the_defaults() -> None:
    cfg = LogConfig.from_broker_properties(
        {
            "log.segment.bytes": "1048576",
            "log.retention.hours": "1",
            "log.roll.hours": "2",
            "log.index.interval.bytes": "128",
            "log.flush.interval.messages": "10",
            "log.flush.interval.ms": "500",
            "message.max.bytes": "2000000",
            "log.message.timestamp.type": "LogAppendTime",
            "log.cleanup.policy": "compact",
            "compression.type": "zstd",
            "min.insync.replicas": "2",
            "broker.id": "0",
        }
    )
    assert cfg.segment_bytes == 1048576
    assert cfg.retention_ms == 3_600_000
    assert cfg.segment_ms == 7_200_000
    assert cfg.index_interval_bytes == 128
    assert (cfg.flush_messages, cfg.flush_ms) == (10, 500)
    assert cfg.max_message_bytes == 2_000_000
    assert cfg.log_append_time and cfg.cleanup_policy == "compact"
    assert (cfg.compression_type, cfg.min_insync_replicas) == ("zstd", 2)


def test_broker_synonym_precedence() -> None:
    cfg = LogConfig.from_broker_properties(
        {"log.retention.ms": "5", "log.retention.minutes": "1", "log.retention.hours": "1"}
    )
    assert cfg.retention_ms == 5
    assert LogConfig.from_broker_properties({"log.retention.minutes": "2"}).retention_ms == 120_000
    assert LogConfig.from_broker_properties({"log.retention.hours": "-1"}).retention_ms == -1
    assert LogConfig.from_broker_properties({}) == LogConfig()
    with pytest.raises(KafkaError):
        LogConfig.from_broker_properties({"log.segment.bytes": "x"})


def test_every_topic_config_has_a_broker_synonym() -> None:
    assert set(BROKER_SYNONYMS) == set(TOPIC_CONFIG_NAMES)
