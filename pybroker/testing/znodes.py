"""The embedded node's stored znodes, read and written while it is stopped: what a test
checks it kept, and how a test leaves behind what an older release or another tool would
have written. Through :class:`~pybroker.modes.embedded.store.LocalZkClient`, the store the
node itself uses."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pybroker.modes.embedded.broker import ZNODES_FILE
from pybroker.modes.embedded.store import LocalZkClient


def _store(log_dir: Path) -> LocalZkClient:
    return LocalZkClient(log_dir / ZNODES_FILE)


def stored_znodes(log_dir: Path, *roots: str) -> dict[str, bytes]:
    """The data of every znode with data under ``roots`` (the node in ``log_dir`` stopped)."""
    async def read() -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        async with _store(log_dir) as zk:
            async def walk(path: str) -> None:
                if await zk.exists(path) is None:
                    return
                data, _ = await zk.get(path)
                if data:
                    out[path] = data
                for child in await zk.get_children(path):
                    await walk(f"{path.rstrip('/')}/{child}")
            for root in roots:
                await walk(root)
        return out
    return asyncio.run(read())


def set_stored_znode(log_dir: Path, path: str, data: bytes) -> None:
    """Write ``path`` (and its missing parents) in the stored tree of the stopped node."""
    async def write() -> None:
        async with _store(log_dir) as zk:
            if await zk.exists(path) is None:
                await zk.create(path, data, makepath=True)
            else:
                await zk.set(path, data)
    asyncio.run(write())
