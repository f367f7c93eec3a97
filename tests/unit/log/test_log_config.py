"""LogConfig: Kafka topic config names, defaults, validation and broker-level synonyms."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.log import LogConfig
from pybroker.log.config import (
    BROKER_SYNONYMS,
    CONFIGS_WITH_NO_SERVER_DEFAULTS,
    INERT_TOPIC_CONFIGS,
    LONG_MAX,
    TOPIC_CONFIG_NAMES,
    ConfigException,
    alter_message,
    java_double,
)


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
    cfg = LogConfig.from_properties({"unclean.leader.election.enable": "TRUE",
                                     "preallocate": " true ",
                                     "leader.replication.throttled.replicas": "0:0 , 1:0"})
    props = cfg.to_properties()
    assert props["unclean.leader.election.enable"] == props["preallocate"] == "true"
    assert props["leader.replication.throttled.replicas"] == "0:0,1:0"
    assert "preallocate" in INERT_TOPIC_CONFIGS and "retention.ms" not in INERT_TOPIC_CONFIGS


def test_kafkas_topic_config_set() -> None:
    """Kafka 3.9's 36 topic configs, printed as Kafka prints their defaults."""
    props = LogConfig().to_properties()
    assert len(props) == 36
    assert props["compression.gzip.level"] == "-1"
    assert props["compression.lz4.level"] == "9"
    assert props["compression.zstd.level"] == "3"
    assert props["local.retention.ms"] == props["local.retention.bytes"] == "-2"
    assert props["message.format.version"] == "3.0-IV1"
    assert props["message.downconversion.enable"] == "true"
    assert props["remote.storage.enable"] == props["preallocate"] == "false"
    assert props["follower.replication.throttled.replicas"] == ""
    assert props["min.cleanable.dirty.ratio"] == "0.5"


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"retention.ms": "soon"}, "Invalid value soon for configuration retention.ms: "
                                   "Not a number of type LONG"),
        ({"segment.bytes": "3000000000"}, "Invalid value 3000000000 for configuration "
                                          "segment.bytes: Not a number of type INT"),
        ({"segment.bytes": "10"}, "Invalid value 10 for configuration segment.bytes: "
                                  "Value must be at least 14"),
        ({"min.cleanable.dirty.ratio": "1.5"}, "Invalid value 1.5 for configuration "
                                               "min.cleanable.dirty.ratio: Value must be no more than 1"),
        ({"cleanup.policy": "compact,sometimes"}, "Invalid value sometimes for configuration "
                                                  "cleanup.policy: String must be one of: compact, "
                                                  "delete"),
        ({"preallocate": "yes"}, "Invalid value yes for configuration preallocate: "
                                 "Expected value to be either true or false"),
        ({"compression.type": "brotli"}, "Invalid value brotli for configuration compression.type: "
                                         "String must be one of: uncompressed, zstd, lz4, snappy, "
                                         "gzip, producer"),
        ({"compression.gzip.level": "0"}, "Invalid value 0 for configuration compression.gzip.level:"
                                          " Value must be between 1 and 9 or equal to -1"),
        ({"message.format.version": "0.7"}, "Invalid value 0.7 for configuration "
                                            "message.format.version: Version 0.7 is not a valid "
                                            "version"),
        # the first refused value in Kafka's definition order is the one reported
        ({"segment.ms": "0", "segment.bytes": "1"}, "Invalid value 1 for configuration "
                                                    "segment.bytes: Value must be at least 14"),
    ],
)
def test_kafkas_validation_messages(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigException) as e:
        LogConfig.from_properties(props)
    assert e.value.code == ErrorCode.INVALID_CONFIG and e.value.message == message
    assert alter_message("TOPIC", "t", e.value) == (
        f"Invalid config value for resource ConfigResource(type=TOPIC, name='t'): {message}")


def test_unknown_names_and_conflicts_are_not_value_errors() -> None:
    for props, message in (
        ({"no.such.config": "1", "retention.ms": "soon"}, "Unknown topic config name: no.such.config"),
        ({"min.compaction.lag.ms": "10", "max.compaction.lag.ms": "5"},
         "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"),
    ):
        with pytest.raises(KafkaError) as e:
            LogConfig.from_properties(props)
        assert not isinstance(e.value, ConfigException) and e.value.message == message
        assert alter_message("TOPIC", "t", e.value) == message


def test_values_are_printed_as_kafka_prints_them() -> None:
    cfg = LogConfig.from_properties({"min.cleanable.dirty.ratio": "1", "retention.ms": "+5",
                                     "cleanup.policy": " compact , delete ",
                                     "message.format.version": "2.8.1"})
    props = cfg.to_properties()
    assert props["min.cleanable.dirty.ratio"] == "1.0"
    assert props["retention.ms"] == "5"
    assert props["cleanup.policy"] == "compact,delete"
    assert props["message.format.version"] == "2.8.1"
    assert LogConfig.from_properties({"cleanup.policy": ""}).cleanup_policy == ""
    assert [java_double(x) for x in (0.5, 1e7, 1e-4, 0.001, 1.7976931348623157e308)] == [
        "0.5", "1.0E7", "1.0E-4", "0.001", "1.7976931348623157E308"]


def test_tiered_storage_is_refused() -> None:
    with pytest.raises(ConfigException) as e:
        LogConfig.from_properties({"remote.storage.enable": "true"})
    assert "Tiered Storage functionality is disabled" in str(e.value.message)


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


def test_every_topic_config_but_kafkas_exceptions_has_a_broker_synonym() -> None:
    assert set(BROKER_SYNONYMS) | CONFIGS_WITH_NO_SERVER_DEFAULTS == set(TOPIC_CONFIG_NAMES)
    assert CONFIGS_WITH_NO_SERVER_DEFAULTS == {
        "remote.storage.enable", "remote.log.delete.on.disable", "remote.log.copy.disable",
        "leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
