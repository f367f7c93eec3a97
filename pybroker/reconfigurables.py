"""The parts of a broker that take dynamic broker configs at run time (KIP-226), as Kafka's
``BrokerReconfigurable`` implementations do.

Each one names the properties it follows, checks a new configuration before it is stored (a
refusal is answered as an "Invalid dynamic configuration" naming the refusal, as Kafka answers
it) and applies it once stored:

* :class:`LogConfigReconfigurable` - the broker defaults of the topic configs (``log.retention.ms``,
  ``log.segment.bytes``, ``min.insync.replicas``, ``compression.type``, ...): every log whose
  topic does not override a setting takes the new default at once (Kafka's DynamicLogConfig);
* :class:`LogCleanerReconfigurable` - the log cleaner's back-off (and Kafka's checks of its
  thread count);
* :class:`ThreadPoolReconfigurable` - ``num.replica.fetchers``: the replica fetchers are
  redistributed over the new number (ZooKeeper mode), with Kafka's bounds on thread counts;
* :class:`ListenerReconfigurable` - ``listeners`` and ``advertised.listeners``, per broker:
  listeners added or removed by name are opened or closed (a new TLS listener's settings are
  checked first), and a change of what is advertised
  is announced (the metadata cache on the embedded node, the broker's registration in
  ZooKeeper mode);
* :class:`UncleanLeaderElectionReconfigurable` - ``unclean.leader.election.enable`` for the
  controller of a ZooKeeper-mode cluster;
* :class:`TransactionVerificationReconfigurable` - ``transaction.partition.verification.enable``:
  the partitions' leaders start or stop verifying transactional appends with the transaction
  coordinators (KIP-890; the verification half of Kafka's DynamicProducerStateManagerConfig).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from pybroker.config import TOPIC_CONFIGS, ConfigException, Endpoint, parse_listeners
from pybroker.config.dynamic import EffectiveBrokerConfig
from pybroker.log.config import LogConfig
from pybroker.quota.replication import FOLLOWER_RATE, LEADER_RATE, ReplicationQuota
from pybroker.security.listeners import check_listener_security

if TYPE_CHECKING:
    from pybroker.log.cleaner import LogCleaner
    from pybroker.log.manager import LogManager
    from pybroker.metadata.config_repository import ConfigRepository

log = logging.getLogger(__name__)

#: the broker names behind topic configs that change at run time: all but the message format
#: version (Kafka's DynamicLogConfig.ReconfigurableConfigs)
LOG_CONFIGS = frozenset(k.synonyms[0][0] for k in TOPIC_CONFIGS.values()
                        if k.synonyms and k.name != "message.format.version")
LOG_CLEANER_CONFIGS = frozenset({
    "log.cleaner.threads", "log.cleaner.dedupe.buffer.size", "log.cleaner.io.buffer.load.factor",
    "log.cleaner.io.buffer.size", "message.max.bytes", "log.cleaner.io.max.bytes.per.second",
    "log.cleaner.backoff.ms"})
THREAD_POOL_CONFIGS = frozenset({
    "num.io.threads", "num.replica.fetchers", "num.recovery.threads.per.data.dir",
    "background.threads"})
LISTENER_CONFIGS = frozenset({
    "listeners", "advertised.listeners", "listener.security.protocol.map"})


def _retention_ms(config: EffectiveBrokerConfig) -> int:
    """Kafka's ``logRetentionTimeMillis``: the first unit set, -1 for any negative value."""
    ms = config.value("log.retention.ms")
    if ms is None:
        minutes = config.value("log.retention.minutes")
        ms = 60_000 * minutes if minutes is not None else 3_600_000 * config.value(
            "log.retention.hours")
    return -1 if ms < 0 else ms


class LogConfigReconfigurable:
    """New broker defaults for every topic config a topic does not override."""

    reconfigurable_configs = LOG_CONFIGS

    def __init__(self, configs: ConfigRepository, log_manager: LogManager) -> None:
        self.configs = configs
        self.log_manager = log_manager

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        """Kafka's checks of the local (tiered-storage) retention against the retention."""
        for local_name, total, total_name, unset in (
                ("log.local.retention.ms", _retention_ms(new), "log.retention.ms", -1),
                ("log.local.retention.bytes", new.value("log.retention.bytes"),
                 "log.retention.bytes", None)):
            local = new.value(local_name)
            limited = total != -1 if unset is not None else total > -1
            if not limited or local == -2:
                continue
            if local == -1:
                raise ConfigException.invalid(
                    local_name, local, f"Value must not be -1 as {total_name} value is set as "
                                       f"{total}.")
            if local > total:
                raise ConfigException.invalid(
                    local_name, local, f"Value must not be more than {total_name} property "
                                       f"value: {total}")

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None:
        default = LogConfig.from_broker_properties(new.config.props)
        self.log_manager.default_config = default
        self.configs.set_default_log_config(default)


class LogCleanerReconfigurable:
    """The log cleaner's settings (Kafka's LogCleaner.ReconfigurableConfigs)."""

    reconfigurable_configs = LOG_CLEANER_CONFIGS

    def __init__(self, cleaner: LogCleaner) -> None:
        self.cleaner = cleaner

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        threads, current = new.value("log.cleaner.threads"), old.value("log.cleaner.threads")
        if threads < 1:
            raise ConfigException("Log cleaner threads should be at least 1")
        if threads < current // 2:
            raise ConfigException("Log cleaner threads cannot be reduced to less than half the "
                                  f"current value {current}")
        if threads > current * 2:
            raise ConfigException("Log cleaner threads cannot be increased to more than double "
                                  f"the current value {current}")

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None:
        self.cleaner.backoff_ms = new.value("log.cleaner.backoff.ms")


class ThreadPoolReconfigurable:
    """Thread counts (Kafka's BrokerDynamicThreadPool): of those this broker has, the replica
    fetchers; the others are checked and kept as Kafka does."""

    reconfigurable_configs = THREAD_POOL_CONFIGS

    def __init__(self, resize_fetchers: Callable[[int], None] | None = None) -> None:
        self.resize_fetchers = resize_fetchers

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        for name in sorted(THREAD_POOL_CONFIGS):
            value, current = new.value(name), old.value(name)
            if value == current:
                continue
            why = f"Dynamic thread count update validation failed for {name}={value}"
            if value <= 0:
                raise ConfigException(f"{why}, value should be at least 1")
            if value < current // 2:
                raise ConfigException(f"{why}, value should be at least half the current value "
                                      f"{current}")
            if value > current * 2:
                raise ConfigException(f"{why}, value should not be greater than double the "
                                      f"current value {current}")

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None:
        fetchers = new.value("num.replica.fetchers")
        if fetchers != old.value("num.replica.fetchers") and self.resize_fetchers is not None:
            self.resize_fetchers(fetchers)


def _protocol_map(config: EffectiveBrokerConfig) -> dict[str, str]:
    return config.config.security_protocol_map


def listeners_of(config: EffectiveBrokerConfig) -> tuple[list[Endpoint], list[Endpoint]]:
    """(listeners, advertised listeners) of a configuration; the advertised ones are the
    listeners when ``advertised.listeners`` is unset."""
    listeners = parse_listeners(config.config.get("listeners") or "")
    advertised = parse_listeners(config.config.get("advertised.listeners") or "") or listeners
    return listeners, advertised


class ListenerReconfigurable:
    """``listeners`` and ``advertised.listeners`` of this broker (Kafka's
    DynamicListenerConfig): listeners are compared by name, as Kafka compares them."""

    reconfigurable_configs = LISTENER_CONFIGS

    def __init__(self, *, add: Callable[[list[Endpoint]], None],
                 remove: Callable[[list[str]], None],
                 advertise: Callable[[EffectiveBrokerConfig], None]) -> None:
        self.add = add
        self.remove = remove
        self.advertise = advertise

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        listeners, advertised = listeners_of(new)
        names = {e.listener for e in listeners}
        advertised_names = {e.listener for e in advertised}
        if not advertised_names <= names:
            raise ConfigException(f"Advertised listeners '{sorted(advertised_names)}' must be a "
                                  f"subset of listeners '{sorted(names)}'")
        protocols, old_protocols = _protocol_map(new), _protocol_map(old)
        if not names <= set(protocols):
            raise ConfigException(f"Listeners '{sorted(names)}' must be subset of listener map "
                                  f"'{protocols}'")
        for name in names & {e.listener for e in listeners_of(old)[0]}:
            if protocols.get(name) != old_protocols.get(name):
                raise ConfigException(f"Security protocol cannot be updated for existing "
                                      f"listener {name}")
        for name in sorted(names - {e.listener for e in listeners_of(old)[0]}):
            # a new TLS listener's settings must work (its files are read as it opens)
            check_listener_security(new.config, name)
        inter_broker = new.config.inter_broker_listener[0]
        if inter_broker not in advertised_names:
            raise ConfigException(f"Advertised listener must be specified for inter-broker "
                                  f"listener {inter_broker}")

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None:
        (old_listeners, old_advertised), (listeners, advertised) = (listeners_of(old),
                                                                    listeners_of(new))
        old_names = {e.listener for e in old_listeners}
        names = {e.listener for e in listeners}
        removed = sorted(old_names - names)
        if removed:
            self.remove(removed)
        added = [e for e in listeners if e.listener not in old_names]
        if added:
            self.add(added)
        if sorted(map(str, old_advertised)) != sorted(map(str, advertised)):
            self.advertise(new)


class UncleanLeaderElectionReconfigurable:
    """The broker default of ``unclean.leader.election.enable``, as the controller of a
    ZooKeeper-mode cluster elects with it; turning it on elects the offline partitions."""

    reconfigurable_configs = frozenset({"unclean.leader.election.enable"})

    def __init__(self, apply: Callable[[bool], None]) -> None:
        self.apply = apply

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        pass

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None:
        self.apply(bool(new.value("unclean.leader.election.enable")))


class TransactionVerificationReconfigurable:
    """``transaction.partition.verification.enable``: whether leaders verify a producer's first
    transactional batch of a transaction in a partition with its coordinator."""

    reconfigurable_configs = frozenset({"transaction.partition.verification.enable"})

    def __init__(self, apply: Callable[[bool], None]) -> None:
        self.apply = apply

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        pass

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None:
        self.apply(bool(new.value("transaction.partition.verification.enable")))


class ReplicationQuotaReconfigurable:
    """``leader.replication.throttled.rate`` and ``follower.replication.throttled.rate`` (KIP-73):
    the bounds of this broker's replication quotas, as its dynamic configs set them (unset:
    unlimited)."""

    reconfigurable_configs = frozenset({LEADER_RATE, FOLLOWER_RATE})

    def __init__(self, leader: ReplicationQuota, follower: ReplicationQuota,
                 current: EffectiveBrokerConfig) -> None:
        self.leader = leader
        self.follower = follower
        self.reconfigure(current, current)

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        pass

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None:
        for quota, name in ((self.leader, LEADER_RATE), (self.follower, FOLLOWER_RATE)):
            raw = new.value_string(name)
            try:
                quota.set_bound(float(raw) if raw is not None else None)
            except ValueError:
                quota.set_bound(None)
