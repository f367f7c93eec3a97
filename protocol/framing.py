"""Kafka's TCP framing, without I/O: every request and response is ``[int32 size][size bytes]``."""

from __future__ import annotations

import struct

from protocol.errors import ProtocolError

DEFAULT_MAX_FRAME_SIZE = 104857600  # Kafka's socket.request.max.bytes

_SIZE = struct.Struct(">i")
SIZE_PREFIX_LENGTH = _SIZE.size


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


def frame_prefix(size: int) -> bytes:
    """The 4-byte size prefix of a frame carrying ``size`` bytes."""
    if not 0 <= size <= 0x7FFFFFFF:
        raise ValueError(f"frame size {size} does not fit an int32")
    return _SIZE.pack(size)


def frame(payload: bytes | bytearray | memoryview) -> bytes:
    """``payload`` with its size prefix."""
    return frame_prefix(len(payload)) + bytes(payload)
