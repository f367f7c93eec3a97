"""Configuration: the one catalogue of broker and topic properties, Kafka's typed values, and
``server.properties``.

The bottom layer of the broker: it imports only the standard library and ``protocol.errors``,
and the log, the group coordinator and the API handlers take names, types, defaults, validators
and synonyms from here.

* :mod:`.values` - Kafka's ``ConfigDef`` types: parsing, Java's spelling of values,
  :class:`ConfigException` and its messages.
* :mod:`.validators` - Kafka's validators (ranges, valid strings and lists, its own few).
* :mod:`.catalogue` - :data:`BROKER_CONFIGS` and :data:`TOPIC_CONFIGS`.
* :mod:`.server` - :class:`BrokerConfig`, read from ``server.properties`` and overrides.
"""

from .catalogue import (
    BROKER_CONFIGS,
    CLUSTER_WIDE,
    PER_BROKER,
    READ_ONLY,
    TOPIC_CONFIGS,
    BrokerConfigKey,
    TopicConfigKey,
    broker_config_synonyms,
    broker_default,
    broker_value,
)
from .server import BrokerConfig, Endpoint, parse_listeners, parse_properties
from .values import (
    BOOLEAN,
    CONFIG_TYPE_IDS,
    DOUBLE,
    INT,
    LIST,
    LONG,
    SHORT,
    STRING,
    ConfigException,
    alter_message,
    to_config_string,
)

__all__ = [
    "BOOLEAN",
    "BROKER_CONFIGS",
    "CLUSTER_WIDE",
    "CONFIG_TYPE_IDS",
    "DOUBLE",
    "INT",
    "LIST",
    "LONG",
    "PER_BROKER",
    "READ_ONLY",
    "SHORT",
    "STRING",
    "TOPIC_CONFIGS",
    "BrokerConfig",
    "BrokerConfigKey",
    "ConfigException",
    "Endpoint",
    "TopicConfigKey",
    "alter_message",
    "broker_config_synonyms",
    "broker_default",
    "broker_value",
    "parse_listeners",
    "parse_properties",
    "to_config_string",
]
