"""Kafka's ``ZkNodeChangeNotificationListener``: changes announced by sequential znodes under one
path, processed in order, by every broker.

Whoever changes something shared (a topic's or a broker's configs, a user's credentials, the
ACLs of a resource pattern, a delegation token) writes it, then creates a sequential
notification under the path that announces its kind (``/config/changes``,
``/kafka-acl-changes``, ``/kafka-acl-extended-changes``, ``/delegation_token/token_changes``).
Every broker keeps one listener per path: it watches the path's children, hands each
notification newer than the last one it processed to the path's handler (oldest first), and
deletes notifications older than 15 minutes - every broker does, as in Kafka, whoever comes
first. Once connected again after a lost session it reads the path again, since the watch went
with the session. A failure (ZooKeeper unreachable, a handler's error) is logged and the pass is
tried again a second later.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Generic, Protocol, TypeVar

from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.zk.client import SessionEvent, SessionListener, SessionState
from pybroker.zk.kafka_zk import KafkaZkClient

log = logging.getLogger(__name__)

#: how long a change notification stays under its path (Kafka's
#: ZkNodeChangeNotificationListener: 15 minutes, not configurable)
CHANGE_EXPIRATION_MS = 15 * 60 * 1000
#: how long a failed pass waits before it is tried again
RETRY_BACKOFF_S = 1.0

#: what a notification carries (its data, decoded as the path's codec decodes it)
N = TypeVar("N")
N_co = TypeVar("N_co", covariant=True)


def expired_notifications(created: Mapping[str, int], now: int,
                          expiration_ms: int = CHANGE_EXPIRATION_MS) -> list[str]:
    """The notifications (by name, with their creation times) older than ``expiration_ms``
    at ``now``."""
    return sorted(name for name, ctime in created.items() if now - ctime > expiration_ms)


class ChangeNotifications(Protocol[N_co]):
    """The sequential notifications under one path, as ZooKeeper holds them."""

    async def names(self, watch: Callable[[object], None] | None = None) -> list[str]:
        """The notifications' names, oldest first; ``watch`` fires on the next change."""
        ...

    async def read(self, name: str) -> tuple[N_co, int] | None:
        """(what it says, its creation time in ms), or None when it is gone."""
        ...

    async def delete(self, names: list[str]) -> None: ...


class Sessions(Protocol):
    """Where the listener hears of the ZooKeeper session (:class:`pybroker.zk.client.ZkClient`)."""

    def add_session_listener(self, listener: SessionListener) -> None: ...

    def remove_session_listener(self, listener: SessionListener) -> None: ...


class ConfigChangeNotifications:
    """``/config/changes``: each notification names a config entity (``topics/<t>``)."""

    def __init__(self, zk: KafkaZkClient) -> None:
        self.zk = zk

    async def names(self, watch: Callable[[object], None] | None = None) -> list[str]:
        return await self.zk.get_config_change_notifications(watch)

    async def read(self, name: str) -> tuple[str, int] | None:
        return await self.zk.get_config_change_notification(name)

    async def delete(self, names: list[str]) -> None:
        await self.zk.delete_config_change_notifications(names)


class AclChangeNotifications:
    """``/kafka-acl-changes`` or ``/kafka-acl-extended-changes``: each notification names a
    resource pattern whose ACLs changed."""

    def __init__(self, zk: KafkaZkClient, root: str) -> None:
        self.zk = zk
        self.root = root

    async def names(self, watch: Callable[[object], None] | None = None) -> list[str]:
        return await self.zk.get_acl_change_notifications(self.root, watch)

    async def read(self, name: str) -> tuple[bytes, int] | None:
        return await self.zk.get_acl_change_notification(self.root, name)

    async def delete(self, names: list[str]) -> None:
        await self.zk.delete_acl_change_notifications(self.root, names)


class TokenChangeNotifications:
    """``/delegation_token/token_changes``: each notification names a delegation token that
    was created, renewed or removed."""

    def __init__(self, zk: KafkaZkClient) -> None:
        self.zk = zk

    async def names(self, watch: Callable[[object], None] | None = None) -> list[str]:
        return await self.zk.get_token_change_notifications(watch)

    async def read(self, name: str) -> tuple[str, int] | None:
        return await self.zk.get_token_change_notification(name)

    async def delete(self, names: list[str]) -> None:
        await self.zk.delete_token_change_notifications(names)


class ZkNodeChangeNotificationListener(Generic[N]):
    """Hands each new notification under one path to ``handler``, in order (Kafka's
    ``ZkNodeChangeNotificationListener``).

    At :meth:`start` the notifications already there count as processed (the caller read
    the state they announce); from then on each pass lists the path (setting the watch that
    triggers the next pass), processes the names after the last one processed, then purges
    the notifications older than ``expiration_ms`` - those seen before start-up are read once
    for their creation time. ``kind`` names the changes in the log ("config", "ACL")."""

    def __init__(self, notifications: ChangeNotifications[N],
                 handler: Callable[[N], Awaitable[None]], *, kind: str, task_name: str,
                 sessions: Sessions | None = None,
                 expiration_ms: int = CHANGE_EXPIRATION_MS, clock: Clock = SYSTEM_CLOCK) -> None:
        self.notifications = notifications
        self.handler = handler
        self.kind = kind
        self.task_name = task_name
        self.sessions = sessions
        self.expiration_ms = expiration_ms
        self.clock = clock
        self.last_seen = ""
        #: creation times of the notifications read so far
        self._created: dict[str, int] = {}
        self._pending = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        names = await self.notifications.names()
        self.last_seen = names[-1] if names else ""
        self._task = asyncio.get_running_loop().create_task(self._run(), name=self.task_name)
        if self.sessions is not None:
            self.sessions.add_session_listener(self._on_session_event)
        self._pending.set()

    async def stop(self) -> None:
        if self.sessions is not None:
            self.sessions.remove_session_listener(self._on_session_event)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def _on_session_event(self, event: SessionEvent) -> None:
        """Connected again: the children watch may have gone with the old session (Kafka's
        ``ZkStateChangeHandler.afterInitializingSession``), so read the path again."""
        if event.state is SessionState.CONNECTED:
            self._pending.set()

    async def _run(self) -> None:
        while True:
            await self._pending.wait()
            self._pending.clear()
            try:
                await self._process()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Could not process %s change notifications; retrying", self.kind)
                await asyncio.sleep(RETRY_BACKOFF_S)
                self._pending.set()

    async def _process(self) -> None:
        names = await self.notifications.names(lambda _event: self._pending.set())
        for name in names:
            if name <= self.last_seen:
                continue
            found = await self.notifications.read(name)
            self.last_seen = name
            if found is None:
                continue
            data, self._created[name] = found
            await self.handler(data)
        await self._purge(names)

    async def _purge(self, names: list[str]) -> None:
        """Delete the notifications past their expiry (Kafka's ``purgeObsoleteNotifications``);
        those seen before this broker started are read once for their creation time."""
        for name in names:
            if name not in self._created:
                found = await self.notifications.read(name)
                if found is not None:
                    self._created[name] = found[1]
        present = set(names)
        self._created = {n: t for n, t in self._created.items() if n in present}
        expired = expired_notifications(self._created, self.clock.milliseconds(),
                                        self.expiration_ms)
        if expired:
            await self.notifications.delete(expired)
            for name in expired:
                self._created.pop(name, None)
            log.debug("Purged %d expired %s change notification(s)", len(expired), self.kind)
