"""The change-notification listener (Kafka's ZkNodeChangeNotificationListener) over an
in-memory path of sequential notifications: order, what counts as new, the purge of expired
notifications, retries after a failure, and the re-read once a session is back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pybroker.kernel.clock import ManualClock
from pybroker.modes.zookeeper import change_notifications as cn
from pybroker.modes.zookeeper.change_notifications import ZkNodeChangeNotificationListener
from pybroker.zk.client import SessionEvent, SessionListener, SessionState


class Path:
    """Sequential notifications under one path; the watch fires once, on the next change."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.nodes: dict[str, tuple[str, int]] = {}
        self.seq = 0
        self.watch: Callable[[object], None] | None = None
        self.reads = 0

    def create(self, data: str) -> str:
        name = f"change_{self.seq:010d}"
        self.seq += 1
        self.nodes[name] = (data, self.clock.milliseconds())
        self._fire()
        return name

    def _fire(self) -> None:
        watch, self.watch = self.watch, None
        if watch is not None:
            watch(None)

    async def names(self, watch: Callable[[object], None] | None = None) -> list[str]:
        if watch is not None:
            self.watch = watch
        return sorted(self.nodes)

    async def read(self, name: str) -> tuple[str, int] | None:
        self.reads += 1
        return self.nodes.get(name)

    async def delete(self, names: list[str]) -> None:
        for name in names:
            self.nodes.pop(name, None)
        self._fire()


class Sessions:
    def __init__(self) -> None:
        self.listeners: list[SessionListener] = []

    def add_session_listener(self, listener: SessionListener) -> None:
        self.listeners.append(listener)

    def remove_session_listener(self, listener: SessionListener) -> None:
        self.listeners.remove(listener)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def test_new_notifications_are_handled_in_order_and_old_ones_purged() -> None:
    async def main() -> None:
        clock = ManualClock(ms=1_000_000)
        path = Path(clock)
        path.create("before-start")
        seen: list[str] = []

        async def handle(data: str) -> None:
            seen.append(data)

        listener = ZkNodeChangeNotificationListener(
            path, handle, kind="test", task_name="test-changes", expiration_ms=1000, clock=clock)
        await listener.start()
        try:
            await settle()
            assert seen == []  # what was there at start-up counts as processed
            clock.advance(600)
            path.create("a")
            path.create("b")
            await settle()
            assert seen == ["a", "b"]
            assert len(path.nodes) == 3  # nothing expired yet
            clock.advance(600)  # "before-start" is 1.2 s old, "a" and "b" 0.6 s
            path.create("c")
            await settle()
            assert seen == ["a", "b", "c"]
            assert sorted(data for data, _ in path.nodes.values()) == ["a", "b", "c"]
            clock.advance(1001)
            path.create("d")
            await settle()
            assert seen == ["a", "b", "c", "d"]
            assert [data for data, _ in path.nodes.values()] == ["d"]
        finally:
            await listener.stop()
        assert listener.sessions is None

    asyncio.run(main())


def test_a_failing_pass_is_logged_and_tried_again(monkeypatch, caplog) -> None:
    monkeypatch.setattr(cn, "RETRY_BACKOFF_S", 0.0)

    async def main() -> None:
        clock = ManualClock()
        path = Path(clock)
        seen: list[str] = []
        fail = [True]

        async def handle(data: str) -> None:
            if fail[0]:
                fail[0] = False
                raise RuntimeError("ZooKeeper away")
            seen.append(data)

        listener = ZkNodeChangeNotificationListener(
            path, handle, kind="test", task_name="test-changes", clock=clock)
        await listener.start()
        try:
            path.create("lost")  # its handling fails: as in Kafka, it is not handled again
            path.create("next")
            await settle()
            assert seen == ["next"]
        finally:
            await listener.stop()

    asyncio.run(main())
    assert "Could not process test change notifications; retrying" in caplog.text


def test_the_path_is_read_again_once_a_session_is_back() -> None:
    async def main() -> None:
        clock = ManualClock()
        path = Path(clock)
        sessions = Sessions()
        seen: list[str] = []

        async def handle(data: str) -> None:
            seen.append(data)

        listener = ZkNodeChangeNotificationListener(
            path, handle, kind="test", task_name="test-changes", sessions=sessions, clock=clock)
        await listener.start()
        try:
            await settle()
            path.watch = None  # the session expired, and its watch with it
            path.nodes["change_0000000001"] = ("while-away", 0)
            await settle()
            assert seen == []
            for listener_fn in list(sessions.listeners):
                listener_fn(SessionEvent(SessionState.CONNECTED, 2))
            await settle()
            assert seen == ["while-away"]
        finally:
            await listener.stop()
        assert sessions.listeners == []

    asyncio.run(main())


def test_expired_notifications_are_those_older_than_the_expiry() -> None:
    created = {"n1": 1_000, "n2": 5_000, "n3": 9_000}
    assert cn.expired_notifications(created, now=10_000, expiration_ms=4_000) == ["n1", "n2"]
    assert cn.expired_notifications(created, now=10_000) == []
