"""Kafka's TCP framing, without I/O: every request and response is ``[int32 size][size bytes]``."""

from __future__ import annotations

import struct
from collections.abc import Callable

from protocol.errors import ProtocolError

DEFAULT_MAX_FRAME_SIZE = 104857600  # Kafka's socket.request.max.bytes
#: what a :class:`FrameReader` reads into while no frame is in progress
DEFAULT_CHUNK_SIZE = 64 * 1024

_SIZE = struct.Struct(">i")
SIZE_PREFIX_LENGTH = _SIZE.size


def _uninitialised_bytearray() -> Callable[[int], bytearray]:
    """``bytearray(size)`` without the zero fill, where the interpreter allows it.

    A frame buffer is handed on only once the socket has written every byte of it, so filling
    it with zeros first is pure cost: for a megabyte produce request or replica fetch answer it
    is one more pass over memory, and on memory the process has not touched before it is the
    pass that takes the page faults. CPython's ``PyByteArray_FromStringAndSize(NULL, n)``
    allocates without filling; elsewhere this is plain ``bytearray``.
    """
    try:
        import ctypes

        new = ctypes.pythonapi.PyByteArray_FromStringAndSize
    except (ImportError, AttributeError):  # not CPython
        return bytearray
    new.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t)
    new.restype = ctypes.py_object

    def allocate(size: int) -> bytearray:
        return new(None, size)

    return allocate


#: a ``bytearray`` of the given size whose contents are undefined until written
allocate_frame_buffer: Callable[[int], bytearray] = _uninitialised_bytearray()


class FrameDecoder:
    """Split a byte stream into frame payloads, copying each payload once.

    Frames that lie whole in one received chunk are sliced straight out of it. A frame that
    spans chunks is collected as views of the chunks its payload arrived in and joined once
    when its last byte comes: a megabyte produce request or replica fetch answer read in many
    pieces costs one copy, where appending the pieces to one growing buffer copied it again at
    every reallocation and once more to cut the payload out.
    """

    __slots__ = ("max_frame_size", "_head", "_size", "_parts", "_have")

    def __init__(self, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> None:
        self.max_frame_size = max_frame_size
        self._head = b""  # the first bytes of a size prefix that has not fully arrived
        self._size = -1  # the payload size of the frame being collected; -1: none
        self._parts: list[memoryview] = []  # its payload so far, as views of received chunks
        self._have = 0  # their total length

    @property
    def pending(self) -> int:
        """Bytes received that are not yet part of a complete frame."""
        return len(self._head) if self._size < 0 else SIZE_PREFIX_LENGTH + self._have

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Add received bytes; return the payloads of every frame they complete, in order.

        Raises :class:`ProtocolError` for a negative size or one above ``max_frame_size``;
        the decoder is unusable after that, as the stream has lost its framing.
        """
        if not isinstance(data, bytes):
            data = bytes(data)  # kept views must not see the caller change its buffer
        end = len(data)
        frames: list[bytes] = []
        pos = 0
        with memoryview(data) as view:
            while pos < end:
                if self._size >= 0:  # collecting a payload
                    take = min(self._size - self._have, end - pos)
                    self._parts.append(view[pos : pos + take])
                    self._have += take
                    pos += take
                    if self._have == self._size:
                        frames.append(self._complete())
                elif self._head or end - pos < SIZE_PREFIX_LENGTH:  # a prefix in pieces
                    take = min(SIZE_PREFIX_LENGTH - len(self._head), end - pos)
                    self._head += data[pos : pos + take]
                    pos += take
                    if len(self._head) == SIZE_PREFIX_LENGTH:
                        self._start(_SIZE.unpack(self._head)[0])
                        self._head = b""
                        if self._size == 0:
                            frames.append(self._complete())
                else:  # whole frames straight out of this chunk
                    (size,) = _SIZE.unpack_from(view, pos)
                    frame_end = pos + SIZE_PREFIX_LENGTH + self._check(size)
                    if frame_end <= end:
                        frames.append(data[pos + SIZE_PREFIX_LENGTH : frame_end])
                        pos = frame_end
                    else:
                        self._start(size)
                        pos += SIZE_PREFIX_LENGTH
        return frames

    def _start(self, size: int) -> None:
        self._size = self._check(size)
        self._have = 0

    def _complete(self) -> bytes:
        payload = b"".join(self._parts)
        for part in self._parts:
            part.release()
        self._parts.clear()
        self._size = -1
        self._have = 0
        return payload

    def _check(self, size: int) -> int:
        limit = self.max_frame_size
        if size < 0 or size > limit:
            raise ProtocolError(
                f"frame size {size} is outside 0..{limit} (socket.request.max.bytes)"
            )
        return size


class FrameReader:
    """Split a byte stream into frame payloads with reads straight into each frame's buffer:
    the sans-IO half of an ``asyncio.BufferedProtocol``.

    :meth:`buffer` is where the next received bytes must go (``get_buffer``), :meth:`filled`
    says how many arrived there (``buffer_updated``) and returns the payloads of the frames
    they complete, each a ``bytearray`` of its own that nothing else refers to: writable, so a
    produce request's batches can have their offsets assigned in place.

    While no frame is in progress the bytes go to a chunk of ``chunk`` bytes, so that many
    small frames arrive in one read; complete frames are copied out of it. A frame that does
    not end in the chunk gets a buffer of its announced size (not zero-filled, since the socket
    writes every byte of it before it is handed on), its first bytes are copied there and every
    later read of it lands in that buffer directly. A large frame (a megabyte produce
    request or replica fetch answer) is thus copied at most one chunk's worth in user space,
    where joining received pieces copies all of it once more.

    The chunk may be shared by the readers of one event loop (``chunk``), since :meth:`filled`
    takes everything out of it before it returns; it must not be shared across threads.
    """

    __slots__ = ("max_frame_size", "_chunk", "_head", "_head_have", "_frame", "_have")

    def __init__(self, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE, *,
                 chunk: bytearray | None = None) -> None:
        self.max_frame_size = max_frame_size
        self._chunk = memoryview(chunk if chunk is not None else bytearray(DEFAULT_CHUNK_SIZE))
        if len(self._chunk) < SIZE_PREFIX_LENGTH:
            raise ValueError("a frame reader's chunk must hold at least a size prefix")
        self._head = bytearray(SIZE_PREFIX_LENGTH)  # a size prefix that arrived in pieces
        self._head_have = 0
        self._frame: bytearray | None = None  # the payload being read, when one is
        self._have = 0  # its bytes so far

    @property
    def pending(self) -> int:
        """Bytes received that are not yet part of a complete frame."""
        if self._frame is not None:
            return SIZE_PREFIX_LENGTH + self._have
        return self._head_have

    def buffer(self) -> memoryview:
        """Where the next received bytes go; at most as many as it holds."""
        if self._frame is not None:
            return memoryview(self._frame)[self._have:]
        if self._head_have:
            return memoryview(self._head)[self._head_have:]
        return self._chunk

    def filled(self, n: int) -> list[bytearray]:
        """``n`` bytes were written at the start of the last :meth:`buffer`; return the payloads
        of every frame they complete, in order.

        Raises :class:`ProtocolError` for a negative size or one above ``max_frame_size``; the
        reader is unusable after that, as the stream has lost its framing.
        """
        frame = self._frame
        if frame is not None:
            self._have += n
            if self._have < len(frame):
                return []
            self._frame = None
            return [frame]
        if self._head_have:
            self._head_have += n
            if self._head_have < SIZE_PREFIX_LENGTH:
                return []
            self._head_have = 0
            size = self._check(_SIZE.unpack(self._head)[0])
            if size == 0:
                return [bytearray()]
            self._frame, self._have = allocate_frame_buffer(size), 0
            return []
        chunk = self._chunk
        frames: list[bytearray] = []
        pos = 0
        while n - pos >= SIZE_PREFIX_LENGTH:
            start = pos + SIZE_PREFIX_LENGTH
            size = self._check(_SIZE.unpack_from(chunk, pos)[0])
            end = start + size
            if end > n:  # the rest of this frame goes straight into its own buffer
                frame = allocate_frame_buffer(size)
                frame[: n - start] = chunk[start:n]
                self._frame, self._have = frame, n - start
                return frames
            frames.append(bytearray(chunk[start:end]))
            pos = end
        if pos < n:
            self._head[: n - pos] = chunk[pos:n]
            self._head_have = n - pos
        return frames

    def _check(self, size: int) -> int:
        limit = self.max_frame_size
        if size < 0 or size > limit:
            raise ProtocolError(
                f"frame size {size} is outside 0..{limit} (socket.request.max.bytes)"
            )
        return size


def frame_prefix(size: int) -> bytes:
    """The 4-byte size prefix of a frame carrying ``size`` bytes."""
    if not 0 <= size <= 0x7FFFFFFF:
        raise ValueError(f"frame size {size} does not fit an int32")
    return _SIZE.pack(size)


def frame(payload: bytes | bytearray | memoryview) -> bytes:
    """``payload`` with its size prefix."""
    return frame_prefix(len(payload)) + bytes(payload)
