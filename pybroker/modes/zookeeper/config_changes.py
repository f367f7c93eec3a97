"""Config changes announced under ``/config/changes`` (Kafka's ``ZkConfigManager``): each
notification names an entity - a topic, a broker, the brokers' ``<default>``, a user - whose
configs are read again and handed to that entity type's handler."""

from __future__ import annotations

from collections.abc import Callable

from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.modes.zookeeper.change_notifications import (
    CHANGE_EXPIRATION_MS,
    ConfigChangeNotifications,
    ZkNodeChangeNotificationListener,
)
from pybroker.zk.kafka_zk import KafkaZkClient


class ConfigChangeWatcher:
    """Applies config changes announced under ``/config/changes`` (Kafka's ``ZkConfigManager``
    for the topics, brokers and users entities) through one
    :class:`~pybroker.modes.zookeeper.change_notifications.ZkNodeChangeNotificationListener`:
    each notification newer than the last one seen names an entity whose configs are read
    again and handed to that entity type's handler. After each pass, notifications older than
    15 minutes are deleted, by every broker as in Kafka (whoever comes first)."""

    def __init__(self, zk: KafkaZkClient,
                 handlers: dict[str, Callable[[str, dict[str, str]], None]],
                 expiration_ms: int = CHANGE_EXPIRATION_MS, *,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.zk = zk
        self.handlers = handlers
        self.listener = ZkNodeChangeNotificationListener(
            ConfigChangeNotifications(zk), self._process, kind="config",
            task_name="config-changes", sessions=zk.zk, expiration_ms=expiration_ms,
            clock=clock)

    async def start(self) -> None:
        await self.listener.start()

    async def stop(self) -> None:
        await self.listener.stop()

    async def _process(self, entity_path: str) -> None:
        """Kafka's ``ConfigChangedNotificationHandler``: ``<entity type>/<entity>``."""
        entity_type, _, entity = entity_path.partition("/")
        handler = self.handlers.get(entity_type)
        if handler is not None:
            handler(entity, await self.zk.get_entity_configs(entity_type, entity))
