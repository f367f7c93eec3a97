"""Per-topic log configuration with Kafka's topic config names and defaults.

A :class:`LogConfig` is immutable; a config change builds a new one and hands it to
``Log.update_config``. Topic-level names (``segment.bytes``) map to fields; broker-level
names (``log.segment.bytes``) feed the defaults through :data:`BROKER_SYNONYMS`, in the
order Kafka consults them (``log.retention.ms`` before ``log.retention.minutes`` before
``log.retention.hours``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import ErrorCode, KafkaError

LONG_MAX = 9223372036854775807
INT_MAX = 2147483647

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"
TIMESTAMP_TYPES = (CREATE_TIME, LOG_APPEND_TIME)
CLEANUP_POLICIES = ("delete", "compact")
COMPRESSION_TYPES = ("producer", "uncompressed", "gzip", "snappy", "lz4", "zstd")


def _int(lo: int, hi: int) -> Callable[[str, str], int]:
    def parse(name: str, raw: str) -> int:
        try:
            value = int(str(raw).strip())
        except ValueError:
            raise KafkaError(
                ErrorCode.INVALID_CONFIG, f"Invalid value {raw} for configuration {name}: not a number"
            ) from None
        if not lo <= value <= hi:
            raise KafkaError(
                ErrorCode.INVALID_CONFIG,
                f"Invalid value {value} for configuration {name}: value must be in [{lo}, {hi}]",
            )
        return value

    return parse


def _choice(options: tuple[str, ...]) -> Callable[[str, str], str]:
    def parse(name: str, raw: str) -> str:
        value = str(raw).strip()
        if value not in options:
            raise KafkaError(
                ErrorCode.INVALID_CONFIG,
                f"Invalid value {value} for configuration {name}: must be one of {', '.join(options)}",
            )
        return value

    return parse


def _ratio(name: str, raw: str) -> float:
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise KafkaError(
            ErrorCode.INVALID_CONFIG, f"Invalid value {raw} for configuration {name}: not a number"
        ) from None
    if not 0.0 <= value <= 1.0:
        raise KafkaError(
            ErrorCode.INVALID_CONFIG,
            f"Invalid value {value} for configuration {name}: value must be in [0.0, 1.0]",
        )
    return value


def _cleanup_policy(name: str, raw: str) -> str:
    parts = [p.strip() for p in str(raw).split(",") if p.strip()]
    if not parts or any(p not in CLEANUP_POLICIES for p in parts):
        raise KafkaError(
            ErrorCode.INVALID_CONFIG,
            f"Invalid value {raw} for configuration {name}: a list of {', '.join(CLEANUP_POLICIES)}",
        )
    return ",".join(dict.fromkeys(parts))


# topic config name -> (field name, parser). Ranges follow Kafka's validators.
_TOPIC_CONFIGS: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "segment.bytes": ("segment_bytes", _int(14, INT_MAX)),
    "segment.ms": ("segment_ms", _int(1, LONG_MAX)),
    "segment.jitter.ms": ("segment_jitter_ms", _int(0, LONG_MAX)),
    "segment.index.bytes": ("segment_index_bytes", _int(4, INT_MAX)),
    "index.interval.bytes": ("index_interval_bytes", _int(0, INT_MAX)),
    "flush.messages": ("flush_messages", _int(1, LONG_MAX)),
    "flush.ms": ("flush_ms", _int(0, LONG_MAX)),
    "max.message.bytes": ("max_message_bytes", _int(0, INT_MAX)),
    "message.timestamp.type": ("message_timestamp_type", _choice(TIMESTAMP_TYPES)),
    "message.timestamp.difference.max.ms": ("message_timestamp_difference_max_ms", _int(0, LONG_MAX)),
    "message.timestamp.before.max.ms": ("message_timestamp_before_max_ms", _int(0, LONG_MAX)),
    "message.timestamp.after.max.ms": ("message_timestamp_after_max_ms", _int(0, LONG_MAX)),
    "retention.ms": ("retention_ms", _int(-1, LONG_MAX)),
    "retention.bytes": ("retention_bytes", _int(-LONG_MAX - 1, LONG_MAX)),
    "cleanup.policy": ("cleanup_policy", _cleanup_policy),
    "min.insync.replicas": ("min_insync_replicas", _int(1, INT_MAX)),
    "compression.type": ("compression_type", _choice(COMPRESSION_TYPES)),
    "file.delete.delay.ms": ("file_delete_delay_ms", _int(0, LONG_MAX)),
    "delete.retention.ms": ("delete_retention_ms", _int(0, LONG_MAX)),
    "min.cleanable.dirty.ratio": ("min_cleanable_dirty_ratio", _ratio),
    "min.compaction.lag.ms": ("min_compaction_lag_ms", _int(0, LONG_MAX)),
    "max.compaction.lag.ms": ("max_compaction_lag_ms", _int(1, LONG_MAX)),
}

TOPIC_CONFIG_NAMES: tuple[str, ...] = tuple(_TOPIC_CONFIGS)

# Kafka topic configs that are accepted and reported back but have no effect here.
IGNORED_TOPIC_CONFIGS = frozenset(
    {
        "follower.replication.throttled.replicas",
        "leader.replication.throttled.replicas",
        "local.retention.bytes",
        "local.retention.ms",
        "message.downconversion.enable",
        "message.format.version",
        "preallocate",
        "remote.storage.enable",
        "unclean.leader.election.enable",
        "compression.gzip.level",
        "compression.lz4.level",
        "compression.zstd.level",
    }
)

# topic config name -> broker properties that supply its default, first match wins, with the
# factor that converts the broker unit to the topic unit (hours -> ms and so on).
BROKER_SYNONYMS: dict[str, tuple[tuple[str, int], ...]] = {
    "segment.bytes": (("log.segment.bytes", 1),),
    "segment.ms": (("log.roll.ms", 1), ("log.roll.hours", 3_600_000)),
    "segment.jitter.ms": (("log.roll.jitter.ms", 1), ("log.roll.jitter.hours", 3_600_000)),
    "segment.index.bytes": (("log.index.size.max.bytes", 1),),
    "index.interval.bytes": (("log.index.interval.bytes", 1),),
    "flush.messages": (("log.flush.interval.messages", 1),),
    "flush.ms": (("log.flush.interval.ms", 1), ("log.flush.scheduler.interval.ms", 1)),
    "max.message.bytes": (("message.max.bytes", 1),),
    "message.timestamp.type": (("log.message.timestamp.type", 1),),
    "message.timestamp.difference.max.ms": (("log.message.timestamp.difference.max.ms", 1),),
    "message.timestamp.before.max.ms": (("log.message.timestamp.before.max.ms", 1),),
    "message.timestamp.after.max.ms": (("log.message.timestamp.after.max.ms", 1),),
    "retention.ms": (
        ("log.retention.ms", 1),
        ("log.retention.minutes", 60_000),
        ("log.retention.hours", 3_600_000),
    ),
    "retention.bytes": (("log.retention.bytes", 1),),
    "cleanup.policy": (("log.cleanup.policy", 1),),
    "min.insync.replicas": (("min.insync.replicas", 1),),
    "compression.type": (("compression.type", 1),),
    "file.delete.delay.ms": (("log.segment.delete.delay.ms", 1),),
    "delete.retention.ms": (("log.cleaner.delete.retention.ms", 1),),
    "min.cleanable.dirty.ratio": (("log.cleaner.min.cleanable.ratio", 1),),
    "min.compaction.lag.ms": (("log.cleaner.min.compaction.lag.ms", 1),),
    "max.compaction.lag.ms": (("log.cleaner.max.compaction.lag.ms", 1),),
}


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The settings one partition log runs with; defaults are Kafka's."""

    segment_bytes: int = 1073741824
    segment_ms: int = 604800000
    segment_jitter_ms: int = 0
    segment_index_bytes: int = 10485760
    index_interval_bytes: int = 4096
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    max_message_bytes: int = 1048588
    message_timestamp_type: str = CREATE_TIME
    message_timestamp_difference_max_ms: int = LONG_MAX
    message_timestamp_before_max_ms: int = LONG_MAX
    message_timestamp_after_max_ms: int = LONG_MAX
    retention_ms: int = 604800000
    retention_bytes: int = -1
    cleanup_policy: str = "delete"
    min_insync_replicas: int = 1
    compression_type: str = "producer"
    file_delete_delay_ms: int = 60000
    delete_retention_ms: int = 86400000
    min_cleanable_dirty_ratio: float = 0.5
    min_compaction_lag_ms: int = 0
    max_compaction_lag_ms: int = LONG_MAX
    # Accepted-but-inert Kafka topic configs, kept so they can be described back.
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def log_append_time(self) -> bool:
        return self.message_timestamp_type == LOG_APPEND_TIME

    @classmethod
    def from_properties(
        cls, props: Mapping[str, str], defaults: LogConfig | None = None
    ) -> LogConfig:
        """Overlay topic-level ``props`` on ``defaults``; unknown names are INVALID_CONFIG."""
        base = defaults if defaults is not None else cls()
        changes: dict[str, Any] = {}
        extra = dict(base.extra)
        for name, raw in props.items():
            if name in _TOPIC_CONFIGS:
                field, parse = _TOPIC_CONFIGS[name]
                changes[field] = parse(name, raw)
            elif name in IGNORED_TOPIC_CONFIGS:
                extra[name] = str(raw)
            else:
                raise KafkaError(ErrorCode.INVALID_CONFIG, f"Unknown topic config name: {name}")
        if extra:
            changes["extra"] = tuple(sorted(extra.items()))
        return dataclasses.replace(base, **changes)

    @classmethod
    def from_broker_properties(cls, props: Mapping[str, str]) -> LogConfig:
        """Defaults for every topic from server.properties (``log.segment.bytes`` and friends)."""
        changes: dict[str, Any] = {}
        for name, synonyms in BROKER_SYNONYMS.items():
            for broker_name, factor in synonyms:
                raw = props.get(broker_name)
                if raw is None:
                    continue
                field, parse = _TOPIC_CONFIGS[name]
                if factor != 1:
                    units = _int(-1, LONG_MAX)(broker_name, raw)
                    value = units if units < 0 else min(units * factor, LONG_MAX)
                    changes[field] = parse(name, str(value))
                else:
                    changes[field] = parse(name, raw)
                break
        return cls(**changes)

    def to_properties(self) -> dict[str, str]:
        """Every topic config as Kafka names it, values as strings."""
        out = {name: str(getattr(self, field)) for name, (field, _) in _TOPIC_CONFIGS.items()}
        out.update(self.extra)
        return out

    def diff(self, other: LogConfig) -> dict[str, str]:
        """The topic configs whose value in ``self`` differs from ``other`` (the overrides)."""
        mine, theirs = self.to_properties(), other.to_properties()
        return {k: v for k, v in mine.items() if theirs.get(k) != v}
