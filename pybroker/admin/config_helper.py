"""Config descriptions as DescribeConfigs and CreateTopics give them (Kafka's ``ConfigHelper``).

Every topic config Kafka defines, printed the way Kafka prints it, with the synonyms Kafka
lists - the topic override, then the broker properties behind the topic config's
highest-priority broker name (``log.retention.ms`` for ``retention.ms``: ``log.retention.ms``,
``log.retention.minutes``, ``log.retention.hours``), layer by layer: this broker's dynamic
configs, the cluster's dynamic defaults, server.properties, Kafka's defaults, keeping only those
from that highest-priority name on.

A broker is described with the broker properties the catalogue marks as described, plus every
property a dynamic config sets (Kafka's extra dynamic properties and custom ones): each with
its current value, where it comes from, its synonyms the same way, and read-only unless Kafka
can change it at run time. The cluster-wide default resource (the empty name) lists the
dynamic defaults, with only their DYNAMIC_DEFAULT_BROKER_CONFIG synonyms. A property whose
type is a password, or unknown (a custom one), is sensitive: described without its value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pybroker.config import BROKER_CONFIGS, CONFIG_TYPE_IDS, STRING, TOPIC_CONFIGS, to_config_string
from pybroker.config.catalogue import GROUP_CONFIGS
from pybroker.config.dynamic import (
    DEFAULT_CONFIG,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_BROKER_LOGGER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    DYNAMIC_TOPIC_CONFIG,
    GROUP_CONFIG,
    STATIC_BROKER_CONFIG,
    DynamicBrokerConfig,
    config_type,
    is_dynamic,
    is_sensitive,
)
from pybroker.config.groups import GroupConfigs

if TYPE_CHECKING:
    from pybroker.metadata.config_repository import ConfigRepository

__all__ = [
    "DEFAULT_CONFIG", "DYNAMIC_BROKER_CONFIG", "DYNAMIC_BROKER_LOGGER_CONFIG",
    "DYNAMIC_DEFAULT_BROKER_CONFIG", "DYNAMIC_TOPIC_CONFIG", "STATIC_BROKER_CONFIG",
    "STRING_TYPE", "UNKNOWN_TYPE", "ConfigEntry", "broker_config_entries",
    "default_broker_config_entries", "topic_config_entries",
]

# ConfigType, as Kafka numbers it (the catalogue gives each config's).
UNKNOWN_TYPE = 0
STRING_TYPE = CONFIG_TYPE_IDS[STRING]


@dataclass(slots=True)
class ConfigEntry:
    name: str
    value: str | None
    source: int
    read_only: bool = False
    is_sensitive: bool = False
    config_type: int = STRING_TYPE
    synonyms: list[tuple[str, str | None, int]] = field(default_factory=list)
    #: what DescribeConfigs v3+ says without include_documentation: null, except for
    #: loggers, whose entries Kafka leaves at the field's default (empty)
    documentation: str | None = None


def topic_config_entries(dynamic: DynamicBrokerConfig, configs: ConfigRepository,
                         overrides: Mapping[str, str]) -> list[ConfigEntry]:
    """Every topic config with its effective value, where it comes from and its synonyms."""
    effective = configs.effective(overrides)
    entries = []
    for name, key in TOPIC_CONFIGS.items():
        value = to_config_string(effective.value(name), key.type)
        synonyms: list[tuple[str, str | None, int]] = []
        if name in overrides:
            synonyms.append((name, value, DYNAMIC_TOPIC_CONFIG))
        if key.synonyms:
            synonyms += dynamic.synonyms(key.synonyms[0][0])
        source = synonyms[0][2] if synonyms else DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source, config_type=CONFIG_TYPE_IDS[key.type],
                                   synonyms=synonyms))
    return entries


def group_config_entries(groups: GroupConfigs, overrides: Mapping[str, str],
                         ) -> list[ConfigEntry]:
    """Every group config (Kafka 4.1's ``createGroupConfigEntry``), by name: the group's own
    value (GROUP_CONFIG) or the broker's or Kafka's default (DEFAULT_CONFIG), its only synonym
    itself."""
    entries = []
    for name in sorted(GROUP_CONFIGS):
        value, own = groups.describe_value(name, overrides)
        source = GROUP_CONFIG if own else DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source,
                                   config_type=CONFIG_TYPE_IDS[GROUP_CONFIGS[name].type],
                                   synonyms=[(name, value, source)]))
    return entries


def _broker_entry(dynamic: DynamicBrokerConfig, name: str, value: str | None,
                  per_broker: bool) -> ConfigEntry:
    synonyms = dynamic.synonyms(name)
    if not per_broker:
        synonyms = [s for s in synonyms if s[2] == DYNAMIC_DEFAULT_BROKER_CONFIG]
    sensitive = is_sensitive(name)
    kind = config_type(name)
    return ConfigEntry(
        name, None if sensitive else value, synonyms[0][2] if synonyms else DEFAULT_CONFIG,
        read_only=not is_dynamic(name), is_sensitive=sensitive,
        config_type=CONFIG_TYPE_IDS[kind] if kind is not None else UNKNOWN_TYPE,
        synonyms=synonyms)


def broker_config_entries(dynamic: DynamicBrokerConfig) -> list[ConfigEntry]:
    """This broker's configuration: the described properties, then those dynamic configs set."""
    current = dynamic.current
    names = [n for n, k in BROKER_CONFIGS.items() if k.described]
    names += [n for n in dynamic.dynamic_names() if n not in set(names)]
    return [_broker_entry(dynamic, n, current.value_string(n), per_broker=True) for n in names]


def default_broker_config_entries(dynamic: DynamicBrokerConfig) -> list[ConfigEntry]:
    """The cluster-wide dynamic defaults, as stored."""
    return [_broker_entry(dynamic, n, v, per_broker=False)
            for n, v in sorted(dynamic.default.items())]
