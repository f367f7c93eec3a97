"""The harness of the unit tests that need a whole broker: a real embedded node
(:class:`pybroker.modes.embedded.broker.Broker`, a one-broker cluster over its local znode
tree) on a private event loop driven from the test's own thread.

The loop runs only while the test waits on it (:meth:`EmbeddedNode.run`,
:meth:`EmbeddedNode.wait_until`), so between two waits nothing moves and the test reads the
broker's state as the last wait left it. The controller works asynchronously - a topic exists
once UpdateMetadata has reached the metadata cache - so the helpers wait for what they caused,
each within a deadline, rather than sleeping.

It listens on 127.0.0.1 (an ephemeral port) and starts no process; :meth:`EmbeddedNode.stop`
stops the broker cleanly, cancels whatever task is left and closes the loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import inspect
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from protocol.errors import ErrorCode, KafkaError
from pybroker.admin import NewTopic
from pybroker.cluster.metadata_cache import BrokerNode
from pybroker.config import BrokerConfig
from pybroker.metadata.model import TopicRecord
from pybroker.modes.embedded.broker import Broker

T = TypeVar("T")

#: how long a wait may take before the test fails (the controller answers in milliseconds)
DEADLINE_S = 15.0


class OnLoop:
    """``target`` with every method called on the node's loop and its outcome waited for:
    the tests of a subsystem the broker wired up call it as they would a synchronous one."""

    def __init__(self, node: EmbeddedNode, target: object) -> None:
        self._node = node
        self._target = target

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if callable(value) and not isinstance(value, type):
            return lambda *args, **kwargs: self._node.call(value, *args, **kwargs)
        if _is_subsystem(value):  # the service's coordinator, its offsets, ...
            return OnLoop(self._node, value)
        return value


def _is_subsystem(value: object) -> bool:
    """An object of the broker's own (not a value: no dataclass, enum or builtin)."""
    kind = type(value)
    return (kind.__module__.startswith("pybroker.") and not dataclasses.is_dataclass(value)
            and not isinstance(value, enum.Enum))


class EmbeddedNode:
    """One embedded broker and the loop it runs on."""

    def __init__(self, log_dir: Path, **props: object) -> None:
        self.log_dir = log_dir
        self.props: dict[str, object] = {
            "listeners": "PLAINTEXT://127.0.0.1:0",
            "log.dirs": str(log_dir),
            **props,
        }
        self.loop = asyncio.new_event_loop()
        #: what the broker would have halted the process with (a test broker goes on)
        self.halted: list[str] = []
        self.broker = Broker(BrokerConfig.from_dict(self.props))
        self.broker.halt = self.halted.append  # type: ignore[method-assign]
        self._stopped = False

    @classmethod
    def start(cls, log_dir: Path, **props: object) -> EmbeddedNode:
        """A started node (its stored metadata read, its listener open, its controller
        elected); a node that fails to start is stopped before the error is raised."""
        node = cls(log_dir, **props)
        try:
            node.run(node.broker.start())
            node.wait_until(lambda: node.broker.controller is not None
                            and node.broker.controller.is_active, what="the controller elected")
            zk = node.broker.zk
            # a topic still being deleted stays without leaders until the controller is done
            deleting = set(node.run(zk.get_topic_deletions()))
            stored = node.run(zk.get_replica_assignment_and_topic_ids(
                node.run(zk.get_all_topics()) - deleting))
            partitions = [(t, p) for t, (a, _) in stored.items() for p in a.partitions]
            node.wait_until(lambda: node.all_led(partitions),
                            what=f"every stored partition led ({sorted(partitions)})")
        except BaseException:
            node.stop()
            raise
        return node

    def all_led(self, partitions: Iterable[tuple[str, int]]) -> bool:
        """Whether the metadata cache knows each of ``partitions`` and each this broker is a
        replica of is hosted here, led when it leads (once the controller's LeaderAndIsr and
        UpdateMetadata have reached this broker; a partition whose replicas are all gone
        stays without a leader)."""
        cache = self.broker.metadata_cache
        if cache is None:
            return False
        me = self.broker.broker_id
        for topic, partition in partitions:
            info = cache.partition(topic, partition)
            if info is None:
                return False
            if me in info.replicas and info.leader < 0 and me in info.isr:
                return False
            hosted = self.broker.replica_manager.get_partition(topic, partition)
            if me in info.replicas and hosted is None:
                return False
            if info.leader == me and (hosted is None or not hosted.is_leader):
                return False
        return True

    # -- waiting on the loop -------------------------------------------------------------------
    def run(self, what: Awaitable[T] | T, timeout: float = DEADLINE_S) -> T:
        """Wait for a coroutine, a future or an Outcome (a value known at once is returned as
        it is), on the broker's loop, for ``timeout`` seconds at most."""
        async def settle() -> Any:
            return await what if inspect.isawaitable(what) else what

        return self.loop.run_until_complete(asyncio.wait_for(settle(), timeout))

    def call(self, fn: Callable[..., Awaitable[T] | T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` called on the running loop (where the broker's futures are
        made), and its outcome waited for."""
        async def called() -> Any:
            result = fn(*args, **kwargs)
            return await result if inspect.isawaitable(result) else result

        return self.run(called())

    def on_loop(self, target: object) -> Any:
        """``target`` whose methods run on this loop (:class:`OnLoop`)."""
        return OnLoop(self, target)

    def wait_until(self, condition: Callable[[], bool], timeout: float = DEADLINE_S,
                   what: str = "the condition") -> None:
        """Let the loop run until ``condition()`` holds."""
        async def poll() -> None:
            deadline = time.monotonic() + timeout
            while not condition():
                if time.monotonic() > deadline:
                    raise AssertionError(f"{what} did not hold within {timeout}s")
                await asyncio.sleep(0.005)

        self.run(poll(), timeout + 1)

    def settle(self, seconds: float = 0.05) -> None:
        """Let the loop run for a moment (for what must *not* happen)."""
        self.run(asyncio.sleep(seconds))

    def announce_peer(self, broker_id: int) -> None:
        """Make the metadata cache know a second, live broker (as an UpdateMetadata naming it
        would), so that a partition can be made to follow it here: Kafka's replica manager
        leaves a partition as it is when its new leader is not alive. Its endpoint is a
        port on 127.0.0.1 that nothing listens on."""
        cache = self.broker.metadata_cache
        assert cache is not None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        listener = self.broker.inter_broker_listener
        cache.update_metadata(cache.controller_id, [
            *cache.live_nodes.values(),
            BrokerNode(broker_id, ((listener, "127.0.0.1", port),))], [])

    # -- the admin seam ------------------------------------------------------------------------
    @property
    def now_ms(self) -> int:
        return self.broker.clock.milliseconds()

    def create_topics(self, topics: list[NewTopic], *, validate_only: bool = False,
                      timeout_ms: int = 10_000) -> list[TopicRecord | KafkaError]:
        admin = self.broker.admin
        assert admin is not None
        return self.call(admin.create_topics, topics, validate_only=validate_only,
                         timeout_ms=timeout_ms, now_ms=self.now_ms)

    def create_topic(self, name: str, partitions: int = 1,
                     configs: Mapping[str, str] | None = None) -> TopicRecord:
        """A topic created through the admin seam, returned once every partition is led here
        (its logs open)."""
        [created] = self.create_topics([NewTopic(name, partitions, 1,
                                                 configs=dict(configs or {}))])
        assert isinstance(created, TopicRecord), created
        self.wait_until(lambda: all(self.broker.log_manager.get_log(name, p) is not None
                                    for p in range(partitions)),
                        what=f"the logs of {name} opening")
        return created

    def ensure_internal_topic(self, ensure: Callable[[int], ErrorCode]) -> ErrorCode:
        """Ask for an internal topic (``ensure_offsets_topic``, ``ensure_topic``) until it
        exists, as a client's FindCoordinator retries do; the first answer (as in Kafka's
        ZooKeeper mode, COORDINATOR_NOT_AVAILABLE while the controller creates it)."""
        first = self.call(ensure, self.now_ms)
        answers = [first]

        def exists() -> bool:
            answers.append(ensure(self.now_ms))
            return answers[-1] == ErrorCode.NONE

        self.wait_until(exists, what="the internal topic being created")
        return first

    # -- stopping ------------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop the broker (if it started), cancel every task left and close the loop; fail
        if the broker halted meanwhile (:attr:`halted`)."""
        if self._stopped:
            return
        self._stopped = True
        try:
            if self.broker.started:
                self.run(self.broker.stop(), timeout=30)
            else:  # a start that failed half-way: close what it opened
                try:
                    self.run(self.broker.stop(), timeout=30)
                except Exception:
                    pass
        finally:
            tasks = asyncio.all_tasks(self.loop)
            for task in tasks:
                task.cancel()
            if tasks:
                self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()
        # a halt is how a broker process ends on a lost metadata dir: no test here expects one
        assert not self.halted, f"the broker halted: {self.halted}"

    def restart(self) -> EmbeddedNode:
        """This node stopped, and a new one started over the same log dirs."""
        self.stop()
        props = {k: v for k, v in self.props.items() if k not in ("listeners", "log.dirs")}
        return EmbeddedNode.start(self.log_dir, **props)

    def __enter__(self) -> EmbeddedNode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
