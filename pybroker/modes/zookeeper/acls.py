"""ACLs in ZooKeeper, as Kafka's ``AclAuthorizer`` keeps them: each pattern's ACLs in its znode
(``/kafka-acl/...``, ``/kafka-acl-extended/prefixed/...``), each change announced by a sequential
znode under ``/kafka-acl-changes`` (literal patterns) or ``/kafka-acl-extended-changes``, on which
every broker rereads that pattern. Kafka's tools and brokers share these znodes with pybroker's.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random

from pybroker.kernel.clock import Clock
from pybroker.modes.zookeeper.change_notifications import (
    CHANGE_EXPIRATION_MS,
    AclChangeNotifications,
    ZkNodeChangeNotificationListener,
)
from pybroker.security import acl_json
from pybroker.security.acl import AccessControlEntry, ResourcePattern
from pybroker.security.authorizer import AclAuthorizer, AclChange, AclChanges, AclUpdates
from pybroker.zk.kafka_zk import KafkaZkClient
from pybroker.zk.znodes import AclChangeNotificationZNode, AclZNode

log = logging.getLogger(__name__)

#: how often a change is tried again when another broker changed the same znode meanwhile
MAX_UPDATE_RETRIES = 10


def _encode(entries: frozenset[AccessControlEntry]) -> bytes | None:
    return AclZNode.encode(acl_json.entries_to_json(entries)["acls"]) if entries else None


def _decode(data: bytes | None) -> frozenset[AccessControlEntry]:
    return acl_json.entries_from_json({"version": 1, "acls": AclZNode.decode(data)})


class ZkAclStore:
    """The AclStore of a ZooKeeper-mode broker: each changed pattern's znode written (deleted
    when it has no ACLs left), then its change notification.

    What it writes goes into the authorizer's cache at once, under ``lock``, which the
    :class:`AclChangeWatcher` holds too while it reads and applies a pattern (Kafka's
    authorizer lock): each thing the cache takes over was read or written in ZooKeeper after
    the one before, so an older state never overwrites a newer one."""

    def __init__(self, zk: KafkaZkClient, authorizer: AclAuthorizer,
                 lock: asyncio.Lock) -> None:
        self.zk = zk
        self.authorizer = authorizer
        self.lock = lock

    async def load(self) -> dict[ResourcePattern, frozenset[AccessControlEntry]]:
        out = {}
        for path in await self.zk.get_acl_node_paths():
            try:
                pattern = acl_json.pattern_from_path(path)
            except ValueError:
                log.warning("Ignoring ACLs of an unknown resource type: %s", path)
                continue
            out[pattern] = _decode(await self.zk.get_acl_node(path))
        return out

    async def refresh(self, patterns: list[ResourcePattern]) -> None:
        """The cache takes over what ZooKeeper holds now for these patterns."""
        for pattern in patterns:
            async with self.lock:
                entries = _decode(await self.zk.get_acl_node(acl_json.pattern_path(pattern)))
                self.authorizer.apply({pattern: entries})

    def write(self, changes: AclChanges) -> asyncio.Future[AclUpdates]:
        return asyncio.ensure_future(self._write(changes))

    async def _write(self, changes: AclChanges) -> AclUpdates:
        """Nothing left for the caller to apply: the cache took each pattern over as written."""
        for pattern, change in changes.items():
            async with self.lock:
                self.authorizer.apply({pattern: await self._update(pattern, change)})
            root, data = acl_json.change_notification(pattern)
            await self.zk.create_acl_change_notification(root, data)
        return {}

    async def _update(self, pattern: ResourcePattern,
                      change: AclChange) -> frozenset[AccessControlEntry]:
        """The change applied to the znode as it is now, written only if nobody changed it in
        between (read again and retried otherwise, as Kafka's ``updateResourceAcls``)."""
        path = acl_json.pattern_path(pattern)
        for _ in range(MAX_UPDATE_RETRIES):
            found = await self.zk.get_versioned_acl_node(path)
            current = _decode(found[0]) if found is not None else frozenset()
            new = change.applied_to(current)
            if new == current:
                return new
            version = found[1] if found is not None else None
            if await self.zk.conditional_set_acl_node(path, _encode(new), version):
                return new
            await asyncio.sleep(random.uniform(0.1, 0.15))
        raise RuntimeError(f"Failed to update ACLs for {pattern} after trying a maximum of "
                           f"{MAX_UPDATE_RETRIES} times")


class AclChangeWatcher:
    """Rereads the patterns named by new ACL change notifications and hands their ACLs to the
    authorizer: one :class:`~pybroker.modes.zookeeper.change_notifications.
    ZkNodeChangeNotificationListener` on each change root, as Kafka's ``AclAuthorizer`` keeps
    one for literal and one for prefixed patterns; each deletes notifications older than
    :data:`CHANGE_EXPIRATION_MS`."""

    def __init__(self, zk: KafkaZkClient, authorizer: AclAuthorizer,
                 clock: Clock, lock: asyncio.Lock) -> None:
        self.zk = zk
        self.authorizer = authorizer
        self.lock = lock
        self.listeners = {
            root: ZkNodeChangeNotificationListener(
                AclChangeNotifications(zk, root),
                functools.partial(self._process, root), kind="ACL",
                task_name=root.strip('/'), sessions=zk.zk,
                expiration_ms=CHANGE_EXPIRATION_MS, clock=clock)
            for root in AclChangeNotificationZNode.ROOTS}

    async def start(self) -> None:
        for listener in self.listeners.values():
            await listener.start()

    async def stop(self) -> None:
        for listener in self.listeners.values():
            await listener.stop()

    async def _process(self, root: str, data: bytes) -> None:
        """Kafka's ``AclChangedNotificationHandler``: the pattern's ACLs as ZooKeeper holds
        them now, read and applied under the authorizer lock."""
        pattern = acl_json.pattern_from_change(root, data)
        async with self.lock:
            entries = _decode(await self.zk.get_acl_node(acl_json.pattern_path(pattern)))
            self.authorizer.apply({pattern: entries})
