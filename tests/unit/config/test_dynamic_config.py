"""Dynamic broker configs (KIP-226) as pure logic: Kafka's checks and messages, the layers and
their precedence, synonyms, stored configs applied, and the reconfigurables told of changes."""

from __future__ import annotations

import pytest

from pybroker.config import BrokerConfig, ConfigException
from pybroker.config.dynamic import (
    DEFAULT_CONFIG,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    NON_DYNAMIC,
    PER_BROKER_CONFIGS,
    STATIC_BROKER_CONFIG,
    DynamicBrokerConfig,
    DynamicConfigError,
    EffectiveBrokerConfig,
    broker_config_synonyms,
    check_dynamic,
    config_type,
    from_persistent,
    is_dynamic,
    is_password_config,
    is_sensitive,
    override_props,
    scala_set,
)
from pybroker.config.kafka_properties import EXTRA_DYNAMIC, KAFKA_READ_ONLY, QUOTA_CONFIGS


def refusal(props: dict[str, str], per_broker: bool = True) -> str:
    with pytest.raises(DynamicConfigError) as e:
        check_dynamic(props, per_broker)
    assert e.value.message is not None
    return e.value.message


# -- what may change, and Kafka's refusals -----------------------------------------------------


def test_update_modes_are_the_catalogues_and_kafkas() -> None:
    assert all(is_dynamic(n) for n in (
        "log.retention.ms", "min.insync.replicas", "num.replica.fetchers",
        "log.cleaner.backoff.ms", "message.max.bytes", "ssl.keystore.location"))
    assert {"listeners", "advertised.listeners", "ssl.keystore.location"} <= PER_BROKER_CONFIGS
    assert "log.retention.hours" in NON_DYNAMIC and not is_dynamic("log.retention.hours")
    assert "broker.id" in NON_DYNAMIC and "num.io.threads" in EXTRA_DYNAMIC
    assert not NON_DYNAMIC & set(EXTRA_DYNAMIC)
    assert KAFKA_READ_ONLY <= NON_DYNAMIC
    # the replication throttles are dynamic configs, though Kafka describes them read-only
    assert set(QUOTA_CONFIGS) == {"leader.replication.throttled.rate",
                                  "follower.replication.throttled.rate",
                                  "replica.alter.log.dirs.io.max.bytes.per.second"}
    assert not any(is_dynamic(n) for n in QUOTA_CONFIGS)


def test_read_only_properties_are_refused_with_kafkas_set() -> None:
    assert refusal({"broker.id": "3"}) == "Cannot update these configs dynamically: Set(broker.id)"
    assert refusal({"log.retention.hours": "1", "log.dirs": "/x"}) == (
        "Cannot update these configs dynamically: Set(log.retention.hours, log.dirs)")
    # beyond four names, Scala prints a HashSet in its hash order
    assert refusal({n: "1" for n in ("broker.id", "log.dirs", "zookeeper.connect",
                                     "num.partitions", "broker.rack")}) == (
        "Cannot update these configs dynamically: HashSet(num.partitions, broker.id, log.dirs, "
        "zookeeper.connect, broker.rack)")
    # a Kafka property this broker does not have is refused all the same
    assert refusal({"num.replica.alter.log.dirs.threads": "2"}).endswith(
        "Set(num.replica.alter.log.dirs.threads)")


def test_set_order_follows_java_properties_buckets() -> None:
    # (the order of a java.util.Properties with 16 buckets, ties in insertion order)
    assert scala_set(["a"]) == "Set(a)"
    assert scala_set(["x", "y", "z", "w"]) == "Set(x, y, z, w)"


def test_ssl_settings_need_a_listener_prefix() -> None:
    assert refusal({"ssl.keystore.password": "p"}) == (
        "These security configs can be dynamically updated only per-listener using the "
        "listener prefix: HashSet(ssl.keystore.password)")
    check_dynamic({"listener.name.plaintext.ssl.keystore.type": "PKCS12"}, per_broker=True)


def test_values_are_parsed_as_their_type_says() -> None:
    assert refusal({"log.retention.ms": "soon"}) == (
        "Invalid value soon for configuration log.retention.ms: Not a number of type LONG")
    assert refusal({"log.cleaner.threads": "-1"}) == (
        "Invalid value -1 for configuration log.cleaner.threads: Value must be at least 0")
    assert refusal({"leader.replication.throttled.rate": "-5"}).startswith(
        "Invalid value -5 for configuration leader.replication.throttled.rate")
    # a listener's own setting is checked as its base property
    assert refusal({"listener.name.internal.ssl.client.auth": "sometimes"}) == (
        "Invalid value sometimes for configuration ssl.client.auth: String must be one of: "
        "required, requested, none")
    # custom configs are anyone's: stored as given
    check_dynamic({"my.own.setting": "whatever"}, per_broker=False)


def test_per_broker_properties_need_a_broker_id() -> None:
    assert refusal({"advertised.listeners": "PLAINTEXT://h:1"}, per_broker=False) == (
        "Cannot update these configs at default cluster level, broker id must be specified: "
        "Set(advertised.listeners)")
    assert refusal({"listener.name.internal.ssl.keystore.type": "JKS"}, per_broker=False
                   ).endswith("Set(listener.name.internal.ssl.keystore.type)")
    # cluster-level listener settings may be defaults
    check_dynamic({"listener.name.internal.max.connections": "10"}, per_broker=False)
    check_dynamic({"advertised.listeners": "PLAINTEXT://h:1"}, per_broker=True)


def test_stored_configs_lose_what_must_be_ignored() -> None:
    stored = {"log.retention.ms": "5000", "broker.id": "7", "log.segment.bytes": "x",
              "ssl.key.password": "p", "advertised.listeners": "PLAINTEXT://h:1", "c": "1"}
    assert from_persistent(stored, per_broker=True) == {
        "log.retention.ms": "5000", "advertised.listeners": "PLAINTEXT://h:1", "c": "1"}
    assert from_persistent(stored, per_broker=False) == {"log.retention.ms": "5000", "c": "1"}


# -- names, types, sensitivity -----------------------------------------------------------------


def test_synonyms_types_and_sensitivity() -> None:
    assert broker_config_synonyms("log.retention.hours") == [
        "log.retention.ms", "log.retention.minutes", "log.retention.hours"]
    assert broker_config_synonyms("listener.name.x.ssl.keystore.type") == [
        "listener.name.x.ssl.keystore.type", "ssl.keystore.type"]
    assert broker_config_synonyms("listener.name.x.scram-sha-256.sasl.jaas.config") == [
        "listener.name.x.scram-sha-256.sasl.jaas.config", "sasl.jaas.config"]
    assert config_type("listener.name.x.ssl.keystore.password") == "PASSWORD"
    assert config_type("leader.replication.throttled.rate") == "LONG"
    assert config_type("my.custom") is None
    assert is_sensitive("my.custom") and is_sensitive("sasl.jaas.config")
    assert not is_sensitive("log.retention.ms")
    assert is_password_config("listener.name.x.ssl.key.password")
    assert not is_password_config("log.retention.ms")


def test_a_layer_removes_the_synonyms_below_it() -> None:
    props = {"log.retention.hours": "24", "log.roll.hours": "2"}
    override_props(props, {"log.retention.ms": "5000"})
    assert props == {"log.roll.hours": "2", "log.retention.ms": "5000"}


# -- the configuration the layers give ---------------------------------------------------------


def static(**props: str) -> BrokerConfig:
    return BrokerConfig.from_dict({k.replace("_", "."): v for k, v in props.items()})


def test_kafkas_requirements_on_the_whole_configuration() -> None:
    def requirement(props: dict[str, str]) -> str:
        with pytest.raises(DynamicConfigError) as e:
            EffectiveBrokerConfig.build(props)
        return str(e.value.message)

    assert requirement({"log.retention.ms": "0"}) == (
        "requirement failed: log.retention.ms must be unlimited (-1) or, greater than or "
        "equal to 1")
    assert requirement({"log.roll.ms": "0"}) == (
        "requirement failed: log.roll.ms must be greater than or equal to 1")
    assert requirement({"log.cleaner.threads": "0"}) == "/ by zero"
    assert requirement({"log.cleaner.threads": "200"}) == (
        "requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner "
        "thread.")
    assert requirement({"listeners": "PLAINTEXT://:9092",
                        "advertised.listeners": "PLAINTEXT://0.0.0.0:9092"}) == (
        "requirement failed: advertised.listeners cannot use the nonroutable meta-address "
        "0.0.0.0. Use a routable IP address.")
    assert requirement({"listeners": "PLAINTEXT://:9092",
                        "advertised.listeners": "OTHER://h:9093"}).startswith(
        "requirement failed: inter.broker.listener.name must be a listener name defined in "
        "advertised.listeners")
    built = EffectiveBrokerConfig.build({"log.retention.ms": "-5", "num.io.threads": "4"})
    assert built.value("num.io.threads") == 4 and built.value("log.cleaner.threads") == 1
    assert built.value_string("log.retention.ms") == "-5"


class Recorder:
    def __init__(self, names: set[str], refuse: bool = False) -> None:
        self.reconfigurable_configs = frozenset(names)
        self.refuse = refuse
        self.checked: list[dict[str, str]] = []
        self.applied: list[tuple[dict[str, str], dict[str, str]]] = []

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        self.checked.append(dict(new.props))
        if self.refuse:
            raise ConfigException("no, thanks")

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None:
        self.applied.append((dict(old.props), dict(new.props)))


def test_precedence_broker_then_default_then_static_then_kafkas_default() -> None:
    dynamic = DynamicBrokerConfig(static(log_retention_hours="24", min_insync_replicas="2"))
    # nothing names log.retention.ms itself yet: Kafka lists no synonym from it on
    assert dynamic.synonyms("log.retention.ms") == []
    dynamic.update_default_config({"log.retention.ms": "7000", "min.insync.replicas": "3"})
    dynamic.update_broker_config({"log.retention.ms": "5000"})
    assert dynamic.current.value("log.retention.ms") == 5000
    assert dynamic.current.value("min.insync.replicas") == 3
    assert dynamic.synonyms("log.retention.ms") == [
        ("log.retention.ms", "5000", DYNAMIC_BROKER_CONFIG),
        ("log.retention.ms", "7000", DYNAMIC_DEFAULT_BROKER_CONFIG),
        ("log.retention.hours", "24", STATIC_BROKER_CONFIG),
        ("log.retention.hours", "168", DEFAULT_CONFIG)]
    # a lower-priority unit is described from its own name on
    assert dynamic.synonyms("log.retention.hours") == [
        ("log.retention.hours", "24", STATIC_BROKER_CONFIG),
        ("log.retention.hours", "168", DEFAULT_CONFIG)]
    dynamic.update_broker_config({})
    assert dynamic.current.value("log.retention.ms") == 7000
    dynamic.update_default_config({})
    assert dynamic.current.value("log.retention.ms") is None
    assert dynamic.current.config.value("log.retention.hours") == 24


def test_reconfigurables_hear_of_the_changes_they_follow() -> None:
    dynamic = DynamicBrokerConfig(static())
    logs, other = Recorder({"log.retention.ms"}), Recorder({"num.io.threads"})
    dynamic.add_reconfigurable(logs)
    dynamic.add_reconfigurable(other)
    dynamic.update_default_config({"log.retention.ms": "1000"})
    assert len(logs.applied) == 1 and logs.applied[0][1]["log.retention.ms"] == "1000"
    assert other.applied == [] and other.checked == []
    dynamic.update_default_config({"log.retention.ms": "1000"})  # no change: no call
    assert len(logs.applied) == 1
    with pytest.raises(ValueError):
        dynamic.add_reconfigurable(Recorder({"broker.id"}))


def test_validate_checks_the_would_be_configuration() -> None:
    dynamic = DynamicBrokerConfig(static())
    refusing = Recorder({"log.retention.ms"}, refuse=True)
    dynamic.add_reconfigurable(refusing)
    with pytest.raises(DynamicConfigError) as e:
        dynamic.validate({"log.retention.ms": "5"}, per_broker=True)
    assert e.value.message == (
        "Invalid value org.apache.kafka.common.config.ConfigException: no, thanks for "
        "configuration Invalid dynamic configuration")
    assert refusing.checked[-1]["log.retention.ms"] == "5" and refusing.applied == []
    with pytest.raises(DynamicConfigError):
        dynamic.validate({"broker.id": "1"}, per_broker=True)
    # a cluster default is checked under this broker's own dynamic configs, which win
    dynamic = DynamicBrokerConfig(static())
    dynamic.update_broker_config({"log.retention.ms": "9"})
    dynamic.add_reconfigurable(Recorder({"log.retention.ms"}, refuse=True))
    dynamic.validate({"log.retention.ms": "5"}, per_broker=False)


def test_a_stored_config_that_fails_is_logged_not_raised(caplog: pytest.LogCaptureFixture,
                                                         ) -> None:
    dynamic = DynamicBrokerConfig(static())
    dynamic.add_reconfigurable(Recorder({"log.retention.ms"}, refuse=True))
    dynamic.update_broker_config({"log.retention.ms": "5"})
    assert dynamic.broker == {"log.retention.ms": "5"}  # kept, as Kafka keeps it
    assert dynamic.current.value("log.retention.ms") is None
    assert "could not be applied" in caplog.text


def test_names_to_describe() -> None:
    dynamic = DynamicBrokerConfig(static())
    dynamic.update_default_config({"b.custom": "1", "log.retention.ms": "1"})
    dynamic.update_broker_config({"a.custom": "2"})
    assert dynamic.dynamic_names() == ["a.custom", "b.custom", "log.retention.ms"]
    assert dynamic.synonyms("a.custom") == [("a.custom", None, DYNAMIC_BROKER_CONFIG)]
