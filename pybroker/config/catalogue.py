"""The one catalogue of configuration properties: Apache Kafka 3.9's topic configs, each written
once with its type, default and validator.

:data:`TOPIC_CONFIGS` holds every topic config Kafka 3.9 defines, in the order Kafka defines (and
therefore validates) them: its type (Kafka's ``ConfigDef.Type``), default, validator, and the
broker properties that supply its default (``log.segment.bytes`` for ``segment.bytes``), in the
order Kafka consults them (``log.retention.ms`` before ``log.retention.minutes`` before
``log.retention.hours``).

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

from dataclasses import dataclass
from typing import Any

from .validators import (
    GZIP_LEVEL,
    MESSAGE_FORMAT_VERSION,
    THROTTLED_REPLICAS,
    Validator,
    at_least,
    between,
    each_one_of,
    one_of,
)
from .values import BOOLEAN, DOUBLE, INT, LIST, LONG, LONG_MAX, STRING, parse_value

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"
TIMESTAMP_TYPES = (CREATE_TIME, LOG_APPEND_TIME)
#: in the order Kafka's validator lists them
CLEANUP_POLICIES = ("compact", "delete")
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")


# -- topic configs -----------------------------------------------------------------------------


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
    _key("compression.gzip.level", INT, -1, GZIP_LEVEL, synonyms=("compression.gzip.level",),
         effective=False),
    _key("compression.lz4.level", INT, 9, between(1, 17), synonyms=("compression.lz4.level",),
         effective=False),
    _key("compression.zstd.level", INT, 3, between(-131072, 22),
         synonyms=("compression.zstd.level",), effective=False),
    _key("preallocate", BOOLEAN, False, synonyms=("log.preallocate",), effective=False),
    _key("message.format.version", STRING, "3.0-IV1", MESSAGE_FORMAT_VERSION,
         synonyms=("log.message.format.version",), effective=False),
    _key("message.timestamp.type", STRING, CREATE_TIME, one_of(*TIMESTAMP_TYPES),
         synonyms=("log.message.timestamp.type",)),
    _key("message.timestamp.difference.max.ms", LONG, LONG_MAX, at_least(0),
         synonyms=("log.message.timestamp.difference.max.ms",)),
    _key("message.timestamp.before.max.ms", LONG, LONG_MAX, at_least(0),
         synonyms=("log.message.timestamp.before.max.ms",)),
    _key("message.timestamp.after.max.ms", LONG, LONG_MAX, at_least(0),
         synonyms=("log.message.timestamp.after.max.ms",)),
    _key("leader.replication.throttled.replicas", LIST, "", THROTTLED_REPLICAS, effective=False),
    _key("follower.replication.throttled.replicas", LIST, "", THROTTLED_REPLICAS,
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
