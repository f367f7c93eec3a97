"""Per-topic log configuration: Apache Kafka 3.9's topic configs, with its names, types, defaults,
validators and messages.

A :class:`LogConfig` is immutable; a config change builds a new one and hands it to
``Log.update_config``. :data:`TOPIC_CONFIGS` describes every topic config Kafka 3.9 defines, in the
order Kafka defines (and therefore validates) them: its type (Kafka's ``ConfigDef.Type``), default,
validator, and the broker properties that supply its default (``log.segment.bytes`` for
``segment.bytes``), in the order Kafka consults them (``log.retention.ms`` before
``log.retention.minutes`` before ``log.retention.hours``).

Values are parsed and refused the way Kafka's ``ConfigDef`` does it, so a bad value is answered
with the message a Kafka broker gives (``Invalid value soon for configuration retention.ms: Not a
number of type LONG``), and are shown back the way Kafka prints them (``true``, ``0.5``, lists
joined with commas).

Some of Kafka's topic configs describe features this broker does not have: tiered storage
(``remote.storage.enable``, ``local.retention.*``, ``remote.log.*``), replication throttles
(``*.replication.throttled.replicas``), ``preallocate``, down-conversion for old fetchers
(``message.downconversion.enable``), ``message.format.version`` (ignored by Kafka 3.x too),
``unclean.leader.election.enable`` (one replica per partition) and the producer-side compression
levels (``compression.*.level``; batches are stored as the producer compressed them). They are
accepted, validated, stored and described exactly like Kafka does, but have no effect here; see
``TopicConfigKey.effective``.
"""

from __future__ import annotations

import dataclasses
import decimal
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import ErrorCode, KafkaError

LONG_MAX = 9223372036854775807
LONG_MIN = -LONG_MAX - 1
INT_MAX = 2147483647
INT_MIN = -INT_MAX - 1

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"
TIMESTAMP_TYPES = (CREATE_TIME, LOG_APPEND_TIME)
#: in the order Kafka's validator lists them
CLEANUP_POLICIES = ("compact", "delete")
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")

# Kafka's ConfigDef.Type names (they appear in messages) and their DescribeConfigs ConfigType ids.
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, CLASS, PASSWORD = (
    "BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD")
CONFIG_TYPE_IDS = {BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7,
                   CLASS: 8, PASSWORD: 9}


class ConfigException(KafkaError):
    """A value Kafka's ``ConfigDef`` (or one of its validators) refuses: INVALID_CONFIG.

    Kafka words these ``Invalid value <value> for configuration <name>: <why>``; AlterConfigs and
    IncrementalAlterConfigs prefix the resource (see :func:`alter_message`), CreateTopics does not.
    An unknown name or a conflict between two values is a plain ``KafkaError`` instead, which no
    API prefixes (Kafka's ``InvalidConfigurationException``).
    """

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.INVALID_CONFIG, message)

    @classmethod
    def invalid(cls, name: str, value: Any, why: str | None = None) -> ConfigException:
        return cls(f"Invalid value {java_str(value)} for configuration {name}"
                   + (f": {why}" if why is not None else ""))


def alter_message(resource_type_name: str, resource_name: str, error: KafkaError) -> str | None:
    """The message of a config change refused by the broker, as Kafka's AlterConfigs words it."""
    if isinstance(error, ConfigException):
        return (f"Invalid config value for resource ConfigResource(type={resource_type_name}, "
                f"name='{resource_name}'): {error.message}")
    return error.message


# -- Java's spelling of values -----------------------------------------------------------------


def java_double(x: float) -> str:
    """``Double.toString``: ``0.5``, ``1.0``, ``1.0E7``, ``1.0E-4``, ``NaN``, ``Infinity``."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    if x == 0:
        return sign + "0.0"
    # the shortest digits that read back as x (repr's), as Java 19+ prints them too
    exact = decimal.Decimal(repr(abs(x)))
    _, digit_tuple, exponent = exact.as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    scientific = len("".join(map(str, digit_tuple))) - 1 + int(exponent)
    if 1e-3 <= abs(x) < 1e7:
        text = format(exact, "f")
        if "." in text:
            text = text.rstrip("0")
        return sign + (text + "0" if text.endswith(".") else text if "." in text else text + ".0")
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{scientific}"


def java_str(value: Any) -> str:
    """How Java's ``String.valueOf`` prints a parsed config value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_str(v) for v in value) + "]"
    return str(value)


def to_config_string(value: Any, config_type: str) -> str | None:
    """Kafka's ``ConfigDef.convertToString``: lists are joined with commas."""
    if value is None:
        return None
    if config_type == LIST:
        items = value.split(",") if isinstance(value, str) and value else value or []
        return ",".join(java_str(v) for v in items)
    return java_str(value)


# -- parsing (ConfigDef.parseType) -------------------------------------------------------------

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DOUBLE = re.compile(
    r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)"
)
_COMMA = re.compile(r"\s*,\s*")
_JAVA_WHITESPACE = "".join(chr(c) for c in range(0x21))  # String.trim drops chars <= U+0020


def parse_value(name: str, raw: str, config_type: str) -> Any:
    """A string value parsed as Kafka parses it, or :class:`ConfigException` with its message."""
    trimmed = raw.strip(_JAVA_WHITESPACE)
    if config_type == BOOLEAN:
        if trimmed.lower() == "true":
            return True
        if trimmed.lower() == "false":
            return False
        raise ConfigException.invalid(name, raw, "Expected value to be either true or false")
    if config_type in (STRING, PASSWORD, CLASS):
        return trimmed
    if config_type in (INT, SHORT, LONG):
        lo, hi = {INT: (INT_MIN, INT_MAX), SHORT: (-32768, 32767), LONG: (LONG_MIN, LONG_MAX)}[
            config_type]
        if _INTEGER.fullmatch(trimmed):
            value = int(trimmed)
            if lo <= value <= hi:
                return value
        raise ConfigException.invalid(name, raw, f"Not a number of type {config_type}")
    if config_type == DOUBLE:
        if _DOUBLE.fullmatch(trimmed):
            text = trimmed.rstrip("fFdD") if not trimmed.endswith("Infinity") else trimmed
            return float(text.replace("Infinity", "inf").replace("NaN", "nan"))
        raise ConfigException.invalid(name, raw, f"Not a number of type {config_type}")
    if config_type == LIST:
        return [] if not trimmed else _COMMA.split(trimmed)
    raise ValueError(f"unknown config type {config_type}")


# -- validators (ConfigDef.Range, ValidString, ValidList and Kafka's own) ------------------------

Validator = Callable[[str, Any], None]


def at_least(lo: int) -> Validator:
    def check(name: str, value: Any) -> None:
        if value < lo:
            raise ConfigException.invalid(name, value, f"Value must be at least {lo}")
    return check


def between(lo: int, hi: int) -> Validator:
    def check(name: str, value: Any) -> None:
        if value < lo:
            raise ConfigException.invalid(name, value, f"Value must be at least {lo}")
        if value > hi:
            raise ConfigException.invalid(name, value, f"Value must be no more than {hi}")
    return check


def one_of(*options: str) -> Validator:
    def check(name: str, value: Any) -> None:
        if value not in options:
            raise ConfigException.invalid(name, value, f"String must be one of: {', '.join(options)}")
    return check


def each_one_of(*options: str) -> Validator:
    single = one_of(*options)

    def check(name: str, value: Any) -> None:
        for item in value:
            single(name, item)
    return check


def _gzip_level(name: str, value: Any) -> None:
    # Deflater's levels: 1 (fastest) to 9 (best), or -1 for zlib's default
    if value > 9 or (value < 1 and value != -1):
        raise ConfigException.invalid(name, value, "Value must be between 1 and 9 or equal to -1")


_THROTTLED_REPLICA = re.compile(r"([0-9]+:[0-9]+)?")


def _throttled_replicas(name: str, value: Any) -> None:
    items = [v.strip() for v in value]
    if not (all(_THROTTLED_REPLICA.fullmatch(v) for v in items) or "".join(items) == "*"):
        raise ConfigException.invalid(
            name, value, f"{name} must be the literal '*' or a list of replicas in the following "
                         "format: [partitionId]:[brokerId],[partitionId]:[brokerId],...")


#: the inter-broker protocol / message format versions Kafka 3.9 knows (MetadataVersion)
_IBP_VERSIONS = (
    "0.8.0", "0.8.1", "0.8.2", "0.9.0", "0.10.0-IV0", "0.10.0-IV1", "0.10.1-IV0", "0.10.1-IV1",
    "0.10.1-IV2", "0.10.2-IV0", "0.11.0-IV0", "0.11.0-IV1", "0.11.0-IV2", "1.0-IV0", "1.1-IV0",
    "2.0-IV0", "2.0-IV1", "2.1-IV0", "2.1-IV1", "2.1-IV2", "2.2-IV0", "2.2-IV1", "2.3-IV0",
    "2.3-IV1", "2.4-IV0", "2.4-IV1", "2.5-IV0", "2.6-IV0", "2.7-IV0", "2.7-IV1", "2.7-IV2",
    "2.8-IV0", "2.8-IV1", "3.0-IV0", "3.0-IV1", "3.1-IV0", "3.2-IV0", "3.3-IV0", "3.3-IV1",
    "3.3-IV2", "3.3-IV3", "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1",
    "3.6-IV2", "3.7-IV0", "3.7-IV1", "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0", "3.9-IV0",
    "4.0-IV0", "4.0-IV1",
)
#: a bare release ("2.8") names its latest production version; 4.0 is not production in 3.9
_KNOWN_VERSIONS = frozenset(_IBP_VERSIONS) | {
    v.split("-")[0] for v in _IBP_VERSIONS if not v.startswith("4.")}


def _message_format_version(name: str, value: Any) -> None:
    parts = value.split(".")
    keep = 3 if value.startswith("0.") else 2
    key = value if keep >= len(parts) else ".".join(parts[:keep])
    if key not in _KNOWN_VERSIONS:
        raise ConfigException.invalid(name, value, f"Version {value} is not a valid version")


# -- the topic configs -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopicConfigKey:
    name: str
    type: str
    default: Any
    field: str
    validator: Validator | None = None
    #: broker properties that supply the default, first match wins, with the factor that turns
    #: the broker unit into the topic unit (hours -> ms); empty for Kafka's configs without one
    synonyms: tuple[tuple[str, int], ...] = ()
    #: False for the configs accepted, validated, stored and described like Kafka, with no
    #: effect on this broker (see the module docstring)
    effective: bool = True


_HOUR, _MINUTE = 3_600_000, 60_000


def _key(name: str, config_type: str, default: Any, validator: Validator | None = None, *,
         synonyms: tuple[str | tuple[str, int], ...] = (), effective: bool = True) -> TopicConfigKey:
    syn = tuple(s if isinstance(s, tuple) else (s, 1) for s in synonyms)
    return TopicConfigKey(name, config_type, default, name.replace(".", "_"), validator, syn,
                          effective)


# In Kafka's definition order (LogConfig), which is also the order values are validated in.
TOPIC_CONFIGS: dict[str, TopicConfigKey] = {k.name: k for k in (
    _key("segment.bytes", INT, 1073741824, at_least(14), synonyms=("log.segment.bytes",)),
    _key("segment.ms", LONG, 604800000, at_least(1),
         synonyms=("log.roll.ms", ("log.roll.hours", _HOUR))),
    _key("segment.jitter.ms", LONG, 0, at_least(0),
         synonyms=("log.roll.jitter.ms", ("log.roll.jitter.hours", _HOUR))),
    _key("segment.index.bytes", INT, 10485760, at_least(4),
         synonyms=("log.index.size.max.bytes",)),
    _key("flush.messages", LONG, LONG_MAX, at_least(1), synonyms=("log.flush.interval.messages",)),
    _key("flush.ms", LONG, LONG_MAX, at_least(0),
         synonyms=("log.flush.interval.ms", "log.flush.scheduler.interval.ms")),
    _key("retention.bytes", LONG, -1, synonyms=("log.retention.bytes",)),
    _key("retention.ms", LONG, 604800000, at_least(-1),
         synonyms=("log.retention.ms", ("log.retention.minutes", _MINUTE),
                   ("log.retention.hours", _HOUR))),
    _key("max.message.bytes", INT, 1048588, at_least(0), synonyms=("message.max.bytes",)),
    _key("index.interval.bytes", INT, 4096, at_least(0), synonyms=("log.index.interval.bytes",)),
    _key("delete.retention.ms", LONG, 86400000, at_least(0),
         synonyms=("log.cleaner.delete.retention.ms",)),
    _key("min.compaction.lag.ms", LONG, 0, at_least(0),
         synonyms=("log.cleaner.min.compaction.lag.ms",)),
    _key("max.compaction.lag.ms", LONG, LONG_MAX, at_least(1),
         synonyms=("log.cleaner.max.compaction.lag.ms",)),
    _key("file.delete.delay.ms", LONG, 60000, at_least(0),
         synonyms=("log.segment.delete.delay.ms",)),
    _key("min.cleanable.dirty.ratio", DOUBLE, 0.5, between(0, 1),
         synonyms=("log.cleaner.min.cleanable.ratio",)),
    _key("cleanup.policy", LIST, "delete", each_one_of(*CLEANUP_POLICIES),
         synonyms=("log.cleanup.policy",)),
    _key("unclean.leader.election.enable", BOOLEAN, False,
         synonyms=("unclean.leader.election.enable",), effective=False),
    _key("min.insync.replicas", INT, 1, at_least(1), synonyms=("min.insync.replicas",)),
    _key("compression.type", STRING, "producer", one_of(*COMPRESSION_TYPES),
         synonyms=("compression.type",)),
    _key("compression.gzip.level", INT, -1, _gzip_level, synonyms=("compression.gzip.level",),
         effective=False),
    _key("compression.lz4.level", INT, 9, between(1, 17), synonyms=("compression.lz4.level",),
         effective=False),
    _key("compression.zstd.level", INT, 3, between(-131072, 22),
         synonyms=("compression.zstd.level",), effective=False),
    _key("preallocate", BOOLEAN, False, synonyms=("log.preallocate",), effective=False),
    _key("message.format.version", STRING, "3.0-IV1", _message_format_version,
         synonyms=("log.message.format.version",), effective=False),
    _key("message.timestamp.type", STRING, CREATE_TIME, one_of(*TIMESTAMP_TYPES),
         synonyms=("log.message.timestamp.type",)),
    _key("message.timestamp.difference.max.ms", LONG, LONG_MAX, at_least(0),
         synonyms=("log.message.timestamp.difference.max.ms",)),
    _key("message.timestamp.before.max.ms", LONG, LONG_MAX, at_least(0),
         synonyms=("log.message.timestamp.before.max.ms",)),
    _key("message.timestamp.after.max.ms", LONG, LONG_MAX, at_least(0),
         synonyms=("log.message.timestamp.after.max.ms",)),
    _key("leader.replication.throttled.replicas", LIST, "", _throttled_replicas, effective=False),
    _key("follower.replication.throttled.replicas", LIST, "", _throttled_replicas,
         effective=False),
    _key("message.downconversion.enable", BOOLEAN, True,
         synonyms=("log.message.downconversion.enable",), effective=False),
    _key("remote.storage.enable", BOOLEAN, False, effective=False),
    _key("local.retention.ms", LONG, -2, at_least(-2), synonyms=("log.local.retention.ms",),
         effective=False),
    _key("local.retention.bytes", LONG, -2, at_least(-2), synonyms=("log.local.retention.bytes",),
         effective=False),
    _key("remote.log.copy.disable", BOOLEAN, False, effective=False),
    _key("remote.log.delete.on.disable", BOOLEAN, False, effective=False),
)}

TOPIC_CONFIG_NAMES: tuple[str, ...] = tuple(TOPIC_CONFIGS)

#: the Kafka topic configs that are accepted, stored and described but change nothing here
INERT_TOPIC_CONFIGS = frozenset(k.name for k in TOPIC_CONFIGS.values() if not k.effective)

# topic config name -> broker properties that supply its default (see TopicConfigKey.synonyms)
BROKER_SYNONYMS: dict[str, tuple[tuple[str, int], ...]] = {
    k.name: k.synonyms for k in TOPIC_CONFIGS.values() if k.synonyms
}

#: Kafka's topic configs that no broker property defaults (LogConfig.CONFIGS_WITH_NO_SERVER_DEFAULTS)
CONFIGS_WITH_NO_SERVER_DEFAULTS = frozenset(set(TOPIC_CONFIGS) - set(BROKER_SYNONYMS))


def config_type(name: str) -> str | None:
    key = TOPIC_CONFIGS.get(name)
    return key.type if key else None


def parse_topic_config(name: str, raw: str) -> Any:
    """One topic config value, parsed and validated (ConfigException when refused)."""
    key = TOPIC_CONFIGS[name]
    value = parse_value(name, raw, key.type)
    if key.validator is not None:
        key.validator(name, value)
    return ",".join(value) if key.type == LIST else value


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The settings one partition log runs with; defaults are Kafka's. List configs hold their
    items joined with commas, as Kafka prints them."""

    segment_bytes: int = 1073741824
    segment_ms: int = 604800000
    segment_jitter_ms: int = 0
    segment_index_bytes: int = 10485760
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    retention_bytes: int = -1
    retention_ms: int = 604800000
    max_message_bytes: int = 1048588
    index_interval_bytes: int = 4096
    delete_retention_ms: int = 86400000
    min_compaction_lag_ms: int = 0
    max_compaction_lag_ms: int = LONG_MAX
    file_delete_delay_ms: int = 60000
    min_cleanable_dirty_ratio: float = 0.5
    cleanup_policy: str = "delete"
    unclean_leader_election_enable: bool = False
    min_insync_replicas: int = 1
    compression_type: str = "producer"
    compression_gzip_level: int = -1
    compression_lz4_level: int = 9
    compression_zstd_level: int = 3
    preallocate: bool = False
    message_format_version: str = "3.0-IV1"
    message_timestamp_type: str = CREATE_TIME
    message_timestamp_difference_max_ms: int = LONG_MAX
    message_timestamp_before_max_ms: int = LONG_MAX
    message_timestamp_after_max_ms: int = LONG_MAX
    leader_replication_throttled_replicas: str = ""
    follower_replication_throttled_replicas: str = ""
    message_downconversion_enable: bool = True
    remote_storage_enable: bool = False
    local_retention_ms: int = -2
    local_retention_bytes: int = -2
    remote_log_copy_disable: bool = False
    remote_log_delete_on_disable: bool = False

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
        return {name: to_config_string(getattr(self, key.field), key.type)
                for name, key in TOPIC_CONFIGS.items()}

    def diff(self, other: LogConfig) -> dict[str, str]:
        """The topic configs whose value in ``self`` differs from ``other`` (the overrides)."""
        mine, theirs = self.to_properties(), other.to_properties()
        return {k: v for k, v in mine.items() if theirs.get(k) != v}
