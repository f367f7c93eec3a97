"""The embedded node's ZooKeeper of one (:class:`pybroker.modes.embedded.store.LocalZkClient`):
ZooKeeper's semantics for one client - versions and conditional writes and their errors,
sequential and ephemeral znodes, ``makepath``, multi-operations all or nothing, one-shot
watches fired on the loop after the write - and its file: persistent znodes only, zxids that
keep growing across a reopen, the writes of one loop turn saved in one file write, and a save
that fails raising ZkError and reporting the OSError."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

import pybroker.modes.embedded.store as store_module
from pybroker.modes.embedded.store import LocalZkClient
from pybroker.zk.client import (
    BadVersionError,
    CheckOp,
    CreateOp,
    DeleteOp,
    NodeExistsError,
    NoNodeError,
    NotEmptyError,
    SetDataOp,
    WatchEvent,
    WatchEventType,
    ZkError,
)

T = TypeVar("T")


def run(scenario: Callable[[LocalZkClient], Awaitable[T]], path: Path, **kwargs: Any) -> T:
    """``scenario(store)`` on a fresh loop, the store started and closed around it."""
    async def main() -> T:
        async with LocalZkClient(path, **kwargs) as store:
            return await scenario(store)

    return asyncio.run(main())


class Events:
    """A watch that records what it is told."""

    def __init__(self) -> None:
        self.seen: list[tuple[WatchEventType, str]] = []

    def __call__(self, event: WatchEvent) -> None:
        self.seen.append((event.type, event.path))


# -- reads and writes ------------------------------------------------------------------------


def test_create_get_set_and_delete_with_versions(tmp_path: Path) -> None:
    async def scenario(zk: LocalZkClient) -> None:
        assert await zk.create("/a", b"one") == "/a"
        data, stat = await zk.get("/a")
        assert (data, stat.version, stat.data_length, stat.num_children) == (b"one", 0, 3, 0)
        assert (await zk.set("/a", b"two", version=0)).version == 1
        with pytest.raises(BadVersionError):
            await zk.set("/a", b"three", version=0)
        assert (await zk.get("/a"))[0] == b"two"
        assert (await zk.set("/a", b"any")).version == 2  # no version: any
        with pytest.raises(NodeExistsError):
            await zk.create("/a")
        with pytest.raises(NoNodeError):
            await zk.create("/missing/child")
        await zk.create("/a/c1")
        await zk.create("/a/b0")
        assert await zk.get_children("/a") == ["b0", "c1"]
        assert (await zk.exists("/a")).num_children == 2  # type: ignore[union-attr]
        with pytest.raises(NotEmptyError):
            await zk.delete("/a")
        with pytest.raises(BadVersionError):
            await zk.delete("/a/c1", version=3)
        await zk.delete("/a/c1", version=0)
        await zk.delete("/a", recursive=True)
        assert await zk.exists("/a") is None
        with pytest.raises(NoNodeError):
            await zk.get("/a")
        with pytest.raises(NoNodeError):
            await zk.set("/a", b"")
        with pytest.raises(NoNodeError):
            await zk.delete("/a")
        for bad in ("a", "/a/", "/a//b"):
            with pytest.raises(ZkError, match="invalid path"):
                await zk.create(bad)

    run(scenario, tmp_path / "znodes.json")


def test_a_closed_or_unstarted_store_refuses(tmp_path: Path) -> None:
    async def main() -> None:
        zk = LocalZkClient(tmp_path / "znodes.json")
        assert not zk.connected and zk.session_id is None
        with pytest.raises(ZkError):
            await zk.get("/")
        with pytest.raises(ZkError):
            await zk.wait_until_connected()
        await zk.start()
        assert zk.connected and zk.session_id is not None
        await zk.wait_until_connected()
        await zk.close()
        assert zk.closed and not zk.connected
        with pytest.raises(ZkError):
            await zk.create("/x")

    asyncio.run(main())


def test_sequential_and_ephemeral_znodes(tmp_path: Path) -> None:
    async def scenario(zk: LocalZkClient) -> None:
        await zk.create("/q")
        first = await zk.create("/q/item-", sequence=True)
        second = await zk.create("/q/item-", b"x", sequence=True)
        assert (first, second) == ("/q/item-0000000000", "/q/item-0000000001")
        # the parent's child version counts on: a deleted child's number is not reused
        await zk.delete(second)
        assert await zk.create("/q/item-", sequence=True) == "/q/item-0000000003"
        path = await zk.create("/q/owner", b"me", ephemeral=True)
        stat = await zk.exists(path)
        assert stat is not None and stat.ephemeral_owner == zk.session_id
        assert (await zk.exists("/q")).ephemeral_owner == 0  # type: ignore[union-attr]
        # an ephemeral znode has no children, as in ZooKeeper
        with pytest.raises(ZkError, match="NoChildrenForEphemerals"):
            await zk.create("/q/owner/child")
        eph_seq = await zk.create("/q/lock-", ephemeral=True, sequence=True)
        assert eph_seq.startswith("/q/lock-") and len(eph_seq) == len("/q/lock-") + 10

    run(scenario, tmp_path / "znodes.json")


def test_makepath_creates_the_missing_parents(tmp_path: Path) -> None:
    async def scenario(zk: LocalZkClient) -> None:
        assert await zk.create("/a/b/c", b"leaf", makepath=True) == "/a/b/c"
        assert await zk.get_children("/") == ["a"]
        assert await zk.get_children("/a") == ["b"]
        assert (await zk.get("/a/b"))[0] == b""
        assert (await zk.get("/a/b/c"))[0] == b"leaf"
        # an existing path is no different without makepath
        with pytest.raises(NodeExistsError):
            await zk.create("/a/b/c", makepath=True)

    run(scenario, tmp_path / "znodes.json")


def test_multi_is_all_or_nothing_and_names_the_failing_op(tmp_path: Path) -> None:
    async def scenario(zk: LocalZkClient) -> None:
        await zk.create("/m", b"0")
        with pytest.raises(BadVersionError) as failed:
            await zk.multi([CreateOp("/m/new"), SetDataOp("/m", b"1", 0),
                            SetDataOp("/m", b"2", 0)])
        assert failed.value.op_index == 2  # the first set made the version 1
        assert await zk.exists("/m/new") is None
        assert (await zk.get("/m")) [0] == b"0"
        with pytest.raises(NoNodeError) as missing:
            await zk.multi([CheckOp("/m", 0), DeleteOp("/gone")])
        assert missing.value.op_index == 1
        with pytest.raises(NotEmptyError) as not_empty:
            # a child created earlier in the same multi keeps its parent
            await zk.multi([CreateOp("/m/child"), DeleteOp("/m")])
        assert not_empty.value.op_index == 1
        assert await zk.get_children("/m") == []
        with pytest.raises(NodeExistsError) as exists:
            await zk.multi([CreateOp("/m/x"), CreateOp("/m/x")])
        assert exists.value.op_index == 1
        # each op sees what the ones before it left
        results = await zk.multi([CreateOp("/m/p"), CreateOp("/m/p/c", b"c"),
                                  SetDataOp("/m", b"3", 0), CheckOp("/m", 1),
                                  DeleteOp("/m/p/c")])
        assert results[0] == "/m/p" and results[1] == "/m/p/c"
        assert results[2].version == 1  # type: ignore[union-attr]
        assert results[3:] == [None, None]
        assert await zk.get_children("/m/p") == []

    run(scenario, tmp_path / "znodes.json")


# -- watches ---------------------------------------------------------------------------------


def test_watches_fire_once_on_the_loop_after_the_write(tmp_path: Path) -> None:
    async def scenario(zk: LocalZkClient) -> None:
        await zk.create("/w", b"0")
        data = Events()
        await zk.get("/w", watch=data)
        # what a watch reads when it fires: the write is in place
        read: list[bytes] = []

        def reading(event: WatchEvent) -> None:
            data(event)
            asyncio.get_running_loop().create_task(record())

        async def record() -> None:
            read.append((await zk.get("/w"))[0])

        await zk.get("/w", watch=reading)
        await zk.set("/w", b"1")
        await asyncio.sleep(0.01)
        assert data.seen == [(WatchEventType.CHANGED, "/w")] * 2
        assert read == [b"1"]
        await zk.set("/w", b"2")
        await asyncio.sleep(0.01)
        assert len(data.seen) == 2  # one-shot: not again until set again

        # a watch runs on the loop, not inside the write, and before the write returns (as
        # ZooKeeper delivers a watch event before the reply that follows the change): an
        # ephemeral write, which waits for no file, too
        children = Events()
        assert await zk.get_children("/w", watch=children) == []
        applied = asyncio.ensure_future(zk.multi([CreateOp("/w/e", ephemeral=True),
                                                  CreateOp("/w/f", ephemeral=True)]))
        await asyncio.sleep(0)  # the multi has applied its ops: the watch is only queued
        assert await zk.get_children("/w") == ["e", "f"]
        assert children.seen == [] and not applied.done()
        await applied
        assert children.seen == [(WatchEventType.CHILD, "/w")]  # once for both children
        await zk.create("/w/g", ephemeral=True)
        await asyncio.sleep(0)
        assert children.seen == [(WatchEventType.CHILD, "/w")]

        # exists watches a znode that is not there yet; a data watch sees its deletion
        appears = Events()
        assert await zk.exists("/later", watch=appears) is None
        await zk.create("/later")
        await asyncio.sleep(0)
        assert appears.seen == [(WatchEventType.CREATED, "/later")]
        gone = Events()
        await zk.get("/later", watch=gone)
        await zk.delete("/later")
        await asyncio.sleep(0)
        assert gone.seen == [(WatchEventType.DELETED, "/later")]

    run(scenario, tmp_path / "znodes.json")


def test_a_failed_write_fires_no_watch(tmp_path: Path) -> None:
    async def scenario(zk: LocalZkClient) -> None:
        await zk.create("/w")
        data, children = Events(), Events()
        await zk.get("/w", watch=data)
        await zk.get_children("/w", watch=children)
        with pytest.raises(BadVersionError):
            await zk.multi([CreateOp("/w/c"), SetDataOp("/w", b"x", 7)])
        await asyncio.sleep(0.01)
        assert data.seen == [] and children.seen == []

    run(scenario, tmp_path / "znodes.json")


# -- the file --------------------------------------------------------------------------------


def test_only_persistent_znodes_survive_a_reopen_and_zxids_keep_growing(tmp_path: Path) -> None:
    path = tmp_path / "znodes.json"

    async def first(zk: LocalZkClient) -> tuple[int, int]:
        await zk.create("/p", b"kept", makepath=True)
        await zk.set("/p", b"kept again")
        await zk.create("/e", b"gone", ephemeral=True)
        registration = await zk.exists("/e")
        assert registration is not None
        return (await zk.exists("/p")).mzxid, registration.czxid  # type: ignore[union-attr]

    kept_mzxid, old_czxid = run(first, path)
    assert path.exists()

    async def second(zk: LocalZkClient) -> None:
        data, stat = await zk.get("/p")
        assert (data, stat.version, stat.mzxid) == (b"kept again", 1, kept_mzxid)
        assert await zk.exists("/e") is None
        assert await zk.get_children("/") == ["p"]
        # a broker registering again gets a higher czxid (its broker epoch)
        await zk.create("/e", b"again", ephemeral=True)
        again = await zk.exists("/e")
        assert again is not None and again.czxid > old_czxid > kept_mzxid - 1

    run(second, path)


def test_a_file_of_another_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "znodes.json"
    path.write_text('{"format": "znodes-9", "zxid": 0, "znodes": {}}')
    with pytest.raises(ZkError, match="unknown format"):
        run(lambda zk: asyncio.sleep(0), path)


def test_the_writes_of_one_loop_turn_are_saved_in_one_file_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved: list[bytes] = []
    real = store_module.write_atomically

    def counting(target: Path, data: bytes) -> None:
        saved.append(data)
        real(target, data)

    monkeypatch.setattr(store_module, "write_atomically", counting)
    path = tmp_path / "znodes.json"

    async def scenario(zk: LocalZkClient) -> None:
        await zk.create("/g")
        assert len(saved) == 1
        # twenty writes started in one turn: each returns once the one save holding it is
        # durable
        await asyncio.gather(*(zk.create(f"/g/n{i}") for i in range(20)))
        assert len(saved) == 2
        await asyncio.gather(zk.set("/g", b"x"), zk.delete("/g/n0"),
                             zk.multi([CreateOp("/g/m"), DeleteOp("/g/n1")]))
        assert len(saved) == 3
        # an ephemeral write is saved for its zxid, without its znode (and returns without
        # waiting for the file)
        await zk.create("/g/e", ephemeral=True)
        await asyncio.sleep(0.05)
        assert len(saved) == 4
        assert b'"/g/e"' not in saved[-1] and b'"/g/m"' in saved[-1]

    run(scenario, path)
    assert len(saved) == 4
    reopened = run(lambda zk: zk.get_children("/g"), path)
    assert reopened == sorted(["m", *(f"n{i}" for i in range(2, 20))])


def test_a_failed_save_raises_and_reports_the_error(tmp_path: Path) -> None:
    directory = tmp_path / "metadata"
    directory.mkdir()
    errors: list[OSError] = []

    async def scenario(zk: LocalZkClient) -> None:
        await zk.create("/saved")
        shutil.rmtree(directory)  # the log dir is gone: a real OSError on the next save
        with pytest.raises(ZkError, match="cannot save"):
            await zk.create("/lost")
        assert len(errors) == 1 and isinstance(errors[0], FileNotFoundError)
        # the next write tries again, and fails again
        with pytest.raises(ZkError):
            await zk.set("/saved", b"x")
        assert len(errors) == 2

    run(scenario, directory / "znodes.json", on_write_error=errors.append)
