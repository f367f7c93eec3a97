"""Config descriptions as DescribeConfigs and CreateTopics give them (Kafka's ``ConfigHelper``).

Every topic config Kafka defines, printed the way Kafka prints it, with the synonyms Kafka
lists - the topic override, then the broker properties behind the topic config's
highest-priority broker name (``log.retention.ms`` for ``retention.ms``: ``log.retention.ms``,
``log.retention.minutes``, ``log.retention.hours``), each as set in server.properties and then as
defaulted, keeping only those from that highest-priority name on; and the broker properties the
catalogue marks as described, all read-only (they are static here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pybroker.config import (
    BROKER_CONFIGS,
    CONFIG_TYPE_IDS,
    STRING,
    TOPIC_CONFIGS,
    BrokerConfig,
    broker_config_synonyms,
    to_config_string,
)

if TYPE_CHECKING:
    from pybroker.metadata.config_repository import ConfigRepository

# ConfigSource, as Kafka numbers it.
DYNAMIC_TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5

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


def _broker_synonyms(config: BrokerConfig, name: str) -> list[tuple[str, str | None, int]]:
    """Where broker property ``name`` gets its value: server.properties, then the default, over
    the names that stand for it, from ``name`` on (as Kafka's ConfigHelper lists them)."""
    explicit, names = config.explicit, broker_config_synonyms(name)
    found = [(n, config.get(n), STATIC_BROKER_CONFIG) for n in names if n in explicit]
    found += [(n, BROKER_CONFIGS[n].default_string, DEFAULT_CONFIG) for n in names
              if BROKER_CONFIGS[n].default is not None]
    while found and found[0][0] != name:
        found.pop(0)
    return found


def topic_config_entries(config: BrokerConfig, configs: ConfigRepository,
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
            synonyms += _broker_synonyms(config, key.synonyms[0][0])
        source = synonyms[0][2] if synonyms else DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source, config_type=CONFIG_TYPE_IDS[key.type],
                                   synonyms=synonyms))
    return entries


def broker_config_entries(config: BrokerConfig) -> list[ConfigEntry]:
    entries = []
    for name, key in BROKER_CONFIGS.items():
        if not key.described:
            continue
        value = to_config_string(config.value(name), key.type)
        synonyms = _broker_synonyms(config, name)
        source = synonyms[0][2] if synonyms else DEFAULT_CONFIG
        entries.append(ConfigEntry(name, value, source, read_only=True,
                                   config_type=CONFIG_TYPE_IDS[key.type], synonyms=synonyms))
    return entries
