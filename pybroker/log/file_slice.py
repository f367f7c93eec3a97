"""A byte range of a segment file, handed to the network layer instead of a copy, and the
bounded cache of open segment files behind it.

A fetch response carries whole batches straight from the page cache: the sender either calls
``loop.sendfile(transport, slice.file, slice.position, len(slice))`` or ``slice.read_bytes()``.
A ``FileSlice`` is deliberately not bytes-like; a response writer tells it apart from
``bytes`` by ``__len__`` together with ``fileno``.

Why a cache: a broker with thousands of partitions has thousands of segments, each with a
``.log``, ``.index`` and ``.timeindex`` file. Keeping all of them open would need three
descriptors per segment and exhaust ``ulimit -n`` long before memory runs out. Segments and
indexes therefore ask :class:`OpenFiles` for a descriptor each time they touch the disk; it
keeps the most recently used ones open and closes the rest.

A slice names its segment's file through a :class:`LazyFile`, so a fetch response holding
slices of 2,000 partitions holds no descriptor at all. The descriptor is taken when the slice
is actually sent (``slice.file``, the object given to ``loop.sendfile``) and pinned until that
send is over: the cache may *retire* it meanwhile, but it closes only when the send lets go.
Descriptors in use are thus bounded by the cache plus the sends in progress.
"""

from __future__ import annotations

import errno
import os
import resource
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Protocol

_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC


class _HasFileno(Protocol):
    def fileno(self) -> int: ...


class SharedFile:
    """One open descriptor, shared by the segment (or index) that opened it and its readers.

    ``retire()`` (the cache wants the slot back) closes it once no reader holds it;
    ``retain()``/``release()`` count the readers. The descriptor is opened for reading and
    appending, so writes always land at the end and reads use ``pread``.
    """

    __slots__ = ("_fd", "_retired", "_users", "path")

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        self.path = path
        self._users = 0
        self._retired = False

    def __repr__(self) -> str:
        state = "closed" if self._fd < 0 else ("retired" if self._retired else "open")
        return f"SharedFile({self.path.name}, fd={self._fd}, {state}, users={self._users})"

    @property
    def closed(self) -> bool:
        return self._fd < 0

    @property
    def retired(self) -> bool:
        return self._retired

    @property
    def users(self) -> int:
        return self._users

    def fileno(self) -> int:
        if self._fd < 0:
            raise ValueError(f"{self.path.name}: I/O operation on a closed file")
        return self._fd

    def retain(self) -> None:
        self._users += 1

    def release(self) -> None:
        self._users -= 1
        if self._users <= 0 and self._retired:
            self._close()

    def retire(self) -> None:
        self._retired = True
        if self._users <= 0:
            self._close()

    def _close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def __del__(self) -> None:
        # Only reached when the owner was dropped without close(); never leak the descriptor.
        try:
            self._close()
        except OSError:
            pass


def default_capacity() -> int:
    """A quarter of the soft ``RLIMIT_NOFILE``: the rest is for sockets, slices in flight,
    checkpoints and snapshots. At least 32 so a tiny limit still makes progress."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return 65536
    return max(32, soft // 4)


class OpenFiles:
    """At most ``capacity`` files open at once, keyed by their owner; least recently used
    closes first.

    Owners are the segments and indexes themselves (hashed by identity). ``get`` is called
    on every disk access, so it is one dict lookup and a ``move_to_end`` when the file is
    already open. Not thread-safe: one event loop owns the logs.
    """

    def __init__(self, capacity: int | None = None) -> None:
        self.capacity = capacity if capacity is not None else default_capacity()
        if self.capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._open: OrderedDict[Hashable, SharedFile] = OrderedDict()
        self.opens = 0  # descriptors opened so far (for tests and benchmarks)

    def __len__(self) -> int:
        return len(self._open)

    def __contains__(self, owner: Hashable) -> bool:
        return owner in self._open

    def get(self, owner: Hashable, path: Path, *, create: bool = False) -> SharedFile:
        """The open file of ``owner``, opening ``path`` if it is not open (creating it with
        ``create``). Raises ``FileNotFoundError`` for a missing file without ``create``."""
        shared = self._open.get(owner)
        if shared is not None:
            self._open.move_to_end(owner)
            return shared
        flags = _OPEN_FLAGS | (os.O_CREAT if create else 0)
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as e:
            if e.errno not in (errno.EMFILE, errno.ENFILE) or not self._open:
                raise
            # Out of descriptors (slices in flight, many connections): give back half of ours.
            self._evict(len(self._open) // 2 or 1)
            fd = os.open(path, flags, 0o644)
        shared = SharedFile(fd, Path(path))
        self._open[owner] = shared
        self.opens += 1
        if len(self._open) > self.capacity:
            self._evict(len(self._open) - self.capacity)
        return shared

    def peek(self, owner: Hashable) -> SharedFile | None:
        """The open file of ``owner`` without opening it or touching the LRU order."""
        return self._open.get(owner)

    def forget(self, owner: Hashable) -> None:
        """Retire ``owner``'s file (it closes once no slice holds it)."""
        shared = self._open.pop(owner, None)
        if shared is not None:
            shared.retire()

    def resize(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        if len(self._open) > capacity:
            self._evict(len(self._open) - capacity)

    def _evict(self, n: int) -> None:
        for _ in range(min(n, len(self._open))):
            _, shared = self._open.popitem(last=False)
            shared.retire()


#: The broker-wide cache used by every segment and index unless one is passed explicitly.
SEGMENT_FILES = OpenFiles()


class LazyFile:
    """A file that is opened (through a cache) only when a descriptor is needed.

    ``opener`` returns the current :class:`SharedFile`, reopening it if the cache closed it;
    it raises when the file can no longer be opened (its segment was closed or deleted).
    """

    __slots__ = ("_opener",)

    def __init__(self, opener: Callable[[], SharedFile]) -> None:
        self._opener = opener

    def shared(self) -> SharedFile:
        return self._opener()

    def fileno(self) -> int:
        """A descriptor valid until the cache is used again (use it at once)."""
        return self._opener().fileno()


class _SliceReader:
    """The file object handed to ``loop.sendfile`` for one send of a slice.

    It pins the descriptor from creation until it is garbage-collected, i.e. until the
    ``sendfile`` call that received it returns. ``fileno()`` serves ``os.sendfile``; a private
    position with ``pread``-based ``readinto`` serves asyncio's read-and-write fallback, so
    concurrent sends of the same segment never move each other's position.
    """

    __slots__ = ("_pinned", "_pos", "_shared")
    mode = "rb"

    def __init__(self, source: SharedFile | LazyFile | _HasFileno | int, position: int) -> None:
        self._pos = position
        self._shared: SharedFile | None = None
        self._pinned: _HasFileno | int = source
        shared = source.shared() if isinstance(source, LazyFile) else source
        if isinstance(shared, SharedFile):
            shared.retain()
            self._shared = shared
            self._pinned = shared

    def fileno(self) -> int:
        pinned = self._pinned
        return pinned if isinstance(pinned, int) else pinned.fileno()

    def close(self) -> None:
        """Unpin the descriptor (also done when the reader is garbage-collected)."""
        shared, self._shared = self._shared, None
        if shared is not None:
            shared.release()

    def __del__(self) -> None:
        try:
            self.close()
        except OSError:
            pass

    def seek(self, pos: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_CUR:
            pos += self._pos
        elif whence == os.SEEK_END:
            pos += os.fstat(self.fileno()).st_size
        self._pos = pos
        return pos

    def tell(self) -> int:
        return self._pos

    def readinto(self, buffer: bytearray | memoryview) -> int:
        n = os.preadv(self.fileno(), [buffer], self._pos)
        self._pos += n
        return n


class FileSlice:
    """``size`` bytes of a segment file starting at ``position``.

    ``file`` is normally the segment's :class:`LazyFile`: the slice then holds no descriptor
    until it is read or sent. A :class:`SharedFile` is held open (retained) until
    :meth:`release`; a plain descriptor or file object stays owned by the caller.
    """

    __slots__ = ("_file", "_held", "position", "size")

    def __init__(self, file: LazyFile | SharedFile | _HasFileno | int, position: int, size: int) -> None:
        self._file = file
        self.position = position
        self.size = size
        self._held: SharedFile | None = None  # the shared file this slice keeps open
        if isinstance(file, SharedFile):
            file.retain()
            self._held = file

    def __len__(self) -> int:
        return self.size

    def __bytes__(self) -> bytes:
        """The bytes, for ``Writer.to_bytes`` (``encode`` of a Fetch response carrying slices)."""
        return self.read_bytes()

    def __repr__(self) -> str:
        fd = self._file if isinstance(self._file, int) else getattr(self._file, "_fd", "?")
        return f"FileSlice(fd={fd}, position={self.position}, size={self.size})"

    @property
    def file(self) -> _SliceReader:
        """A file object for one ``loop.sendfile`` (native or fallback) of this slice; it
        keeps the descriptor open until the send is over and the object is dropped."""
        return _SliceReader(self._file, self.position)

    def fileno(self) -> int:
        """A descriptor of the file; with a :class:`LazyFile` valid until the cache is used
        again, so use it at once (``read_bytes`` does)."""
        return self._file if isinstance(self._file, int) else self._file.fileno()

    def release(self) -> None:
        """Let go of a :class:`SharedFile` the slice was built on; safe to call more than once."""
        held = self._held
        if held is not None:
            self._held = None
            held.release()

    def __del__(self) -> None:
        try:
            self.release()
        except OSError:
            pass

    def read_bytes(self) -> bytes:
        """The slice's bytes, read with ``os.pread``.

        Raises ``EOFError`` when the file has shrunk below the slice (the segment was truncated
        or deleted after the read was planned); the caller must then drop the connection rather
        than send a short frame.
        """
        fd = self.fileno()  # no cache access below, so it stays valid
        data = os.pread(fd, self.size, self.position)
        if len(data) == self.size:
            return data
        parts = [data]
        got = len(data)
        while got < self.size:
            chunk = os.pread(fd, self.size - got, self.position + got)
            if not chunk:
                raise EOFError(f"{self!r}: file ended after {got} bytes")
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)
