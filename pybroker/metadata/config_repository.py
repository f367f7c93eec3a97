"""Topic config overrides as this broker knows them, and the settings each topic's logs run with
(Kafka's ``ConfigRepository``).

Whoever owns the cluster metadata feeds it: the embedded controller as it restores and changes
topics; in ZooKeeper mode, ``/config/topics`` and its change notifications. The broker defaults
beneath the overrides change with the dynamic broker configs (KIP-226). Readers (the replica
manager opening logs, DescribeConfigs, the fetch path) only ask. Listeners hear of every change,
so that open logs take new settings at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from protocol.errors import KafkaError
from pybroker.log.config import LogConfig

log = logging.getLogger(__name__)

ConfigListener = Callable[[str], None]


class ConfigRepository:
    def __init__(self, default_log_config: LogConfig) -> None:
        self.default_log_config = default_log_config
        self._overrides: dict[str, dict[str, str]] = {}
        self._listeners: list[ConfigListener] = []

    # -- written by the metadata owner -----------------------------------------------------
    def set_topic_overrides(self, topic: str, overrides: Mapping[str, str]) -> None:
        self._overrides[topic] = dict(overrides)
        for listener in self._listeners:
            listener(topic)

    def set_default_log_config(self, config: LogConfig) -> None:
        """New broker defaults (a dynamic ``log.*`` change, KIP-226): every topic's logs take
        them wherever the topic has no override of its own, as Kafka's DynamicLogConfig."""
        self.default_log_config = config
        for topic in sorted(self._overrides):
            for listener in self._listeners:
                listener(topic)

    def remove_topic(self, topic: str) -> None:
        self._overrides.pop(topic, None)

    def add_listener(self, listener: ConfigListener) -> None:
        self._listeners.append(listener)

    # -- read by everyone ------------------------------------------------------------------
    def topic_overrides(self, topic: str) -> dict[str, str]:
        return dict(self._overrides.get(topic, {}))

    def effective(self, overrides: Mapping[str, str]) -> LogConfig:
        """The settings ``overrides`` give over the broker defaults; raises KafkaError
        (INVALID_CONFIG, with Kafka's message) for a value Kafka refuses."""
        return LogConfig.from_properties(overrides, self.default_log_config)

    def log_config(self, topic: str) -> LogConfig:
        """The settings ``topic``'s logs run with. A stored override this version refuses
        (written by an older one, or by hand) must not keep the topic's logs from loading: it
        is dropped, loudly."""
        overrides = self._overrides.get(topic, {})
        try:
            return self.effective(overrides)
        except KafkaError:
            usable: dict[str, str] = {}
            for name, value in overrides.items():
                try:
                    self.effective({**usable, name: value})
                except KafkaError as e:
                    log.warning("topic %s: ignoring its stored config %s=%r: %s",
                                topic, name, value, e.message)
                else:
                    usable[name] = value
            return self.effective(usable)
