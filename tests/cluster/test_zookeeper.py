"""The ZooKeeper layer against a real ZooKeeper server: the asyncio client (watches, sessions,
chroot, multi) and Kafka's operations (broker registration and epochs, controller election
and fencing, partition-state compare-and-set, producer id blocks, topics and configs).

Each test works under a chroot of its own on the session's server. A session is made to
expire the standard way: a second client joins it with its id and password, then closes it.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from kazoo.client import KazooClient  # type: ignore[import-untyped]

from protocol.errors import ErrorCode, KafkaError
from pybroker.modes.embedded.store import LocalZkClient
from pybroker.modes.zookeeper.change_notifications import expired_notifications
from pybroker.modes.zookeeper.config_changes import ConfigChangeWatcher
from pybroker.testing.zookeeper import ZooKeeperServer
from pybroker.zk.client import (
    BadVersionError,
    CheckOp,
    CreateOp,
    NodeExistsError,
    NoNodeError,
    SessionEvent,
    SessionState,
    SetDataOp,
    WatchEvent,
    WatchEventType,
    ZkClient,
    ZnodeStore,
)
from pybroker.zk.kafka_zk import KafkaZkClient
from pybroker.zk.kafka_zk_base import ControllerMovedError
from pybroker.zk.kafka_zk_brokers import DuplicateBrokerIdError
from pybroker.zk.kafka_zk_topics import TopicExistsError
from pybroker.zk.topic_store import ZkTopicStore
from pybroker.zk.znodes import (
    BrokerIdZNode,
    BrokerRegistration,
    ConfigEntityZNode,
    ControllerEpochZNode,
    ControllerZNode,
    EndPoint,
    LeaderIsrAndControllerEpoch,
    ProducerIdBlockZNode,
    ReplicaAssignment,
    TopicAssignment,
    TopicPartitionStateZNode,
    TopicZNode,
)

T = TypeVar("T")
DEADLINE = 60.0


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, DEADLINE))


@pytest.fixture(params=["zookeeper", "local"])
def znodes(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a one-session test's znodes are: the real ZooKeeper (a chroot of its own), or the
    embedded node's store, a file (``local:<path>``): the same assertions hold for both."""
    if request.param == "zookeeper":
        return str(request.getfixturevalue("zk_connect"))
    return f"local:{tmp_path / 'znodes.json'}"


@asynccontextmanager
async def client(connect: str) -> AsyncIterator[ZnodeStore]:
    zk: ZnodeStore
    if connect.startswith("local:"):
        zk = LocalZkClient(Path(connect.removeprefix("local:")))
    else:
        zk = ZkClient(connect, session_timeout_ms=10000, connection_timeout_ms=15000)
    await zk.start()
    try:
        yield zk
    finally:
        await zk.close()


@asynccontextmanager
async def kafka_zk(connect: str, top_level: bool = True) -> AsyncIterator[KafkaZkClient]:
    async with client(connect) as zk:
        kzk = KafkaZkClient(zk)
        if top_level:
            await kzk.create_top_level_paths()
        yield kzk


async def eventually(check: Callable[[], Awaitable[bool]], what: str,
                     timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def registration(broker_id: int, port: int = 9092, now_ms: int = 1_700_000_000_000
                 ) -> BrokerRegistration:
    return BrokerRegistration(broker_id, (EndPoint("PLAINTEXT", "127.0.0.1", port, "PLAINTEXT"),),
                              timestamp=now_ms)


def expire_session(server: ZooKeeperServer, zk: ZkClient) -> None:
    """Join ``zk``'s session from a second client and close it there (blocking: run in a
    worker thread)."""
    ident = zk.client_id
    assert ident is not None
    other = KazooClient(hosts=server.connect_string(), client_id=ident)
    other.start(timeout=15)
    other.stop()
    other.close()


# -- the client -------------------------------------------------------------------------------

def test_chroot_is_created_when_missing(zookeeper_server: ZooKeeperServer,
                                        zk_chroot: str) -> None:
    async def main() -> None:
        chroot = f"{zk_chroot}/kafka"
        async with client(zookeeper_server.connect_string(chroot)) as zk, \
                client(zookeeper_server.connect_string()) as root:
            assert await root.exists(chroot) is not None
            assert await zk.create("/a", b"x") == "/a"
            data, _ = await root.get(f"{chroot}/a")
            assert data == b"x"
            assert await zk.get_children("/") == ["a"]
        # a second start finds it and leaves it be
        async with client(zookeeper_server.connect_string(chroot)) as zk:
            assert await zk.get_children("/") == ["a"]

    run(main())


def test_watches_fire_once_on_the_event_loop(zk_connect: str) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        seen: list[tuple[str, WatchEvent, bool]] = []
        fired = asyncio.Event()

        def watcher(name: str) -> Callable[[WatchEvent], None]:
            def watch(event: WatchEvent) -> None:
                on_loop = (asyncio.get_running_loop() is loop
                           and threading.current_thread() is threading.main_thread())
                seen.append((name, event, on_loop))
                fired.set()
            return watch

        async with client(zk_connect) as zk, client(zk_connect) as other:
            await zk.create("/node", b"1")
            await zk.get("/node", watcher("data"))
            await zk.get_children("/", watcher("children"))
            assert await zk.exists("/later", watcher("exists")) is None

            await other.set("/node", b"2")
            await other.set("/node", b"3")  # the data watch is spent: no second event
            await other.create("/later", b"")
            await eventually(lambda: _true(len(seen) >= 3), "three watch events")
            await asyncio.sleep(0.3)

        assert sorted((n, e.type, e.path, ok) for n, e, ok in seen) == [
            ("children", WatchEventType.CHILD, "/", True),
            ("data", WatchEventType.CHANGED, "/node", True),
            ("exists", WatchEventType.CREATED, "/later", True),
        ]

    run(main())


async def _true(value: bool) -> bool:
    return value


def test_a_watch_fires_before_the_reply_that_sees_its_change(znodes: str) -> None:
    async def main() -> None:
        order: list[str] = []
        async with client(znodes) as zk:
            await zk.create("/n", b"0")
            for i in range(200):
                await zk.get("/n", lambda e, i=i: order.append(f"watch {i}"))
                await zk.set("/n", str(i).encode())
                order.append(f"set {i}")
        assert order == [f"{what} {i}" for i in range(200) for what in ("watch", "set")]

    run(main())


def test_multi_is_all_or_nothing(znodes: str) -> None:
    async def main() -> None:
        async with client(znodes) as zk:
            await zk.create("/a", b"0")
            results = await zk.multi([CheckOp("/a", 0), SetDataOp("/a", b"1", 0),
                                      CreateOp("/b", b"e", ephemeral=True)])
            assert results[0] is None and results[2] == "/b"
            with pytest.raises(BadVersionError) as info:
                await zk.multi([CreateOp("/c"), CheckOp("/a", 0)])
            assert info.value.op_index == 1 and info.value.path == "/a"
            assert await zk.exists("/c") is None
            with pytest.raises(NodeExistsError) as exists:
                await zk.multi([CreateOp("/b")])
            assert exists.value.op_index == 0
            with pytest.raises(NoNodeError):
                await zk.get("/missing")

    run(main())


def test_session_expiry_is_delivered_as_lost(zookeeper_server: ZooKeeperServer,
                                             zk_connect: str) -> None:
    async def main() -> None:
        events: list[SessionEvent] = []
        changed = asyncio.Event()
        watch_events: list[WatchEvent] = []
        async with client(zk_connect) as zk, client(zk_connect) as observer:
            zk.add_session_listener(lambda e: (events.append(e), changed.set()))
            first = zk.session_id
            await zk.create("/eph", b"", ephemeral=True)
            await zk.get("/eph", watch_events.append)

            await asyncio.to_thread(expire_session, zookeeper_server, zk)
            await eventually(lambda: _true(any(e.state is SessionState.LOST for e in events)),
                             "LOST")
            await zk.wait_until_connected(20)
            await eventually(lambda: _true(events[-1].state is SessionState.CONNECTED),
                             "CONNECTED again")

            lost = next(e for e in events if e.state is SessionState.LOST)
            assert lost.session_id == first
            assert events[-1].session_id == zk.session_id != first
            assert await observer.exists("/eph") is None  # the expired session's ephemeral
            # kazoo dropped the watch with the connection: it fired once, as NONE
            assert [e.type for e in watch_events] == [WatchEventType.NONE]
            assert watch_events[0].path == "/eph"

    run(main())


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_a_server_restart_keeps_the_session_and_requests_wait_for_it(
        kafka_tools_lib: Path, tmp_path: Path, how: str) -> None:
    """A server of its own, stopped (SIGTERM) or killed (SIGKILL, as the chaos runs' zk-kill
    does) and started again on the same port and data: the session survives (SUSPENDED, then
    CONNECTED with the same id), its ephemeral registration with it, and a request made
    meanwhile is answered once the server is back."""
    server = ZooKeeperServer(tmp_path / "zookeeper", lib=kafka_tools_lib).start()

    async def main() -> None:
        events: list[SessionEvent] = []
        async with kafka_zk(server.connect_string("/restart")) as kzk:
            kzk.zk.add_session_listener(events.append)
            session = kzk.zk.session_id
            epoch = await kzk.register_broker(registration(1))
            await asyncio.to_thread(server.stop if how == "stop" else server.kill)
            assert not server.is_running()
            await eventually(lambda: _true(any(e.state is SessionState.SUSPENDED
                                               for e in events)), "SUSPENDED")
            pending = asyncio.ensure_future(kzk.get_all_brokers())
            await asyncio.sleep(0.5)
            assert not pending.done()
            await asyncio.to_thread(server.start)
            assert await asyncio.wait_for(pending, 30) == {1: (registration(1), epoch)}
            await kzk.zk.wait_until_connected(30)
            assert [e.state for e in events] == [SessionState.SUSPENDED, SessionState.CONNECTED]
            assert events[-1].session_id == session == kzk.zk.session_id

    try:
        run(main())
    finally:
        server.stop()
    assert not server.is_running()


# -- brokers ----------------------------------------------------------------------------------

def test_broker_epoch_is_the_registration_czxid(znodes: str) -> None:
    async def main() -> None:
        async with kafka_zk(znodes) as kzk:
            info = registration(1)
            epoch = await kzk.register_broker(info)
            data, stat = await kzk.zk.get(BrokerIdZNode.path(1))
            assert epoch == stat.czxid
            assert stat.ephemeral_owner == kzk.zk.session_id
            assert stat.version == 1  # created empty, then filled in the same multi
            assert BrokerIdZNode.decode(1, data) == info
            assert await kzk.get_all_brokers() == {1: (info, epoch)}
            assert await kzk.get_broker(1) == (info, epoch)
            # registering again in the same session finds its own znode
            assert await kzk.register_broker(info) == epoch

    run(main())


def test_reregistration_after_session_loss_has_a_higher_epoch(
        zookeeper_server: ZooKeeperServer, zk_connect: str) -> None:
    async def main() -> None:
        async with kafka_zk(zk_connect) as kzk, kafka_zk(zk_connect, top_level=False) as watcher:
            lost = asyncio.Event()
            kzk.zk.add_session_listener(
                lambda e: lost.set() if e.state is SessionState.LOST else None)
            first = await kzk.register_broker(registration(1))
            membership: list[WatchEvent] = []
            assert set(await watcher.get_all_brokers(membership.append)) == {1}

            await asyncio.to_thread(expire_session, zookeeper_server, kzk.zk)
            await asyncio.wait_for(lost.wait(), 20)
            await kzk.zk.wait_until_connected(20)
            await eventually(lambda: _true(bool(membership)), "the broker list watch")
            assert await watcher.get_all_brokers() == {}

            second = await kzk.register_broker(registration(1))
            assert second > first
            brokers = await watcher.get_all_brokers()
            assert brokers[1][1] == second

    run(main())


def test_duplicate_broker_id_from_another_live_session_is_refused(zk_connect: str) -> None:
    async def main() -> None:
        async with kafka_zk(zk_connect) as a, kafka_zk(zk_connect, top_level=False) as b:
            epoch = await a.register_broker(registration(1, port=9092))
            with pytest.raises(DuplicateBrokerIdError):
                await b.register_broker(registration(1, port=9093))
            assert await b.get_all_brokers() == {1: (registration(1, port=9092), epoch)}
            # another id is fine
            assert await b.register_broker(registration(2, port=9093)) > epoch

    run(main())


# -- controller election and fencing ----------------------------------------------------------

def test_two_brokers_race_for_the_controller_and_one_wins(zk_connect: str) -> None:
    async def main() -> None:
        async with kafka_zk(zk_connect) as a, kafka_zk(zk_connect, top_level=False) as b:
            previous = 0
            for round_ in range(5):
                outcomes = await asyncio.gather(
                    a.register_controller_and_increment_epoch(1, now_ms=round_),
                    b.register_controller_and_increment_epoch(2, now_ms=round_),
                    return_exceptions=True)
                won = [i for i, o in enumerate(outcomes) if isinstance(o, tuple)]
                lost = [o for o in outcomes if isinstance(o, ControllerMovedError)]
                assert len(won) == 1 and len(lost) == 1, outcomes
                epoch, epoch_zk_version = outcomes[won[0]]  # type: ignore[misc]
                assert epoch == previous + 1
                assert await a.get_controller_epoch() == (epoch, epoch_zk_version)
                winner = (a, b)[won[0]]
                assert await b.get_controller_id() == won[0] + 1
                data, _ = await a.zk.get(ControllerZNode.PATH)
                assert ControllerZNode.decode(data).broker_id == won[0] + 1
                await winner.delete_controller(epoch_zk_version)  # resign
                previous = epoch

    run(main())


def test_the_controller_watch_sees_a_new_controller(zk_connect: str) -> None:
    async def main() -> None:
        async with kafka_zk(zk_connect) as a, kafka_zk(zk_connect, top_level=False) as b:
            changes: list[WatchEvent] = []
            assert await b.get_controller_id(changes.append) is None
            await a.register_controller_and_increment_epoch(1, now_ms=0)
            await eventually(lambda: _true(bool(changes)), "the /controller watch")
            assert changes[0].type is WatchEventType.CREATED
            assert await b.get_controller_id() == 1

    run(main())


def test_a_stale_controller_is_fenced_off(zk_connect: str) -> None:
    async def main() -> None:
        tp = ("t", 0)
        async with kafka_zk(zk_connect) as old, kafka_zk(zk_connect, top_level=False) as new:
            epoch1, version1 = await old.register_controller_and_increment_epoch(1, now_ms=0)
            await old.create_topic_assignment("t", uuid.uuid4(), {0: [1, 2]})
            state = LeaderIsrAndControllerEpoch(1, 0, (1, 2), epoch1)
            assert await old.create_partition_states({tp: state}, version1) == {tp: None}

            await old.delete_controller(version1)  # e.g. a long pause: another broker takes over
            epoch2, version2 = await new.register_controller_and_increment_epoch(2, now_ms=1)
            assert (epoch2, version2) == (epoch1 + 1, version1 + 1)

            moved = LeaderIsrAndControllerEpoch(2, 1, (2,), epoch1)
            with pytest.raises(ControllerMovedError):
                await old.update_partition_states({tp: (moved, 0)}, version1)
            with pytest.raises(ControllerMovedError):
                await old.create_partition_states({("t", 1): state}, version1)
            with pytest.raises(ControllerMovedError):
                await old.set_topic_assignment("t", TopicAssignment.of(None, {0: [2]}),
                                               epoch_zk_version=version1)
            with pytest.raises(ControllerMovedError):
                await old.delete_controller(version1)
            # nothing was written
            assert await new.get_partition_states([tp, ("t", 1)]) == {tp: (state, 0)}
            assert await new.get_controller_id() == 2
            # the new controller's writes go through
            result = await new.update_partition_states(
                {tp: (LeaderIsrAndControllerEpoch(2, 1, (2,), epoch2), 0)}, version2)
            assert result.succeeded == {tp: 1} and not result.to_retry

    run(main())


def test_partition_state_is_a_compare_and_set(znodes: str) -> None:
    async def main() -> None:
        tps = [("t", 0), ("t", 1)]
        async with kafka_zk(znodes) as kzk:
            epoch, version = await kzk.register_controller_and_increment_epoch(1, now_ms=0)
            await kzk.create_topic_assignment("t", uuid.uuid4(), {0: [1], 1: [1]})
            first = LeaderIsrAndControllerEpoch(1, 0, (1,), epoch)
            assert await kzk.create_partition_states(dict.fromkeys(tps, first), version) == {
                tp: None for tp in tps}
            again = await kzk.create_partition_states({tps[0]: first}, version)
            assert isinstance(again[tps[0]], NodeExistsError)
            assert await kzk.get_partition_states(tps) == {tp: (first, 0) for tp in tps}

            bumped = LeaderIsrAndControllerEpoch(1, 1, (1,), epoch)
            ok = await kzk.update_partition_states({tps[0]: (bumped, 0)}, version)
            assert ok.succeeded == {tps[0]: 1}
            # a writer that read version 0 is too late for partition 0, in time for 1
            stale = await kzk.update_partition_states(
                {tps[0]: (bumped, 0), tps[1]: (bumped, 0)}, version)
            assert stale.to_retry == (tps[0],) and stale.succeeded == {tps[1]: 1}
            with pytest.raises(BadVersionError):
                await kzk.zk.set(TopicPartitionStateZNode.path(tps[0]),
                                 TopicPartitionStateZNode.encode(first), 0)
            assert (await kzk.get_partition_states([tps[0]]))[tps[0]] == (bumped, 1)

    run(main())


# -- producer ids -----------------------------------------------------------------------------

def test_producer_id_blocks_from_two_brokers_never_overlap(zk_connect: str) -> None:
    async def main() -> None:
        async with kafka_zk(zk_connect) as a, kafka_zk(zk_connect, top_level=False) as b:
            blocks = await asyncio.gather(*(
                (a if i % 2 else b).allocate_producer_id_block(i % 2, size=100)
                for i in range(20)))
            spans = sorted((blk.first_producer_id, blk.last_producer_id) for blk in blocks)
            assert spans == [(100 * i, 100 * i + 99) for i in range(20)]
            data, _ = await a.zk.get(ProducerIdBlockZNode.PATH)
            latest = ProducerIdBlockZNode.decode(data)
            assert latest is not None and latest.last_producer_id == 1999
            assert {blk.assigned_broker_id for blk in blocks} == {0, 1}

    run(main())


def test_the_first_producer_id_block_starts_at_zero_without_top_level_paths(
        znodes: str) -> None:
    async def main() -> None:
        async with kafka_zk(znodes, top_level=False) as kzk:
            block = await kzk.allocate_producer_id_block(3)
            assert (block.assigned_broker_id, block.first_producer_id, block.size) == (3, 0, 1000)

    run(main())


# -- topics, configs, admin znodes ------------------------------------------------------------

def test_topic_creation_writes_configs_first_and_needs_a_controller(znodes: str) -> None:
    async def main() -> None:
        topic_id = uuid.uuid4()
        async with kafka_zk(znodes) as kzk:
            with pytest.raises(ControllerMovedError):
                await kzk.create_topic_assignment("t", topic_id, {0: [1]})
            assert await kzk.get_all_topics() == set()

            topics_changed: list[WatchEvent] = []
            assert await kzk.get_all_topics(topics_changed.append) == set()
            await kzk.register_controller_and_increment_epoch(1, now_ms=0)
            await kzk.create_topic_assignment("t", topic_id, {0: [1, 2], 1: [2, 1]},
                                              {"retention.ms": "1000"})
            await eventually(lambda: _true(bool(topics_changed)), "the topics watch")
            assert await kzk.get_all_topics() == {"t"}
            assert await kzk.get_entity_configs("topics", "t") == {"retention.ms": "1000"}
            _, config_stat = await kzk.zk.get(ConfigEntityZNode.path("topics", "t"))
            _, topic_stat = await kzk.zk.get(TopicZNode.path("t"))
            assert config_stat.czxid < topic_stat.czxid  # configs before the assignment
            found = await kzk.get_replica_assignment_and_topic_ids(["t", "missing"])
            assert found == {"t": (TopicAssignment.of(topic_id, {0: [1, 2], 1: [2, 1]}), 0)}
            with pytest.raises(TopicExistsError):
                await kzk.create_topic_assignment("t", uuid.uuid4(), {0: [1]})

            await kzk.create_delete_topic_path("t")
            with pytest.raises(NodeExistsError):
                await kzk.create_delete_topic_path("t")
            assert await kzk.is_topic_marked_for_deletion("t")
            assert await kzk.get_topic_deletions() == ["t"]

    run(main())


def test_topic_config_change_leaves_a_notification(znodes: str) -> None:
    async def main() -> None:
        async with kafka_zk(znodes) as kzk:
            await kzk.register_controller_and_increment_epoch(1, now_ms=0)
            await kzk.create_topic_assignment("t", uuid.uuid4(), {0: [1]})
            await kzk.set_topic_config("t", {"cleanup.policy": "compact"})
            await kzk.set_topic_config("t", {"cleanup.policy": "delete"})
            assert await kzk.get_topic_configs(["t", "u"]) == {
                "t": {"cleanup.policy": "delete"}, "u": {}}
            names = await kzk.get_config_change_notifications()
            assert len(names) == 2 and all(n.startswith("config_change_") for n in names)
            found = await kzk.get_config_change_notification(names[0])
            assert found is not None and found[0] == "topics/t"
            await kzk.delete_config_change_notifications(names)
            assert await kzk.get_config_change_notifications() == []

    run(main())


def test_controller_cleans_up_admin_znodes_under_its_epoch(znodes: str) -> None:
    async def main() -> None:
        async with kafka_zk(znodes) as kzk:
            _, version = await kzk.register_controller_and_increment_epoch(1, now_ms=0)
            await kzk.create_partition_reassignment({("t", 0): [2, 3]})
            await kzk.create_preferred_replica_election([("t", 0), ("u", 1)])
            seen: list[WatchEvent] = []
            assert await kzk.get_partition_reassignment(seen.append) == {("t", 0): (2, 3)}
            assert await kzk.get_preferred_replica_election() == {("t", 0), ("u", 1)}
            seqs = [await kzk.propagate_isr_changes([("t", 0)]),
                    await kzk.propagate_isr_changes([("t", 1), ("u", 0)])]
            pending = await kzk.get_all_isr_change_notifications()
            assert [s[-10:] for s in seqs] == pending
            assert await kzk.get_partitions_from_isr_change_notifications(pending) == [
                ("t", 0), ("t", 1), ("u", 0)]

            await kzk.delete_partition_reassignment(version)
            await kzk.delete_preferred_replica_election(version)
            await kzk.delete_isr_change_notifications(pending, version)
            await kzk.delete_topic_deletions(["never-asked"], version)  # gone already: fine
            await eventually(lambda: _true(bool(seen)), "the reassignment watch")
            assert await kzk.get_partition_reassignment() == {}
            assert await kzk.get_preferred_replica_election() == frozenset()
            assert await kzk.get_all_isr_change_notifications() == []

    run(main())


def test_cluster_id_is_created_once(zk_connect: str) -> None:
    async def main() -> None:
        async with kafka_zk(zk_connect) as a, kafka_zk(zk_connect, top_level=False) as b:
            assert await a.get_cluster_id() is None
            ids = await asyncio.gather(a.get_or_create_cluster_id(),
                                       b.get_or_create_cluster_id())
            assert ids[0] == ids[1] and len(ids[0]) == 22
            assert await b.get_or_create_cluster_id("other") == ids[0]

    run(main())


def test_topic_store_answers_as_kafkas_admin_manager(znodes: str) -> None:
    async def main() -> None:
        topic_id = uuid.uuid4()
        async with kafka_zk(znodes) as kzk:
            store = ZkTopicStore(kzk)
            with pytest.raises(KafkaError) as no_controller:
                await store.create_topic("t", topic_id, {0: [1]}, {})
            assert no_controller.value.code is ErrorCode.NOT_CONTROLLER
            await kzk.register_controller_and_increment_epoch(1, now_ms=0)
            await store.create_topic("t", topic_id, {0: [1]}, {"retention.ms": "5"})
            with pytest.raises(KafkaError) as exists:
                await store.create_topic("t", uuid.uuid4(), {0: [1]}, {})
            assert exists.value.code is ErrorCode.TOPIC_ALREADY_EXISTS
            assert await store.get_all_topics() == ["t"]

            found = await store.get_replica_assignment("t")
            assert found == (topic_id, {0: [1]}, 0)
            await store.add_partitions("t", topic_id, {0: [1], 1: [1]}, 0)
            with pytest.raises(KafkaError):  # written by someone else since version 0
                await store.add_partitions("t", topic_id, {0: [1], 1: [1], 2: [1]}, 0)
            assert await store.get_replica_assignment("t") == (topic_id, {0: [1], 1: [1]}, 1)
            assert await store.get_replica_assignment("missing") is None

            reassigning = TopicAssignment(topic_id, {0: ReplicaAssignment((1, 2), (2,))})
            await kzk.set_topic_assignment("t", reassigning)
            with pytest.raises(KafkaError) as moving:
                await store.get_replica_assignment("t")
            assert moving.value.code is ErrorCode.REASSIGNMENT_IN_PROGRESS

            with pytest.raises(KafkaError) as unknown:
                await store.request_topic_deletion("missing")
            assert unknown.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            await store.request_topic_deletion("t")
            await store.request_topic_deletion("t")  # already marked: waits with the first
            await store.set_topic_config("t", {"retention.ms": "7"})
            assert await kzk.get_entity_configs("topics", "t") == {"retention.ms": "7"}

    run(main())


def test_controller_epoch_znode_holds_plain_text(znodes: str) -> None:
    async def main() -> None:
        async with kafka_zk(znodes) as kzk:
            await kzk.register_controller_and_increment_epoch(4, now_ms=0)
            data, _ = await kzk.zk.get(ControllerEpochZNode.PATH)
            assert data == b"1"

    run(main())


def test_config_change_notifications_are_applied_then_purged_once_expired(
        znodes: str) -> None:
    """/config/changes: a watcher hands each new notification's entity to its handler, and
    deletes notifications past their expiry (15 minutes on Kafka; 1.5 s here) - including
    those written before it started."""
    async def main() -> None:
        async with kafka_zk(znodes) as kzk:
            await kzk.create_config_change_notification("topics/old")
            seen: list[tuple[str, dict[str, str]]] = []
            watcher = ConfigChangeWatcher(
                kzk, {"topics": lambda name, configs: seen.append((name, configs))},
                expiration_ms=1500)
            await watcher.start()
            try:
                await kzk.create_config_change_notification("topics/t")
                await eventually(lambda: _true([name for name, _ in seen] == ["t"]),
                                 "the change applied")
                assert len(await kzk.get_config_change_notifications()) == 2
                await asyncio.sleep(1.6)
                # the next pass (a new change) purges the two expired ones, not its own
                await kzk.create_config_change_notification("topics/u")
                await eventually(lambda: _true(len(seen) == 2), "the second change applied")
                await eventually(
                    lambda: _count(kzk, 1), "the expired notifications purged")
            finally:
                await watcher.stop()

    run(main())


async def _count(kzk: KafkaZkClient, n: int) -> bool:
    return len(await kzk.get_config_change_notifications()) == n


def test_expired_notifications_are_those_older_than_the_expiry() -> None:
    created = {"config_change_0000000001": 1_000, "config_change_0000000002": 5_000,
               "config_change_0000000003": 9_000}
    assert expired_notifications(created, now=10_000, expiration_ms=4_000) == [
        "config_change_0000000001", "config_change_0000000002"]
    assert expired_notifications(created, now=10_000) == []  # 15 minutes by default
