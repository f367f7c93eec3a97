"""A ZooKeeper of one: the znode tree of a one-broker cluster, kept in a file.

The embedded single node runs the same control plane as a ZooKeeper-mode cluster - the same
:class:`~pybroker.zk.kafka_zk.KafkaZkClient` over the same znode layout, the same controller,
admin manager and change notifications - with this in place of a ZooKeeper ensemble, as Kafka's
combined KRaft mode runs its one metadata path over a local log.

:class:`LocalZkClient` is a :class:`~pybroker.zk.client.ZnodeStore`, as
:class:`~pybroker.zk.client.ZkClient` is, with ZooKeeper's
semantics for one client: versions and conditional writes, atomic multi-operations, sequential
and ephemeral znodes, one-shot data and child watches, zxids that only grow (a broker's epoch is
the czxid of its registration). Its one session never expires; ephemeral znodes live as long as
the process.

Persistent znodes are written to ``path`` (a temporary file, fsync, rename, fsync of the
directory) by group commit: the writes made in one turn of the event loop are saved together, on
a worker thread, and each returns once the file holding it is durable. A write that cannot be
saved raises :class:`~pybroker.zk.client.ZkError` and is reported to ``on_write_error``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pybroker.metadata.meta_properties import write_atomically
from pybroker.zk.client import (
    ANY_VERSION,
    BadVersionError,
    CheckOp,
    CreateOp,
    DeleteOp,
    NodeExistsError,
    NoNodeError,
    NotEmptyError,
    Op,
    OpResult,
    SessionListener,
    SetDataOp,
    Watch,
    WatchEvent,
    WatchEventType,
    ZkError,
    ZnodeStat,
)

log = logging.getLogger(__name__)

#: the file's format (its ``format`` field)
FORMAT = "znodes-1"


@dataclass(slots=True)
class _Znode:
    data: bytes
    czxid: int
    mzxid: int
    pzxid: int
    ctime: int
    mtime: int
    version: int = 0
    cversion: int = 0
    ephemeral_owner: int = 0
    children: set[str] = field(default_factory=set)

    def stat(self) -> ZnodeStat:
        return ZnodeStat(self.czxid, self.mzxid, self.pzxid, self.ctime, self.mtime,
                         self.version, self.cversion, 0, self.ephemeral_owner, len(self.data),
                         len(self.children))

    def to_json(self) -> list[Any]:
        return [base64.b64encode(self.data).decode(), self.czxid, self.mzxid, self.pzxid,
                self.ctime, self.mtime, self.version, self.cversion]

    @classmethod
    def from_json(cls, v: list[Any]) -> _Znode:
        return cls(base64.b64decode(v[0]), *v[1:8])


def _parent(path: str) -> str:
    parent = path.rsplit("/", 1)[0]
    return parent or "/"


def _name(path: str) -> str:
    return path.rsplit("/", 1)[1]


def _check_path(path: str) -> None:
    if not path.startswith("/") or (path != "/" and path.endswith("/")) or "//" in path:
        raise ZkError(f"invalid path {path!r}", path)


class LocalZkClient:
    """One client's ZooKeeper, in memory, its persistent znodes saved in ``path``."""

    def __init__(self, path: Path, *, session_id: int | None = None,
                 on_write_error: Callable[[OSError], None] | None = None) -> None:
        self.path = path
        self.connect = f"local:{path}"
        self.on_write_error = on_write_error
        self._session_id = session_id if session_id is not None else time.time_ns() & (2**62 - 1)
        self._nodes: dict[str, _Znode] = {}
        self._zxid = 0
        self._data_watches: dict[str, list[Watch]] = {}
        self._child_watches: dict[str, list[Watch]] = {}
        self._listeners: list[SessionListener] = []
        self._started = False
        self._closed = False
        # group commit: the future of the next save, and whether one is being written
        self._pending: asyncio.Future[None] | None = None
        self._saving = False
        self._save_task: asyncio.Task[None] | None = None
        self._writing: asyncio.Future[None] | None = None

    # -- life cycle ---------------------------------------------------------------------------
    async def start(self, timeout: float | None = None) -> None:
        """Read the saved znodes (none: an empty tree with ``/``)."""
        if self._started:
            return
        nodes, zxid = await asyncio.to_thread(self._read)
        self._nodes, self._zxid = nodes, zxid
        self._started = True

    def _read(self) -> tuple[dict[str, _Znode], int]:
        now = int(time.time() * 1000)
        nodes = {"/": _Znode(b"", 0, 0, 0, now, now)}
        if not self.path.exists():
            return nodes, 0
        doc = json.loads(self.path.read_bytes())
        if doc.get("format") != FORMAT:
            raise ZkError(f"{self.path}: unknown format {doc.get('format')!r}")
        for path, value in doc["znodes"].items():
            nodes[path] = _Znode.from_json(value)
        for path in sorted(nodes, key=len):
            if path != "/":
                nodes[_parent(path)].children.add(_name(path))
        return nodes, int(doc["zxid"])

    async def close(self) -> None:
        """Save what is pending, then drop the session's ephemeral znodes."""
        if self._closed:
            return
        if self._writing is not None:  # an ephemeral write's save (its error was reported)
            with contextlib.suppress(ZkError):
                await asyncio.shield(self._writing)
        if self._pending is not None:
            await asyncio.shield(self._pending)
        self._closed = True
        for path in sorted((p for p, n in self._nodes.items() if n.ephemeral_owner),
                           key=len, reverse=True):
            self._remove(path)

    def close_now(self, timeout: float) -> None:
        """End the session at once (a halting broker): nothing is left to tell anyone."""
        self._closed = True

    async def __aenter__(self) -> LocalZkClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        return self._started and not self._closed

    @property
    def session_id(self) -> int | None:
        return self._session_id if self.connected else None

    @property
    def client_id(self) -> tuple[int, bytes] | None:
        return (self._session_id, b"") if self.connected else None

    async def wait_until_connected(self, timeout: float | None = None) -> None:
        if not self.connected:
            raise ZkError("the local store is not started")

    def add_session_listener(self, listener: SessionListener) -> None:
        """Kept for the interface: this session never changes state."""
        self._listeners.append(listener)

    def remove_session_listener(self, listener: SessionListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    # -- reads --------------------------------------------------------------------------------
    def _node(self, path: str) -> _Znode:
        self._check_open()
        _check_path(path)
        node = self._nodes.get(path)
        if node is None:
            raise NoNodeError(f"NoNodeError for {path}", path)
        return node

    def _check_open(self) -> None:
        if not self.connected:
            raise ZkError("the local store is not started, or closed")

    async def get(self, path: str, watch: Watch | None = None) -> tuple[bytes, ZnodeStat]:
        node = self._node(path)
        if watch is not None:
            self._data_watches.setdefault(path, []).append(watch)
        return node.data, node.stat()

    async def get_children(self, path: str, watch: Watch | None = None) -> list[str]:
        node = self._node(path)
        if watch is not None:
            self._child_watches.setdefault(path, []).append(watch)
        return sorted(node.children)

    async def exists(self, path: str, watch: Watch | None = None) -> ZnodeStat | None:
        self._check_open()
        _check_path(path)
        if watch is not None:
            self._data_watches.setdefault(path, []).append(watch)
        node = self._nodes.get(path)
        return node.stat() if node is not None else None

    # -- writes -------------------------------------------------------------------------------
    async def create(self, path: str, data: bytes = b"", *, ephemeral: bool = False,
                     sequence: bool = False, makepath: bool = False) -> str:
        self._check_open()
        _check_path(path)
        if makepath:
            missing = []
            parent = _parent(path)
            while parent not in self._nodes:
                missing.append(parent)
                parent = _parent(parent)
            for p in reversed(missing):
                self._apply(CreateOp(p))
        created = self._apply(CreateOp(path, data, ephemeral, sequence))
        await self._saved(persistent=not ephemeral)
        assert isinstance(created, str)
        return created

    async def set(self, path: str, data: bytes, version: int = ANY_VERSION) -> ZnodeStat:
        self._check_open()
        persistent = not self._node(path).ephemeral_owner
        stat = self._apply(SetDataOp(path, data, version))
        await self._saved(persistent)
        assert isinstance(stat, ZnodeStat)
        return stat

    async def delete(self, path: str, version: int = ANY_VERSION,
                     recursive: bool = False) -> None:
        self._check_open()
        if recursive:
            node = self._node(path)
            for child in sorted(node.children):
                await self.delete(f"{path.rstrip('/')}/{child}", recursive=True)
        persistent = not self._node(path).ephemeral_owner
        self._apply(DeleteOp(path, version))
        await self._saved(persistent)

    async def multi(self, ops: Sequence[Op]) -> list[OpResult]:
        """All of ``ops`` or none: each is checked against the tree as the ones before it left
        it, then applied; a failure raises the failing operation's error with its
        ``op_index``."""
        self._check_open()
        self._check_ops(ops)
        writes = [op for op in ops if not isinstance(op, CheckOp)]
        persistent = any(not (isinstance(op, CreateOp) and op.ephemeral)
                         and not self._is_ephemeral(op.path) for op in writes)
        results = [self._apply(op) for op in ops]
        if writes:
            await self._saved(persistent)
        return results

    def _check_ops(self, ops: Sequence[Op]) -> None:
        """Raise what the first operation that would fail raises, changing nothing."""
        exists: dict[str, bool] = {}
        versions: dict[str, int] = {}
        children: dict[str, int] = {}

        def present(path: str) -> bool:
            return exists.get(path, path in self._nodes)

        def version(path: str) -> int:
            return versions.get(path, self._nodes[path].version if path in self._nodes else -1)

        for index, op in enumerate(ops):
            try:
                _check_path(op.path)
                if isinstance(op, CreateOp):
                    parent = _parent(op.path)
                    if not present(parent):
                        raise NoNodeError(f"NoNodeError for {op.path}", op.path)
                    if parent in self._nodes and self._nodes[parent].ephemeral_owner:
                        raise ZkError(f"NoChildrenForEphemerals for {op.path}", op.path)
                    if not op.sequence:
                        if present(op.path):
                            raise NodeExistsError(f"NodeExistsError for {op.path}", op.path)
                        exists[op.path] = True
                        versions[op.path] = 0
                    children[parent] = children.get(parent, 0) + 1
                else:
                    if not present(op.path):
                        raise NoNodeError(f"NoNodeError for {op.path}", op.path)
                    if op.version != ANY_VERSION and version(op.path) != op.version:
                        raise BadVersionError(f"BadVersionError for {op.path}", op.path)
                    if isinstance(op, SetDataOp):
                        versions[op.path] = version(op.path) + 1
                    elif isinstance(op, DeleteOp):
                        node = self._nodes.get(op.path)
                        if (node is not None and node.children) or children.get(op.path, 0):
                            raise NotEmptyError(f"NotEmptyError for {op.path}", op.path)
                        exists[op.path] = False
            except ZkError as err:
                err.op_index = index
                raise

    def _apply(self, op: Op) -> OpResult:
        """One checked operation, on the tree; its watches fire after this turn's others."""
        self._check_ops([op])
        if isinstance(op, CheckOp):
            return None
        self._zxid += 1
        zxid, now = self._zxid, int(time.time() * 1000)
        if isinstance(op, CreateOp):
            parent_path = _parent(op.path)
            parent = self._nodes[parent_path]
            path = op.path
            if op.sequence:
                path = f"{op.path}{parent.cversion:010d}"
                if path in self._nodes:
                    raise NodeExistsError(f"NodeExistsError for {path}", path)
            self._nodes[path] = _Znode(op.data, zxid, zxid, zxid, now, now,
                                       ephemeral_owner=self._session_id if op.ephemeral else 0)
            parent.children.add(_name(path))
            parent.cversion += 1
            parent.pzxid = zxid
            self._fire(self._data_watches, path, WatchEventType.CREATED)
            self._fire(self._child_watches, parent_path, WatchEventType.CHILD)
            return path
        if isinstance(op, SetDataOp):
            node = self._nodes[op.path]
            node.data, node.mzxid, node.mtime = op.data, zxid, now
            node.version += 1
            self._fire(self._data_watches, op.path, WatchEventType.CHANGED)
            return node.stat()
        self._remove(op.path, zxid)
        return None

    def _remove(self, path: str, zxid: int | None = None) -> None:
        del self._nodes[path]
        parent_path = _parent(path)
        parent = self._nodes[parent_path]
        parent.children.discard(_name(path))
        parent.cversion += 1
        parent.pzxid = zxid if zxid is not None else self._zxid
        self._fire(self._data_watches, path, WatchEventType.DELETED)
        self._fire(self._child_watches, path, WatchEventType.DELETED)
        self._fire(self._child_watches, parent_path, WatchEventType.CHILD)

    def _fire(self, watches: dict[str, list[Watch]], path: str, kind: WatchEventType) -> None:
        fired = watches.pop(path, None)
        if not fired:
            return
        loop = asyncio.get_running_loop()
        event = WatchEvent(kind, path)
        for watch in fired:
            loop.call_soon(watch, event)

    # -- durability ---------------------------------------------------------------------------
    def _is_ephemeral(self, path: str) -> bool:
        node = self._nodes.get(path)
        return node is not None and bool(node.ephemeral_owner)

    @staticmethod
    async def _settle() -> None:
        """Let the watches a write fired run before its caller goes on, as ZooKeeper delivers
        a watch event before the reply that follows the change."""
        await asyncio.sleep(0)

    async def _saved(self, persistent: bool) -> None:
        """A persistent write returns once the tree as it is now is saved (with this turn's
        other writes). An ephemeral one is saved too, for its zxid - the next session's
        zxids then stay above it, so that a broker registering again gets a higher broker
        epoch - but without waiting for the file (and a failure is only reported); it returns
        once the watches it fired have run."""
        pending = self._schedule_save()
        if persistent:
            await asyncio.shield(pending)
        else:
            await self._settle()

    def _schedule_save(self) -> asyncio.Future[None]:
        if self._pending is None:
            pending = self._pending = asyncio.get_running_loop().create_future()
            # an ephemeral write leaves its error to on_write_error; a waiting write gets it
            pending.add_done_callback(lambda f: f.cancelled() or f.exception())
            if not self._saving:
                asyncio.get_running_loop().call_soon(self._save)
        return self._pending

    def _snapshot(self) -> bytes:
        znodes = {p: n.to_json() for p, n in self._nodes.items()
                  if p != "/" and not n.ephemeral_owner}
        return json.dumps({"format": FORMAT, "zxid": self._zxid, "znodes": znodes},
                          separators=(",", ":"), sort_keys=True).encode()

    def _save(self) -> None:
        done, self._pending = self._pending, None
        if done is None:
            return
        self._saving = True
        self._writing = done
        data = self._snapshot()

        async def write() -> None:
            try:
                await asyncio.to_thread(write_atomically, self.path, data)
            except OSError as e:
                log.error("Could not save the cluster metadata to %s: %s", self.path, e)
                if self.on_write_error is not None:
                    self.on_write_error(e)
                done.set_exception(ZkError(f"cannot save {self.path}: {e}"))
            else:
                done.set_result(None)
            finally:
                self._saving = False
                if self._pending is not None:
                    self._save()

        # the loop keeps only a weak reference to a task: this one is held until it is done
        self._save_task = asyncio.get_running_loop().create_task(write(), name="local-zk-save")

    def __repr__(self) -> str:
        return f"LocalZkClient({self.path})"
