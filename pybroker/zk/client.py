"""An asyncio front for ZooKeeper, over kazoo.

kazoo (a long-maintained pure-Python ZooKeeper client) speaks the protocol, keeps the session
alive, reconnects, and opens a new session when one expires. It runs its own threads: every
request here goes through kazoo's ``*_async`` methods, whose results come back on a kazoo
thread and are handed to the event loop with ``loop.call_soon_threadsafe``. The event loop never
waits on ZooKeeper; only ``close()`` waits for kazoo's threads to stop, in a worker thread.

Everything a caller sees happens on the event loop:

* results of requests (``get``, ``create``, ``multi``...), as awaitables;
* watches: one-shot callbacks, called with a :class:`WatchEvent`;
* session changes: :class:`SessionEvent` to every listener added with
  :meth:`ZkClient.add_session_listener` - CONNECTED (with the session id, new after an
  expiry), SUSPENDED (the connection dropped; the session may survive) and LOST (the session
  expired: its ephemeral znodes are gone; kazoo goes on to open a new session).

Order is kept: kazoo's connection thread reads replies and watch notifications in the order the
server sent them, and all of them reach the loop through one worker thread, so a watch fires
before the reply of a later read that sees the change, as ZooKeeper promises.

kazoo drops its watches when the connection drops (it does not re-arm them on reconnect): each
one then fires once with :attr:`WatchEventType.NONE`, which means "the watch is gone; read the
znode again (with a new watch) once connected". Callers treat it as they treat a change.

Errors are one small family (:class:`ZkError` and its subclasses) whatever kazoo raised.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias, TypeVar

from kazoo import exceptions as kx  # type: ignore[import-untyped]
from kazoo.client import KazooClient, KazooState  # type: ignore[import-untyped]
from kazoo.handlers.threading import SequentialThreadingHandler  # type: ignore[import-untyped]
from kazoo.retry import KazooRetry  # type: ignore[import-untyped]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Kafka's defaults for ``zookeeper.session.timeout.ms``; ``zookeeper.connection.timeout.ms``
#: defaults to the session timeout
DEFAULT_SESSION_TIMEOUT_MS = 18000
#: the longest pause between two attempts to reach the servers again
RECONNECT_MAX_DELAY_S = 1.0

ANY_VERSION = -1


# -- errors -----------------------------------------------------------------------------------

class ZkError(Exception):
    """A ZooKeeper request failed. ``path`` is the znode it named; in a :meth:`ZkClient.multi`,
    ``op_index`` is the position of the operation that failed."""

    def __init__(self, message: str = "", path: str | None = None) -> None:
        super().__init__(message or type(self).__name__)
        self.path = path
        self.op_index: int | None = None


class NoNodeError(ZkError):
    """The znode does not exist (NONODE)."""


class NodeExistsError(ZkError):
    """The znode already exists (NODEEXISTS)."""


class BadVersionError(ZkError):
    """The znode's version is not the one expected (BADVERSION)."""


class NotEmptyError(ZkError):
    """The znode has children (NOTEMPTY)."""


class ConnectionLossError(ZkError):
    """The connection dropped before the answer came (CONNECTIONLOSS): the request may or may
    not have been applied; the session may survive."""


class SessionExpiredError(ZkError):
    """The session expired, or the client is closed (SESSIONEXPIRED)."""


class ConnectTimeoutError(ZkError):
    """No connection within ``zookeeper.connection.timeout.ms`` (Kafka's
    ZooKeeperClientTimeoutException)."""


_ERRORS: tuple[tuple[type[BaseException], type[ZkError]], ...] = (
    (kx.NoNodeError, NoNodeError),
    (kx.NodeExistsError, NodeExistsError),
    (kx.BadVersionError, BadVersionError),
    (kx.NotEmptyError, NotEmptyError),
    (kx.SessionExpiredError, SessionExpiredError),  # ConnectionClosedError too
    (kx.ConnectionLoss, ConnectionLossError),
    (kx.ConnectionDropped, ConnectionLossError),
    (kx.OperationTimeoutError, ConnectionLossError),
)


def map_error(exc: BaseException, path: str | None = None) -> ZkError:
    """The :class:`ZkError` for what kazoo raised."""
    if isinstance(exc, ZkError):
        return exc
    for kazoo_type, ours in _ERRORS:
        if isinstance(exc, kazoo_type):
            err = ours(f"{ours.__name__} for {path}" if path else ours.__name__, path)
            break
    else:
        err = ZkError(f"{type(exc).__name__} for {path}: {exc}", path)
    err.__cause__ = exc
    return err


# -- values -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ZnodeStat:
    """A znode's metadata. ``czxid`` is the transaction that created it (a broker's epoch);
    ``version`` counts changes to its data (a partition's epoch)."""

    czxid: int
    mzxid: int
    pzxid: int
    ctime: int
    mtime: int
    version: int
    cversion: int
    aversion: int
    ephemeral_owner: int
    data_length: int
    num_children: int

    @classmethod
    def of(cls, stat: Any) -> ZnodeStat:
        return cls(stat.czxid, stat.mzxid, stat.pzxid, stat.ctime, stat.mtime, stat.version,
                   stat.cversion, stat.aversion, stat.ephemeralOwner, stat.dataLength,
                   stat.numChildren)


class WatchEventType(enum.Enum):
    CREATED = "CREATED"
    DELETED = "DELETED"
    CHANGED = "CHANGED"  # the data changed
    CHILD = "CHILD"  # the children changed
    NONE = "NONE"  # the connection dropped and the watch with it: read again


@dataclass(frozen=True, slots=True)
class WatchEvent:
    type: WatchEventType
    path: str


Watch: TypeAlias = Callable[[WatchEvent], None]


class SessionState(enum.Enum):
    CONNECTED = "CONNECTED"
    SUSPENDED = "SUSPENDED"  # disconnected; the session may still be alive
    LOST = "LOST"  # the session expired (or the client closed)


@dataclass(frozen=True, slots=True)
class SessionEvent:
    state: SessionState
    session_id: int | None  # the new session's id on CONNECTED, the lost one's on LOST


SessionListener: TypeAlias = Callable[[SessionEvent], None]


# -- multi operations -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CreateOp:
    path: str
    data: bytes = b""
    ephemeral: bool = False
    sequence: bool = False


@dataclass(frozen=True, slots=True)
class SetDataOp:
    path: str
    data: bytes
    version: int = ANY_VERSION


@dataclass(frozen=True, slots=True)
class DeleteOp:
    path: str
    version: int = ANY_VERSION


@dataclass(frozen=True, slots=True)
class CheckOp:
    path: str
    version: int


Op: TypeAlias = CreateOp | SetDataOp | DeleteOp | CheckOp
#: a created path (CreateOp), the new stat (SetDataOp), None (DeleteOp, CheckOp)
OpResult: TypeAlias = str | ZnodeStat | None


class ZnodeStore(Protocol):
    """What Kafka's znode operations need of a ZooKeeper session: :class:`ZkClient` over an
    ensemble, or :class:`~pybroker.zk.local.LocalZkClient` over a file (the embedded node)."""

    @property
    def connect(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def connected(self) -> bool: ...

    @property
    def session_id(self) -> int | None: ...

    async def start(self, timeout: float | None = None) -> None: ...

    async def close(self) -> None: ...

    def close_now(self, timeout: float) -> None: ...

    async def wait_until_connected(self, timeout: float | None = None) -> None: ...

    def add_session_listener(self, listener: SessionListener) -> None: ...

    def remove_session_listener(self, listener: SessionListener) -> None: ...

    async def get(self, path: str, watch: Watch | None = None) -> tuple[bytes, ZnodeStat]: ...

    async def get_children(self, path: str, watch: Watch | None = None) -> list[str]: ...

    async def exists(self, path: str, watch: Watch | None = None) -> ZnodeStat | None: ...

    async def create(self, path: str, data: bytes = b"", *, ephemeral: bool = False,
                     sequence: bool = False, makepath: bool = False) -> str: ...

    async def set(self, path: str, data: bytes, version: int = ANY_VERSION) -> ZnodeStat: ...

    async def delete(self, path: str, version: int = ANY_VERSION,
                     recursive: bool = False) -> None: ...

    async def multi(self, ops: Sequence[Op]) -> list[OpResult]: ...


def split_connect_string(connect: str) -> tuple[str, str | None]:
    """``host:port[,host:port...][/chroot]`` -> (hosts, chroot or None)."""
    slash = connect.find("/")
    if slash < 0:
        return connect, None
    chroot = connect[slash:].rstrip("/")
    return connect[:slash], chroot or None


class _OrderedHandler(SequentialThreadingHandler):
    """kazoo's threading handler, with watch notifications delivered by the thread that
    delivers replies, so both keep the order the connection read them in."""

    def dispatch_callback(self, callback: Any) -> None:
        self.completion_queue.put(lambda: callback.func(*callback.args))


_KAZOO_STATES = {
    KazooState.CONNECTED: SessionState.CONNECTED,
    KazooState.SUSPENDED: SessionState.SUSPENDED,
    KazooState.LOST: SessionState.LOST,
}


class ZkClient:
    """One ZooKeeper session (renewed when it expires), used from an asyncio event loop.

    ``connect`` is ``zookeeper.connect`` (``127.0.0.1:2181/pybroker``): with a chroot, every
    path is under it, and :meth:`start` creates it first when it is missing, as Kafka does.
    """

    def __init__(self, connect: str, *, session_timeout_ms: int = DEFAULT_SESSION_TIMEOUT_MS,
                 connection_timeout_ms: int | None = None) -> None:
        self.connect = connect
        self.hosts, self.chroot = split_connect_string(connect)
        self.session_timeout_ms = session_timeout_ms
        self.connection_timeout_ms = (
            session_timeout_ms if connection_timeout_ms is None else connection_timeout_ms)
        self._kazoo: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listeners: list[SessionListener] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._state: SessionState | None = None  # as last delivered on the loop
        self._kazoo_session: int | None = None  # the session kazoo last connected with
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self, timeout: float | None = None) -> None:
        """Connect; raise :class:`ConnectTimeoutError` after ``timeout`` seconds
        (``zookeeper.connection.timeout.ms`` by default)."""
        if self._kazoo is not None or self._closed:
            raise RuntimeError("a ZkClient starts once")
        self._loop = loop = asyncio.get_running_loop()
        if timeout is None:
            timeout = self.connection_timeout_ms / 1000
        deadline = loop.time() + timeout
        if self.chroot is not None:
            await self._ensure_chroot(self.chroot, timeout)
        handler = _OrderedHandler()
        retry = KazooRetry(max_tries=-1, delay=0.1, backoff=2, max_delay=RECONNECT_MAX_DELAY_S,
                           sleep_func=handler.sleep_func)
        client = KazooClient(
            hosts=self.connect, timeout=self.session_timeout_ms / 1000, handler=handler,
            connection_retry=retry, command_retry=KazooRetry(max_tries=0,
                                                             sleep_func=handler.sleep_func))
        client.add_listener(self._on_kazoo_state)
        self._kazoo = client
        client.start_async()
        try:
            await self.wait_until_connected(max(0.0, deadline - loop.time()))
        except TimeoutError:
            await self.close()
            raise ConnectTimeoutError(
                f"timed out after {timeout:.1f}s waiting to connect to ZooKeeper at "
                f"{self.connect}") from None

    async def _ensure_chroot(self, chroot: str, timeout: float) -> None:
        """Create the chroot through a session without it, as Kafka's createChrootIfNecessary."""
        admin = ZkClient(self.hosts, session_timeout_ms=self.session_timeout_ms,
                         connection_timeout_ms=self.connection_timeout_ms)
        await admin.start(timeout)
        try:
            if await admin.exists(chroot) is None:
                try:
                    await admin.create(chroot, b"", makepath=True)
                    log.info("Created the ZooKeeper chroot %s", chroot)
                except NodeExistsError:
                    pass
        finally:
            await admin.close()

    async def close(self) -> None:
        """End the session (its ephemeral znodes go at once). No session event or watch is
        delivered after this begins; requests still waiting fail with SessionExpiredError."""
        if self._closed:
            return
        self._closed = True
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_exception(SessionExpiredError("the ZooKeeper client is closed"))
        self._waiters.clear()
        client = self._kazoo
        if client is not None:
            await asyncio.to_thread(_stop, client)

    def close_now(self, timeout: float) -> None:
        """End the session from a process about to halt: like :meth:`close`, but blocking the
        caller for at most ``timeout`` seconds (the close runs on a thread of its own)."""
        if self._closed:
            return
        self._closed = True
        client = self._kazoo
        if client is None:
            return
        closer = threading.Thread(target=_stop, args=(client,), name="zk-close", daemon=True)
        closer.start()
        closer.join(timeout)

    async def __aenter__(self) -> ZkClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        """Connected, as last told on the event loop."""
        return self._state is SessionState.CONNECTED and not self._closed

    @property
    def session_id(self) -> int | None:
        """The current session's id, or None while there is none."""
        ident = self.client_id
        return ident[0] if ident is not None else None

    @property
    def client_id(self) -> tuple[int, bytes] | None:
        """(session id, session password) while connected."""
        if self._kazoo is None:
            return None
        ident = self._kazoo.client_id
        return (ident[0], ident[1]) if ident else None

    async def wait_until_connected(self, timeout: float | None = None) -> None:
        """Return once connected (at once if connected now); TimeoutError after ``timeout``."""
        if self._closed:
            raise SessionExpiredError("the ZooKeeper client is closed")
        if self._state is SessionState.CONNECTED:
            return
        if self._loop is None:
            raise RuntimeError("the ZkClient is not started")
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout)
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    # -- session events -----------------------------------------------------------------------

    def add_session_listener(self, listener: SessionListener) -> None:
        self._listeners.append(listener)

    def remove_session_listener(self, listener: SessionListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _on_kazoo_state(self, kazoo_state: str) -> None:
        """kazoo's connection thread: queue the change behind the replies already read."""
        state = _KAZOO_STATES[kazoo_state]
        client = self._kazoo
        if state is SessionState.CONNECTED:
            ident = client.client_id if client is not None else None
            self._kazoo_session = ident[0] if ident else None
        event = SessionEvent(state, self._kazoo_session)
        handler = client.handler if client is not None else None
        if handler is not None and handler.running:
            handler.completion_queue.put(lambda: self._post_event(self._deliver_session, event))
        else:
            self._post_event(self._deliver_session, event)

    def _deliver_session(self, event: SessionEvent) -> None:
        """On the loop."""
        if self._closed:
            return
        self._state = event.state
        if event.state is SessionState.CONNECTED:
            for waiter in self._waiters:
                if not waiter.done():
                    waiter.set_result(None)
            self._waiters.clear()
        log.info("ZooKeeper session %s: %s", _hex(event.session_id), event.state.value)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("ZooKeeper session listener %r failed", listener)

    # -- bridging kazoo's threads to the loop -------------------------------------------------

    def _post_event(self, fn: Callable[..., None], *args: object) -> None:
        """Any thread: run ``fn`` on the loop unless closed (session events and watches)."""
        if not self._closed:
            self._post(fn, *args)

    def _post(self, fn: Callable[..., None], *args: object) -> None:
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    def _future(self, result: Any, path: str | None,
                convert: Callable[[Any], T]) -> asyncio.Future[T]:
        """An asyncio future settled on the loop from kazoo's IAsyncResult ``result``."""
        assert self._loop is not None
        fut: asyncio.Future[T] = self._loop.create_future()

        def settle(res: Any) -> None:  # on the loop
            if fut.done():
                return
            exc = res.exception
            if exc is not None:
                fut.set_exception(map_error(exc, path))
                return
            try:
                fut.set_result(convert(res.value))
            except Exception as e:  # a reply we cannot read
                fut.set_exception(e)

        result.rawlink(lambda res: self._post(settle, res))
        return fut

    def _watch(self, path: str, watch: Watch | None) -> Callable[[Any], None] | None:
        if watch is None:
            return None

        def fire(event: Any) -> None:  # kazoo's worker thread
            ev = WatchEvent(WatchEventType(event.type), event.path or path)
            self._post_event(watch, ev)

        return fire

    def _client(self) -> Any:
        if self._kazoo is None:
            raise RuntimeError("the ZkClient is not started")
        return self._kazoo

    # -- requests -----------------------------------------------------------------------------

    async def get(self, path: str, watch: Watch | None = None) -> tuple[bytes, ZnodeStat]:
        """The znode's data and stat; ``watch`` fires once when it changes or is deleted."""
        result = self._client().get_async(path, watch=self._watch(path, watch))
        return await self._future(result, path, lambda v: (v[0] or b"", ZnodeStat.of(v[1])))

    async def get_children(self, path: str, watch: Watch | None = None) -> list[str]:
        """The children's names; ``watch`` fires once when they change or the znode goes."""
        result = self._client().get_children_async(path, watch=self._watch(path, watch))
        return await self._future(result, path, list)

    async def exists(self, path: str, watch: Watch | None = None) -> ZnodeStat | None:
        """The stat, or None; ``watch`` fires once on creation, change or deletion."""
        result = self._client().exists_async(path, watch=self._watch(path, watch))
        return await self._future(result, path,
                                  lambda v: ZnodeStat.of(v) if v is not None else None)

    async def create(self, path: str, data: bytes = b"", *, ephemeral: bool = False,
                     sequence: bool = False, makepath: bool = False) -> str:
        """Create the znode (and its missing parents with ``makepath``); the created path
        (with the sequence number for a sequential znode)."""
        result = self._client().create_async(path, data, ephemeral=ephemeral, sequence=sequence,
                                             makepath=makepath)
        return await self._future(result, path, str)

    async def set(self, path: str, data: bytes, version: int = ANY_VERSION) -> ZnodeStat:
        """Set the data if the znode's version is ``version`` (any with -1); the new stat."""
        result = self._client().set_async(path, data, version)
        return await self._future(result, path, ZnodeStat.of)

    async def delete(self, path: str, version: int = ANY_VERSION,
                     recursive: bool = False) -> None:
        """Delete the znode (if its version is ``version``); with ``recursive``, its
        descendants first (those already gone are skipped)."""
        if recursive:
            try:
                children = await self.get_children(path)
            except NoNodeError:
                children = []
            for child in children:
                try:
                    await self.delete(f"{path.rstrip('/')}/{child}", recursive=True)
                except NoNodeError:
                    pass
        result = self._client().delete_async(path, version)
        await self._future(result, path, lambda v: None)

    async def multi(self, ops: Sequence[Op]) -> list[OpResult]:
        """Apply ``ops`` atomically: all or none. On failure, raise the failing operation's
        error with its ``op_index``."""
        tx = self._client().transaction()
        for op in ops:
            if isinstance(op, CreateOp):
                tx.create(op.path, op.data, ephemeral=op.ephemeral, sequence=op.sequence)
            elif isinstance(op, SetDataOp):
                tx.set_data(op.path, op.data, op.version)
            elif isinstance(op, DeleteOp):
                tx.delete(op.path, op.version)
            else:
                tx.check(op.path, op.version)
        raw = await self._future(tx.commit_async(), None, list)
        failure = next(((i, r) for i, r in enumerate(raw)
                        if isinstance(r, BaseException)
                        and not isinstance(r, kx.RolledBackError | kx.RuntimeInconsistency)),
                       None)
        if failure is not None:
            index, exc = failure
            err = map_error(exc, ops[index].path)
            err.op_index = index
            raise err
        if any(isinstance(r, BaseException) for r in raw):
            raise ZkError(f"multi failed: {raw!r}")
        out: list[OpResult] = []
        for op, r in zip(ops, raw, strict=True):
            if isinstance(op, CreateOp):
                out.append(str(r))
            elif isinstance(op, SetDataOp):
                out.append(ZnodeStat.of(r))
            else:
                out.append(None)
        return out

    def __repr__(self) -> str:
        return f"ZkClient({self.connect}, session={_hex(self.session_id)})"


def _stop(client: Any) -> None:
    """A worker thread: stop kazoo's session and threads."""
    try:
        client.stop()
    finally:
        client.close()


def _hex(session_id: int | None) -> str:
    return "none" if session_id is None else f"0x{session_id:x}"
