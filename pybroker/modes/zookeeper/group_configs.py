"""Group configs (KIP-848) in ZooKeeper mode. Kafka keeps them only in KRaft; pybroker keeps
them as it keeps other config entities:

- ``/config/groups/<group>`` (the id sanitized as Kafka's ``Sanitizer`` does) holds a group's
  overrides, ``{"version":1,"config":{...}}``;
- every change is announced by a ``/config/group_changes/group_config_change_<seq>``
  notification naming the group, on which every broker reads the group's znode again. It is
  not under ``/config/changes``, which Kafka 3.9 brokers of a mixed cluster read: they would
  stop at an entity type they do not know and apply no later change;
- whichever broker receives IncrementalAlterConfigs or AlterConfigs writes them (through
  :class:`~pybroker.modes.zookeeper.admin.ZkAdminManager`), and DescribeConfigs reads the znode,
  so an answer right after a change made through another broker shows it.

Each broker's :class:`~pybroker.config.groups.GroupConfigs` is fed from here, for the groups
it coordinates now or may after a failover. The embedded node keeps the same znodes in its
local tree.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from pybroker.config.groups import GroupConfigs
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.modes.zookeeper.change_notifications import ZkNodeChangeNotificationListener
from pybroker.zk.kafka_zk import KafkaZkClient

log = logging.getLogger(__name__)


class GroupConfigChangeNotifications:
    """``/config/group_changes``: each notification names a group whose configs changed."""

    def __init__(self, zk: KafkaZkClient) -> None:
        self.zk = zk

    async def names(self, watch: Callable[[object], None] | None = None) -> list[str]:
        return await self.zk.get_group_config_change_notifications(watch)

    async def read(self, name: str) -> tuple[str, int] | None:
        return await self.zk.get_group_config_change_notification(name)

    async def delete(self, names: list[str]) -> None:
        await self.zk.delete_group_config_change_notifications(names)


class ZkGroupConfigs:
    """Loads every group's configs at start-up and follows their changes."""

    def __init__(self, zk: KafkaZkClient, configs: GroupConfigs, *,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.zk = zk
        self.configs = configs
        self.listener = ZkNodeChangeNotificationListener(
            GroupConfigChangeNotifications(zk), self._changed, kind="group config",
            task_name="group-config-changes", sessions=zk.zk, clock=clock)

    async def start(self) -> None:
        # the listener first, as Kafka's token manager does: a change made while the znodes
        # are read is then read again rather than missed
        await self.zk.create_group_config_paths()
        await self.listener.start()
        stored = await self.zk.get_all_group_configs()
        self.configs.load(stored)
        if stored:
            log.info("Loaded the configs of %d group(s)", len(stored))

    async def stop(self) -> None:
        await self.listener.stop()

    async def _changed(self, group: str) -> None:
        self.configs.set(group, await self.zk.get_group_config(group))
