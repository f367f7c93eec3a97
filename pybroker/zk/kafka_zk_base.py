"""What every ZooKeeper operation of :class:`~pybroker.zk.kafka_zk.KafkaZkClient` is built on:
requests sent again after CONNECTIONLOSS (Kafka's ``retryRequestsUntilConnected``), writes
fenced by the controller epoch's znode version, recursive creates and deletes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from pybroker.zk.client import (
    ANY_VERSION,
    BadVersionError,
    CheckOp,
    ConnectionLossError,
    DeleteOp,
    NodeExistsError,
    NoNodeError,
    Op,
    OpResult,
    Watch,
    ZkError,
    ZnodeStat,
    ZnodeStore,
)
from pybroker.zk.znodes import (
    ControllerEpochZNode,
)

T = TypeVar("T")


class ControllerMovedError(Exception):
    """Another broker is (or became) the controller: the write was fenced off, or the election
    was lost (Kafka's ControllerMovedException)."""


class KafkaZkBase:
    """The plumbing under every part of Kafka's ZooKeeper operations. Every method is a
    coroutine run on the client's loop."""

    def __init__(self, zk: ZnodeStore) -> None:
        self.zk = zk
        self._registered_session: int | None = None  # Kafka's currentZooKeeperSessionId

    # -- plumbing -----------------------------------------------------------------------------

    async def _call(self, request: Callable[[], Awaitable[T]]) -> T:
        """``request()``, sent again after each CONNECTIONLOSS once the client is connected."""
        while True:
            try:
                return await request()
            except ConnectionLossError:
                await self.zk.wait_until_connected()

    async def _get(self, path: str, watch: Watch | None = None) -> tuple[bytes, ZnodeStat] | None:
        try:
            return await self._call(lambda: self.zk.get(path, watch))
        except NoNodeError:
            return None

    async def _children(self, path: str, watch: Watch | None = None) -> list[str]:
        try:
            return await self._call(lambda: self.zk.get_children(path, watch))
        except NoNodeError:
            return []

    async def _write(self, op: Op, epoch_zk_version: int) -> OpResult:
        """``op``, fenced by the controller epoch's version unless that is -1."""
        if epoch_zk_version == ANY_VERSION:
            ops: list[Op] = [op]
        elif epoch_zk_version >= 0:
            ops = [CheckOp(ControllerEpochZNode.PATH, epoch_zk_version), op]
        else:
            raise ValueError(f"expected controller epoch zkVersion {epoch_zk_version} should be "
                             "non-negative or -1")
        try:
            results = await self._call(lambda: self.zk.multi(ops))
        except ZkError as e:
            if len(ops) == 2 and e.op_index == 0:
                if isinstance(e, BadVersionError):
                    raise ControllerMovedError(
                        "Controller epoch zkVersion check fails. Expected zkVersion = "
                        f"{epoch_zk_version}") from e
            raise
        return results[-1]

    async def _writes(self, ops: Mapping[T, Op], epoch_zk_version: int
                      ) -> dict[T, OpResult | ZkError]:
        """Many fenced writes at once: each key's result or error; ControllerMovedError if
        any was fenced off."""
        keys = list(ops)
        outcomes = await asyncio.gather(*(self._write(ops[k], epoch_zk_version) for k in keys),
                                        return_exceptions=True)
        out: dict[T, OpResult | ZkError] = {}
        for key, outcome in zip(keys, outcomes, strict=True):
            if isinstance(outcome, ControllerMovedError):
                raise outcome
            if isinstance(outcome, BaseException) and not isinstance(outcome, ZkError):
                raise outcome
            out[key] = outcome
        return out

    async def _create_recursive(self, path: str, data: bytes = b"",
                                throw_if_path_exists: bool = True) -> None:
        """Create ``path`` and its missing parents (Kafka's ``createRecursive``)."""
        try:
            await self._call(lambda: self.zk.create(path, data, makepath=True))
        except NodeExistsError:
            if throw_if_path_exists:
                raise

    async def make_sure_persistent_path_exists(self, path: str) -> None:
        await self._create_recursive(path, throw_if_path_exists=False)

    async def _delete_recursive(self, path: str, epoch_zk_version: int = ANY_VERSION) -> bool:
        """Delete ``path`` and everything under it, each delete fenced; False if it was not
        there."""
        try:
            children = await self._call(lambda: self.zk.get_children(path))
        except NoNodeError:
            return False
        for child in children:
            await self._delete_recursive(f"{path}/{child}", epoch_zk_version)
        try:
            await self._write(DeleteOp(path), epoch_zk_version)
        except NoNodeError:
            pass
        return True

    async def path_exists(self, path: str) -> bool:
        return await self._call(lambda: self.zk.exists(path)) is not None

    async def _read_watched(self, path: str, watch: Watch | None) -> bytes | None:
        """The data at ``path`` or None, with an existence watch (set either way)."""
        if watch is not None and await self._call(lambda: self.zk.exists(path, watch)) is None:
            return None
        found = await self._get(path)
        return found[0] if found is not None else None


def _raise_unexpected(results: Mapping[str, OpResult | ZkError],
                      expected: type[ZkError]) -> None:
    """Raise the first error that is not ``expected`` (a znode already gone, say)."""
    for r in results.values():
        if isinstance(r, ZkError) and not isinstance(r, expected):
            raise r
