"""Dynamic broker configs (KIP-226) on a real embedded node: the changes AlterConfigs and
IncrementalAlterConfigs make through the admin seam (written to the znode tree, applied when
the change notification reaches the broker, as in a ZooKeeper-mode cluster), their effect on
the open logs, what DescribeConfigs says of them, and their survival across a restart; the
logger levels of BROKER_LOGGER; the ZooKeeper admin seam's writes; the reconfigurables'
checks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.admin import loggers
from pybroker.admin.config_helper import (
    UNKNOWN_TYPE,
    broker_config_entries,
    default_broker_config_entries,
    topic_config_entries,
)
from pybroker.admin.configs import (
    APPEND,
    DELETE,
    SET,
    SUBTRACT,
    change_broker_configs,
    incremental_broker_configs,
)
from pybroker.cluster.metadata_cache import MetadataCache
from pybroker.config import ConfigException
from pybroker.config.dynamic import (
    DEFAULT_CONFIG,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    STATIC_BROKER_CONFIG,
    EffectiveBrokerConfig,
)
from pybroker.kernel.outcome import gather, then
from pybroker.log.config import LogConfig
from pybroker.metadata.config_repository import ConfigRepository
from pybroker.modes.zookeeper.admin import ZkAdminManager
from pybroker.reconfigurables import (
    ListenerReconfigurable,
    LogCleanerReconfigurable,
    LogConfigReconfigurable,
    ThreadPoolReconfigurable,
)
from pybroker.zk.znodes import CONFIG_BROKER
from tests.unit.broker.embedded_node import EmbeddedNode

T0 = 1_700_000_000_000
DAY = 86_400_000


@dataclass
class Op:
    name: str
    config_operation: int
    value: str | None = None


def start(directory: Path, **static: str) -> EmbeddedNode:
    props = {"offsets.topic.num.partitions": "1",
             **{k.replace("_", "."): v for k, v in static.items()}}
    return EmbeddedNode.start(directory, **props)


class Node:
    """An embedded node and what the config changes use of its ``BrokerServices``; each
    change is made on the node's loop and waited for."""

    def __init__(self, node: EmbeddedNode) -> None:
        self.node = node
        self.broker = node.broker
        b = node.broker
        self.services: Any = SimpleNamespace(
            broker_id=b.broker_id, metadata_cache=b.metadata_cache, configs=b.configs,
            admin=b.admin, dynamic_config=b.dynamic_config)

    def change(self, name: str, props: dict[str, str], validate_only: bool) -> Any:
        return self.node.call(change_broker_configs, self.services, name, props, validate_only)

    def incremental(self, name: str, entries: list[Op], validate_only: bool) -> Any:
        return self.node.call(incremental_broker_configs, self.services, name, entries,
                              validate_only)

    def eventually(self, read: Any, expected: Any) -> None:
        """Until ``read()`` is ``expected`` (the change notification has been applied)."""
        self.node.wait_until(lambda: read() == expected, what=f"{expected!r}")
        assert read() == expected

    def stop(self) -> None:
        self.node.stop()


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    n = Node(start(tmp_path / "data", log_retention_hours="24"))
    yield n
    n.stop()


def topic(node: Node, name: str, **configs: str) -> None:
    node.node.create_topic(name, 1, {k.replace("_", "."): v for k, v in configs.items()})


def log_config(node: Node, name: str) -> LogConfig:
    log = node.broker.log_manager.get_log(name, 0)
    assert log is not None
    return log.config


def entry(entries: list[Any], name: str) -> Any:
    return next(e for e in entries if e.name == name)


# -- the effect on the logs ------------------------------------------------------------------


def test_a_cluster_default_reaches_every_log_without_an_override(node: Node) -> None:
    topic(node, "plain")
    topic(node, "own", retention_ms="1000")
    assert log_config(node, "plain").retention_ms == DAY
    assert node.change("", {"log.retention.ms": "5000"}, validate_only=False) is None
    node.eventually(lambda: log_config(node, "plain").retention_ms, 5000)
    assert log_config(node, "own").retention_ms == 1000
    # a topic created afterwards starts with it, and the broker's own value wins over it
    topic(node, "later")
    assert log_config(node, "later").retention_ms == 5000
    node.change("0", {"log.retention.ms": "7000", "min.insync.replicas": "2"}, False)
    node.eventually(lambda: log_config(node, "plain").retention_ms, 7000)
    assert log_config(node, "plain").min_insync_replicas == 2
    # deleting this broker's own brings the cluster default back
    assert node.incremental("0", [Op("log.retention.ms", DELETE)], False) is None
    node.eventually(lambda: log_config(node, "plain").retention_ms, 5000)


def test_validate_only_changes_nothing(node: Node) -> None:
    topic(node, "t")
    assert node.change("", {"log.retention.ms": "5000"}, validate_only=True) is None
    assert node.incremental("0", [Op("log.retention.ms", SET, "1")], True) is None
    node.node.settle(0.3)  # what a change notification would have done by now
    assert log_config(node, "t").retention_ms == DAY
    assert node.broker.dynamic_config.default == {} and node.broker.dynamic_config.broker == {}
    stored = node.node.run(node.broker.zk.get_all_entity_configs(CONFIG_BROKER))
    assert stored == {} or all(not c for c in stored.values())


def test_changes_survive_a_restart_and_apply_before_the_logs_open(tmp_path: Path) -> None:
    first = Node(start(tmp_path / "data"))
    try:
        topic(first, "t")
        first.change("", {"log.segment.bytes": "100000"}, False)
        first.change("0", {"log.retention.ms": "5000", "x.custom": "1"}, False)
        first.eventually(lambda: first.broker.dynamic_config.broker,
                         {"log.retention.ms": "5000", "x.custom": "1"})
    finally:
        first.stop()
    again = Node(start(tmp_path / "data"))
    try:
        assert again.broker.dynamic_config.default == {"log.segment.bytes": "100000"}
        assert again.broker.dynamic_config.broker == {"log.retention.ms": "5000",
                                                      "x.custom": "1"}
        config = log_config(again, "t")
        assert (config.segment_bytes, config.retention_ms) == (100000, 5000)
        # where they are kept: Kafka's /config/brokers znodes, in the node's znode tree
        assert again.node.run(again.broker.zk.get_all_entity_configs(CONFIG_BROKER)) == {
            "<default>": {"log.segment.bytes": "100000"},
            "0": {"log.retention.ms": "5000", "x.custom": "1"}}
    finally:
        again.stop()


# -- refusals --------------------------------------------------------------------------------


def refused(outcome: Any) -> tuple[ErrorCode, str | None]:
    assert isinstance(outcome, KafkaError), outcome
    return outcome.code, outcome.message


def test_refusals_are_kafkas(node: Node) -> None:

    def alter(name: str, props: dict[str, str]) -> tuple[ErrorCode, str | None]:
        try:
            return refused(node.change(name, props, False))
        except KafkaError as e:
            return e.code, e.message

    assert alter("0", {"broker.id": "1"}) == (
        ErrorCode.INVALID_REQUEST, "Cannot update these configs dynamically: Set(broker.id)")
    assert alter("1", {}) == (ErrorCode.INVALID_REQUEST,
                              "Unexpected broker id, expected 0, but received 1")
    assert alter("one", {}) == (ErrorCode.INVALID_REQUEST,
                                "Node id must be an integer, but it is: one")
    assert alter("0", {"num.replica.fetchers": "3"}) == (
        ErrorCode.INVALID_REQUEST,
        "Invalid value org.apache.kafka.common.config.ConfigException: Dynamic thread count "
        "update validation failed for num.replica.fetchers=3, value should not be greater "
        "than double the current value 1 for configuration Invalid dynamic configuration")
    assert alter("0", {"listener.name.plaintext.ssl.key.password": "p"}) == (
        ErrorCode.INVALID_CONFIG, "Invalid config value for resource ConfigResource("
                                  "type=BROKER, name='0'): Password encoder secret not configured")
    assert alter("", {"listener.name.x.sasl.jaas.config": "p"})[1] == (
        "Cannot update these configs at default cluster level, broker id must be specified: "
        "Set(listener.name.x.sasl.jaas.config)")
    # +0 is broker 0, as Java parses it
    assert node.change("+0", {"log.cleaner.backoff.ms": "100"}, False) is None
    node.eventually(lambda: node.broker.dynamic_config.broker, {"log.cleaner.backoff.ms": "100"})


def test_incremental_operations_on_the_stored_set(node: Node) -> None:
    def ops(*entries: Op, name: str = "0") -> Any:
        return node.incremental(name, list(entries), False)

    def stored() -> dict[str, str]:
        return node.broker.dynamic_config.broker

    assert ops(Op("log.cleanup.policy", APPEND, "compact")) is None
    node.eventually(stored, {"log.cleanup.policy": "delete,compact"})
    assert ops(Op("log.cleanup.policy", SUBTRACT, "delete")) is None
    node.eventually(stored, {"log.cleanup.policy": "compact"})
    assert ops(Op("log.retention.ms", SET, "9000"), Op("log.cleanup.policy", DELETE)) is None
    node.eventually(stored, {"log.retention.ms": "9000"})
    assert refused(ops(Op("log.retention.ms", APPEND, "1"))) == (
        ErrorCode.INVALID_CONFIG, "Config value append is not allowed for config key: "
                                  "log.retention.ms")
    assert refused(ops(Op("no.such.thing", SUBTRACT, "1"))) == (
        ErrorCode.INVALID_CONFIG, "Unknown config name: no.such.thing")
    # deleting what is not set, or a read-only property, changes nothing and is accepted
    assert ops(Op("leader.replication.throttled.rate", DELETE),
               Op("broker.id", DELETE), name="") is None
    with pytest.raises(KafkaError) as e:
        ops(Op("log.retention.ms", 7, "1"))
    assert (e.value.code, e.value.message) == (ErrorCode.INVALID_REQUEST,
                                               "Unknown operations type 7")


# -- what DescribeConfigs says -----------------------------------------------------------------


def test_describe_shows_each_layer(node: Node) -> None:
    broker = node.broker
    node.change("", {"log.retention.ms": "5000", "my.setting": "x"}, False)
    node.change("0", {"min.insync.replicas": "2"}, False)
    dynamic = broker.dynamic_config
    node.eventually(lambda: (dynamic.default, dynamic.broker), (
        {"log.retention.ms": "5000", "my.setting": "x"}, {"min.insync.replicas": "2"}))
    entries = broker_config_entries(dynamic)
    retention = entry(entries, "log.retention.ms")
    assert (retention.value, retention.source, retention.read_only) == (
        "5000", DYNAMIC_DEFAULT_BROKER_CONFIG, False)
    assert retention.synonyms == [
        ("log.retention.ms", "5000", DYNAMIC_DEFAULT_BROKER_CONFIG),
        ("log.retention.hours", "24", STATIC_BROKER_CONFIG),
        ("log.retention.hours", "168", DEFAULT_CONFIG)]
    # the dynamic log.retention.ms took log.retention.hours out of the configuration, whose
    # value is then Kafka's default, while its synonyms still say where it was set
    hours = entry(entries, "log.retention.hours")
    assert (hours.value, hours.source, hours.read_only) == ("168", STATIC_BROKER_CONFIG, True)
    isr = entry(entries, "min.insync.replicas")
    assert (isr.value, isr.source) == ("2", DYNAMIC_BROKER_CONFIG)
    custom = entry(entries, "my.setting")
    assert (custom.value, custom.is_sensitive, custom.read_only, custom.config_type) == (
        None, True, True, UNKNOWN_TYPE)
    defaults = default_broker_config_entries(dynamic)
    assert [e.name for e in defaults] == ["log.retention.ms", "my.setting"]
    assert entry(defaults, "log.retention.ms").synonyms == [
        ("log.retention.ms", "5000", DYNAMIC_DEFAULT_BROKER_CONFIG)]
    topic(node, "t")
    retention_ms = entry(topic_config_entries(dynamic, broker.configs, {}), "retention.ms")
    assert (retention_ms.value, retention_ms.source) == ("5000", DYNAMIC_DEFAULT_BROKER_CONFIG)


# -- the broker's loggers ------------------------------------------------------------------------


def test_logger_levels_are_described_and_changed() -> None:
    name = "pybroker.test.dynamic-loggers"
    logger = logging.getLogger(name)
    try:
        assert name in loggers.loggers() and "root" in loggers.loggers()
        loggers.check_changes([Op(name, SET, "TRACE")])
        loggers.apply_changes([Op(name, SET, "TRACE")])
        assert logger.level == 5 and loggers.loggers()[name] == "TRACE"
        loggers.apply_changes([Op(name, DELETE)])
        assert logger.level == logging.NOTSET

        def refusal(op: Op) -> tuple[ErrorCode, str | None]:
            with pytest.raises(KafkaError) as e:
                loggers.check_changes([op])
            return e.value.code, e.value.message

        assert refusal(Op(name, SET, "LOUD")) == (
            ErrorCode.INVALID_CONFIG, f"Cannot set the log level of {name} to LOUD as it is "
                                      "not a supported log level. Valid log levels are DEBUG, "
                                      "ERROR, FATAL, INFO, TRACE, WARN")
        assert refusal(Op("no.such.logger", SET, "INFO")) == (
            ErrorCode.INVALID_CONFIG, "Logger no.such.logger does not exist!")
        assert refusal(Op("root", DELETE)) == (
            ErrorCode.INVALID_REQUEST, "Removing the log level of the root logger is not allowed")
        assert refusal(Op(name, APPEND, "x"))[1] == (
            "APPEND operation is not allowed for the BROKER_LOGGER resource")
        assert loggers.level_name(logging.WARNING) == "WARN"
        assert loggers.level_name(logging.CRITICAL) == "FATAL"
    finally:
        logger.setLevel(logging.NOTSET)


# -- ZooKeeper mode's admin seam ---------------------------------------------------------------


class BrokerEntities:
    """``/config/brokers`` as ZooKeeper would keep it, and the notifications written."""

    def __init__(self) -> None:
        self.configs: dict[str, dict[str, str]] = {"<default>": {"log.retention.ms": "1"}}
        self.notified: list[str] = []

    async def get_broker_config(self, entity: str) -> dict[str, str]:
        return dict(self.configs.get(entity, {}))

    async def set_broker_config(self, entity: str, configs: Mapping[str, str]) -> None:
        if entity == "fail":
            raise KafkaError(ErrorCode.NOT_CONTROLLER, "no controller")
        self.configs[entity] = dict(configs)
        self.notified.append(f"brokers/{entity}")


def test_zookeeper_mode_reads_and_writes_the_entity() -> None:
    async def main() -> None:
        store = BrokerEntities()
        admin = ZkAdminManager(store, MetadataCache("c", -1),  # type: ignore[arg-type]
                               ConfigRepository(LogConfig()), None,  # type: ignore[arg-type]
                               lambda *a: [], default_partitions=1,
                               default_replication_factor=1)
        assert await admin.broker_configs("<default>") == {"log.retention.ms": "1"}
        assert await admin.alter_broker_configs("0", {"a": "b"}) is None
        assert store.configs["0"] == {"a": "b"} and store.notified == ["brokers/0"]
        failed = await admin.alter_broker_configs("fail", {})
        assert isinstance(failed, KafkaError) and failed.code == ErrorCode.NOT_CONTROLLER
        # outcomes chain and gather whether they are results or futures
        later = then(admin.broker_configs("<default>"), lambda c: sorted(c))
        assert await later == ["log.retention.ms"]  # type: ignore[misc]
        both = gather([1, admin.broker_configs("0")])
        assert await both == [1, {"a": "b"}]  # type: ignore[misc]
        assert gather([1, 2]) == [1, 2]

    asyncio.run(main())


# -- the reconfigurables' own checks -----------------------------------------------------------


def effective(**props: str) -> EffectiveBrokerConfig:
    return EffectiveBrokerConfig.build({k.replace("_", "."): v for k, v in props.items()})


def check(reconfigurable: Any, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> str:
    with pytest.raises(ConfigException) as e:
        reconfigurable.validate_reconfiguration(old, new)
    return str(e.value.message)


def test_thread_counts_move_by_at_most_half_or_double() -> None:
    resized: list[int] = []
    pool = ThreadPoolReconfigurable(resized.append)
    old = effective(num_replica_fetchers="4")
    assert check(pool, old, effective(num_replica_fetchers="9")) == (
        "Dynamic thread count update validation failed for num.replica.fetchers=9, value "
        "should not be greater than double the current value 4")
    assert check(pool, old, effective(num_replica_fetchers="1")).endswith(
        "value should be at least half the current value 4")
    assert check(pool, old, effective(num_replica_fetchers="0")).endswith(
        "value should be at least 1")
    pool.validate_reconfiguration(old, effective(num_replica_fetchers="8"))
    pool.reconfigure(old, effective(num_replica_fetchers="8"))
    assert resized == [8]


def test_the_log_cleaners_checks_and_back_off() -> None:
    cleaner = SimpleNamespace(backoff_ms=15000)
    reconfigurable = LogCleanerReconfigurable(cleaner)  # type: ignore[arg-type]
    old = effective()
    assert check(reconfigurable, old, effective(log_cleaner_threads="3")) == (
        "Log cleaner threads cannot be increased to more than double the current value 1")
    reconfigurable.reconfigure(old, effective(log_cleaner_backoff_ms="50"))
    assert cleaner.backoff_ms == 50


def test_local_retention_must_fit_in_the_retention() -> None:
    reconfigurable = LogConfigReconfigurable(ConfigRepository(LogConfig()), None)  # type: ignore[arg-type]
    assert check(reconfigurable, effective(), effective(
        log_retention_ms="1000", log_local_retention_ms="2000")) == (
        "Invalid value 2000 for configuration log.local.retention.ms: Value must not be more "
        "than log.retention.ms property value: 1000")
    assert check(reconfigurable, effective(), effective(
        log_retention_bytes="10", log_local_retention_bytes="-1")).startswith(
        "Invalid value -1 for configuration log.local.retention.bytes: Value must not be -1")


def test_listener_changes() -> None:
    calls: list[Any] = []
    listeners = ListenerReconfigurable(add=lambda eps: calls.append(("add", eps)),
                                       remove=lambda names: calls.append(("remove", names)),
                                       advertise=lambda new: calls.append("advertise"))
    old = effective(listeners="PLAINTEXT://:9092")
    assert check(listeners, old, effective(
        listeners="PLAINTEXT://:9092,OTHER://:9093")).startswith(
        "Listeners '['OTHER', 'PLAINTEXT']' must be subset of listener map")
    assert check(listeners, old, effective(
        listeners="PLAINTEXT://:9092,SSL://:9093")) == (
        "Listener SSL runs over TLS but has no key store: set ssl.keystore.type=PEM with "
        "ssl.keystore.location or ssl.keystore.certificate.chain and ssl.keystore.key")
    listeners.validate_reconfiguration(old, effective(
        listeners="PLAINTEXT://:9092,SASL_PLAINTEXT://:9093"))
    new = effective(listeners="PLAINTEXT://:9092,EXTERNAL://:9093",
                    advertised_listeners="PLAINTEXT://h:9092,EXTERNAL://h:9093",
                    listener_security_protocol_map="PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT")
    listeners.validate_reconfiguration(old, new)
    listeners.reconfigure(old, new)
    assert [c[0] if isinstance(c, tuple) else c for c in calls] == ["add", "advertise"]
    calls.clear()
    listeners.reconfigure(new, old)
    assert calls == [("remove", ["EXTERNAL"]), "advertise"]
