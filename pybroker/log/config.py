"""Per-topic log configuration: the settings one partition log runs with.

A :class:`LogConfig` is immutable; a config change builds a new one and hands it to
``Log.update_config``. Its fields are Kafka 3.9's topic configs as the configuration catalogue
(:mod:`pybroker.config.catalogue`) defines them - names, types, defaults, validators, the broker
properties that supply their defaults - and values are parsed, refused and printed the way Kafka
does it (:mod:`pybroker.config.values`). The names this module exported before the catalogue
existed are re-exported from there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import ErrorCode, KafkaError
from pybroker.config.catalogue import (
    BROKER_SYNONYMS,
    CLEANUP_POLICIES,
    COMPRESSION_TYPES,
    CONFIGS_WITH_NO_SERVER_DEFAULTS,
    CREATE_TIME,
    INERT_TOPIC_CONFIGS,
    LOG_APPEND_TIME,
    TIMESTAMP_TYPES,
    TOPIC_CONFIG_NAMES,
    TOPIC_CONFIGS,
    TopicConfigKey,
    config_type,
    parse_topic_config,
)
from pybroker.config.validators import Validator, at_least, between, each_one_of, one_of
from pybroker.config.values import (
    BOOLEAN,
    CLASS,
    CONFIG_TYPE_IDS,
    DOUBLE,
    INT,
    INT_MAX,
    INT_MIN,
    LIST,
    LONG,
    LONG_MAX,
    LONG_MIN,
    PASSWORD,
    SHORT,
    STRING,
    ConfigException,
    alter_message,
    java_double,
    java_str,
    parse_value,
    to_config_string,
)

__all__ = [
    "BOOLEAN", "BROKER_SYNONYMS", "CLASS", "CLEANUP_POLICIES", "COMPRESSION_TYPES",
    "CONFIGS_WITH_NO_SERVER_DEFAULTS", "CONFIG_TYPE_IDS", "CREATE_TIME", "DOUBLE",
    "INERT_TOPIC_CONFIGS", "INT", "INT_MAX", "INT_MIN", "LIST", "LOG_APPEND_TIME", "LONG",
    "LONG_MAX", "LONG_MIN", "PASSWORD", "SHORT", "STRING", "TIMESTAMP_TYPES",
    "TOPIC_CONFIGS", "TOPIC_CONFIG_NAMES", "ConfigException", "LogConfig", "TopicConfigKey",
    "Validator", "alter_message", "at_least", "between", "config_type", "each_one_of",
    "java_double", "java_str", "one_of", "parse_topic_config", "parse_value", "to_config_string",
]


def _default(name: str) -> Any:
    return TOPIC_CONFIGS[name].default


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The settings one partition log runs with; defaults are Kafka's. List configs hold their
    items joined with commas, as Kafka prints them."""

    segment_bytes: int = _default("segment.bytes")
    segment_ms: int = _default("segment.ms")
    segment_jitter_ms: int = _default("segment.jitter.ms")
    segment_index_bytes: int = _default("segment.index.bytes")
    flush_messages: int = _default("flush.messages")
    flush_ms: int = _default("flush.ms")
    retention_bytes: int = _default("retention.bytes")
    retention_ms: int = _default("retention.ms")
    max_message_bytes: int = _default("max.message.bytes")
    index_interval_bytes: int = _default("index.interval.bytes")
    delete_retention_ms: int = _default("delete.retention.ms")
    min_compaction_lag_ms: int = _default("min.compaction.lag.ms")
    max_compaction_lag_ms: int = _default("max.compaction.lag.ms")
    file_delete_delay_ms: int = _default("file.delete.delay.ms")
    min_cleanable_dirty_ratio: float = _default("min.cleanable.dirty.ratio")
    cleanup_policy: str = _default("cleanup.policy")
    unclean_leader_election_enable: bool = _default("unclean.leader.election.enable")
    min_insync_replicas: int = _default("min.insync.replicas")
    compression_type: str = _default("compression.type")
    compression_gzip_level: int = _default("compression.gzip.level")
    compression_lz4_level: int = _default("compression.lz4.level")
    compression_zstd_level: int = _default("compression.zstd.level")
    preallocate: bool = _default("preallocate")
    message_format_version: str = _default("message.format.version")
    message_timestamp_type: str = _default("message.timestamp.type")
    message_timestamp_difference_max_ms: int = _default("message.timestamp.difference.max.ms")
    message_timestamp_before_max_ms: int = _default("message.timestamp.before.max.ms")
    message_timestamp_after_max_ms: int = _default("message.timestamp.after.max.ms")
    leader_replication_throttled_replicas: str = _default(
        "leader.replication.throttled.replicas")
    follower_replication_throttled_replicas: str = _default(
        "follower.replication.throttled.replicas")
    message_downconversion_enable: bool = _default("message.downconversion.enable")
    remote_storage_enable: bool = _default("remote.storage.enable")
    local_retention_ms: int = _default("local.retention.ms")
    local_retention_bytes: int = _default("local.retention.bytes")
    remote_log_copy_disable: bool = _default("remote.log.copy.disable")
    remote_log_delete_on_disable: bool = _default("remote.log.delete.on.disable")

    @property
    def log_append_time(self) -> bool:
        return self.message_timestamp_type == LOG_APPEND_TIME

    @classmethod
    def from_properties(
        cls, props: Mapping[str, str], defaults: LogConfig | None = None
    ) -> LogConfig:
        """Overlay topic-level ``props`` on ``defaults``, validated like Kafka's
        ``LogConfig.validate``: unknown names first, then each value in Kafka's definition
        order, then the rules between values."""
        base = defaults if defaults is not None else cls()
        for name in props:
            if name not in TOPIC_CONFIGS:
                raise KafkaError(ErrorCode.INVALID_CONFIG, f"Unknown topic config name: {name}")
        changes = {
            key.field: parse_topic_config(name, str(props[name]))
            for name, key in TOPIC_CONFIGS.items() if name in props
        }
        config = dataclasses.replace(base, **changes)
        config._validate_values()
        return config

    def _validate_values(self) -> None:
        if self.min_compaction_lag_ms > self.max_compaction_lag_ms:
            raise KafkaError(
                ErrorCode.INVALID_CONFIG,
                f"conflict topic config setting min.compaction.lag.ms ({self.min_compaction_lag_ms})"
                f" > max.compaction.lag.ms ({self.max_compaction_lag_ms})")
        if self.remote_storage_enable:
            # no tiered storage here, as in a Kafka broker with remote.log.storage.system.enable=false
            raise ConfigException("Tiered Storage functionality is disabled in the broker. "
                                  "Topic cannot be configured with remote log storage.")

    @classmethod
    def from_broker_properties(cls, props: Mapping[str, str]) -> LogConfig:
        """Defaults for every topic from server.properties (``log.segment.bytes`` and friends)."""
        changes: dict[str, Any] = {}
        for name, synonyms in BROKER_SYNONYMS.items():
            for broker_name, factor in synonyms:
                raw = props.get(broker_name)
                if raw is None:
                    continue
                if factor != 1:
                    units = parse_value(broker_name, raw, LONG)
                    value = units if units < 0 else min(units * factor, LONG_MAX)
                    changes[TOPIC_CONFIGS[name].field] = parse_topic_config(name, str(value))
                else:
                    changes[TOPIC_CONFIGS[name].field] = parse_topic_config(name, raw)
                break
        return cls(**changes)

    def value(self, name: str) -> Any:
        return getattr(self, TOPIC_CONFIGS[name].field)

    def to_properties(self) -> dict[str, str]:
        """Every topic config as Kafka names and prints it."""
        props: dict[str, str] = {}
        for name, key in TOPIC_CONFIGS.items():
            text = to_config_string(getattr(self, key.field), key.type)
            if text is None:  # every topic config has a default, so never None here
                raise ValueError(f"topic config {name} has no value")
            props[name] = text
        return props

    def diff(self, other: LogConfig) -> dict[str, str]:
        """The topic configs whose value in ``self`` differs from ``other`` (the overrides)."""
        mine, theirs = self.to_properties(), other.to_properties()
        return {k: v for k, v in mine.items() if theirs.get(k) != v}
