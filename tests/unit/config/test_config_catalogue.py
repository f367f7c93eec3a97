"""The configuration catalogue: broker properties and topic configs, written once.

``tests/compat/test_config_catalogue.py`` compares every entry with the documentation table
Kafka 3.9's jars print; these tests check the catalogue's own consistency and a sample of
Kafka's documented defaults without a JVM.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from pybroker.config import (
    BROKER_CONFIGS,
    CLUSTER_WIDE,
    PER_BROKER,
    READ_ONLY,
    TOPIC_CONFIGS,
    BrokerConfig,
    ConfigException,
    broker_config_synonyms,
    broker_value,
)
from pybroker.config.catalogue import AUTHORIZER_CONFIGS, PYBROKER_CONFIGS, parse_topic_config
from pybroker.config.kafka_properties import EXTRA_DYNAMIC
from pybroker.config.values import LONG_MAX, to_config_string
from pybroker.coordinator.group import GroupConfig
from pybroker.coordinator.group.storage import OffsetsConfig
from pybroker.log import LogConfig
from tests.unit.paths import REPO_ROOT as REPO


@pytest.mark.parametrize("key", BROKER_CONFIGS.values(), ids=lambda k: k.name)
def test_every_broker_default_parses_back_and_passes_its_validator(key) -> None:
    if key.default is None:
        assert key.default_string is None  # Kafka's null: nothing to parse
        return
    parsed = key.parse(key.default_string)  # runs the validator too
    assert parsed == key.default and type(parsed) is type(key.default)


@pytest.mark.parametrize("key", TOPIC_CONFIGS.values(), ids=lambda k: k.name)
def test_every_topic_default_parses_back_and_passes_its_validator(key) -> None:
    parsed = parse_topic_config(key.name, to_config_string(key.default, key.type))
    assert parsed == key.default and type(parsed) is type(key.default)


@pytest.mark.parametrize(("name", "default"), [
    # Kafka 3.9's documented broker defaults ("Broker Configs" in its documentation)
    ("num.partitions", "1"),
    ("default.replication.factor", "1"),
    ("listeners", "PLAINTEXT://:9092"),
    ("log.dir", "/tmp/kafka-logs"),
    ("log.dirs", None),
    ("log.retention.hours", "168"),
    ("log.retention.minutes", None),
    ("log.retention.ms", None),
    ("log.roll.hours", "168"),
    ("log.segment.bytes", "1073741824"),
    ("log.cleanup.policy", "delete"),
    ("log.cleaner.min.cleanable.ratio", "0.5"),
    ("log.flush.scheduler.interval.ms", str(LONG_MAX)),
    ("message.max.bytes", "1048588"),
    ("socket.request.max.bytes", "104857600"),
    ("offsets.topic.num.partitions", "50"),
    ("offsets.topic.replication.factor", "3"),
    ("offsets.retention.minutes", "10080"),
    ("group.initial.rebalance.delay.ms", "3000"),
    ("group.max.size", "2147483647"),
    ("auto.create.topics.enable", "true"),
    ("unclean.leader.election.enable", "false"),
    ("compression.type", "producer"),
    ("log.message.format.version", "3.0-IV1"),
])
def test_kafkas_documented_broker_defaults(name: str, default: str | None) -> None:
    assert BROKER_CONFIGS[name].default_string == default


def test_broker_id_defaults_to_a_single_nodes_id() -> None:
    # Kafka's -1 asks ZooKeeper for a generated id; the single-node mode is broker 0
    assert BROKER_CONFIGS["broker.id"].default == 0


@pytest.mark.parametrize(("name", "default"), [
    ("segment.bytes", "1073741824"),
    ("segment.ms", "604800000"),
    ("retention.ms", "604800000"),
    ("retention.bytes", "-1"),
    ("flush.ms", str(LONG_MAX)),
    ("cleanup.policy", "delete"),
    ("min.cleanable.dirty.ratio", "0.5"),
    ("max.message.bytes", "1048588"),
    ("message.timestamp.type", "CreateTime"),
    ("local.retention.ms", "-2"),
    ("leader.replication.throttled.replicas", ""),
    ("remote.storage.enable", "false"),
])
def test_kafkas_documented_topic_defaults(name: str, default: str) -> None:
    key = TOPIC_CONFIGS[name]
    assert to_config_string(key.default, key.type) == default


def test_update_modes_are_kafkas_for_a_sample() -> None:
    modes = {name: key.update_mode for name, key in BROKER_CONFIGS.items()}
    assert modes["listeners"] == modes["advertised.listeners"] == PER_BROKER
    assert modes["log.retention.ms"] == modes["log.segment.bytes"] == CLUSTER_WIDE
    assert modes["log.retention.hours"] == modes["num.partitions"] == READ_ONLY


def test_topic_defaults_are_their_broker_synonyms_defaults_in_the_topic_unit() -> None:
    assert LogConfig.from_broker_properties(BrokerConfig.from_dict({}).props) == LogConfig()
    for key in TOPIC_CONFIGS.values():
        for broker_name, _ in key.synonyms:
            assert broker_name in BROKER_CONFIGS, broker_name


def test_log_config_fields_are_the_topic_configs_in_kafkas_order() -> None:
    assert [f.name for f in dataclasses.fields(LogConfig)] == [
        k.field for k in TOPIC_CONFIGS.values()]


def test_broker_synonyms_resolve_as_kafka_lists_them() -> None:
    retention = ("log.retention.ms", "log.retention.minutes", "log.retention.hours")
    for name in retention:
        assert broker_config_synonyms(name) == retention
    assert broker_config_synonyms("log.roll.hours") == ("log.roll.ms", "log.roll.hours")
    assert broker_config_synonyms("log.roll.jitter.ms") == ("log.roll.jitter.ms",
                                                            "log.roll.jitter.hours")
    # log.flush.scheduler.interval.ms backs log.flush.interval.ms, not the other way round
    assert broker_config_synonyms("log.flush.interval.ms") == (
        "log.flush.interval.ms", "log.flush.scheduler.interval.ms")
    assert broker_config_synonyms("log.flush.scheduler.interval.ms") == (
        "log.flush.scheduler.interval.ms",)
    assert broker_config_synonyms("num.partitions") == ("num.partitions",)
    assert broker_config_synonyms("no.such.property") == ("no.such.property",)


def test_topic_configs_fall_back_over_the_same_broker_names_as_describe_configs_lists() -> None:
    for key in TOPIC_CONFIGS.values():
        if key.synonyms:
            names = tuple(name for name, _ in key.synonyms)
            assert broker_config_synonyms(names[0]) == names, key.name


def test_broker_value_parses_validates_and_defaults() -> None:
    assert broker_value({}, "log.cleanup.policy") == ["delete"]
    assert broker_value({"log.cleanup.policy": "compact, delete"}, "log.cleanup.policy") == [
        "compact", "delete"]
    assert broker_value({}, "log.retention.ms") is None
    assert broker_value({"offsets.topic.replication.factor": " 1 "},
                        "offsets.topic.replication.factor") == 1
    with pytest.raises(ConfigException) as e:
        broker_value({"offsets.topic.replication.factor": "40000"},
                     "offsets.topic.replication.factor")
    assert e.value.message == ("Invalid value 40000 for configuration "
                               "offsets.topic.replication.factor: Not a number of type SHORT")
    with pytest.raises(KeyError):
        broker_value({}, "no.such.property")


def test_group_and_offsets_configs_take_the_catalogues_values() -> None:
    assert GroupConfig.from_properties({}) == GroupConfig()
    assert (GroupConfig().min_session_timeout_ms, GroupConfig().max_size) == (6000, 2**31 - 1)
    assert GroupConfig.from_properties(
        {"group.initial.rebalance.delay.ms": "0"}).initial_rebalance_delay_ms == 0
    assert OffsetsConfig().retention_ms == 10080 * 60_000
    assert OffsetsConfig.from_props({"offsets.load.buffer.size": "1"}).load_buffer_size == 1
    with pytest.raises(ConfigException):
        OffsetsConfig.from_props({"offsets.topic.num.partitions": "0"})


#: a dotted property name read through BrokerConfig (its accessors, also when bound to a local
#: name as in ``get = self.config.get_int``, or its ``props``) or the catalogue's functions
_READ = re.compile(r"""\b(?:(?:get_int|get_bool|get|value|broker_default)\(|broker_value\(\w+,"""
                   r"""|props\[)\s*["']([a-z0-9]+(?:\.[a-z0-9]+)+)["']""")


def test_every_property_the_broker_reads_is_catalogued() -> None:
    read = {m for path in (REPO / "pybroker").rglob("*.py")
            for m in _READ.findall(path.read_text())}
    # the pattern finds each way of reading one
    assert {"num.partitions", "delete.topic.enable", "log.dir", "group.max.size",
            "offsets.load.buffer.size", "producer.id.expiration.check.interval.ms"} <= read
    # (Kafka's dynamic properties beyond the catalogue are read only to check a dynamic
    # broker config, as Kafka checks it; the authorizer's settings are catalogued apart)
    assert read - BROKER_CONFIGS.keys() - EXTRA_DYNAMIC.keys() - AUTHORIZER_CONFIGS.keys() \
        - PYBROKER_CONFIGS.keys() == set()


def test_the_authorizer_settings_are_read_and_checked() -> None:
    from pybroker.security.authorizer import AclAuthorizer
    from pybroker.security.principal import KafkaPrincipal
    from pybroker.security.service import authorizer_from_config

    assert authorizer_from_config(BrokerConfig.from_dict({})) is None
    authorizer = authorizer_from_config(BrokerConfig.from_dict({
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": "User:admin; User:broker", "allow.everyone.if.no.acl.found": "true"}))
    assert isinstance(authorizer, AclAuthorizer)
    assert authorizer.super_users == {KafkaPrincipal("User", "admin"),
                                      KafkaPrincipal("User", "broker")}
    assert authorizer.allow_everyone_if_no_acl_found
    with pytest.raises(ValueError, match="authorizers this broker has"):
        authorizer_from_config(BrokerConfig.from_dict({"authorizer.class.name": "com.x.Mine"}))
    with pytest.raises(ValueError):
        BrokerConfig.from_dict({"allow.everyone.if.no.acl.found": "maybe"})
