"""Kafka's TCP framing, without I/O: every request and response is ``[int32 size][size bytes]``."""

from __future__ import annotations

import struct

from protocol.errors import ProtocolError

DEFAULT_MAX_FRAME_SIZE = 104857600  # Kafka's socket.request.max.bytes

_SIZE = struct.Struct(">i")
SIZE_PREFIX_LENGTH = _SIZE.size


class FrameDecoder:
    """Split a byte stream into frame payloads.

    Bytes of an incomplete frame stay in one ``bytearray`` (appends are amortised O(1) and
    CPython drops a consumed prefix without moving the rest), so a large frame arriving in
    many small reads costs no more than one copy. When nothing is pending, frames are sliced
    straight out of the chunk just received.
    """

    __slots__ = ("max_frame_size", "_buf", "_need")

    def __init__(self, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> None:
        self.max_frame_size = max_frame_size
        self._buf = bytearray()
        self._need = SIZE_PREFIX_LENGTH  # bytes the pending frame needs before it is complete

    @property
    def pending(self) -> int:
        """Bytes received that are not yet part of a complete frame."""
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Add received bytes; return the payloads of every frame they complete, in order.

        Raises :class:`ProtocolError` for a negative size or one above ``max_frame_size``;
        the decoder is unusable after that, as the stream has lost its framing.
        """
        buf = self._buf
        if buf:
            buf += data
            if len(buf) < self._need:
                return []
            frames, used = self._split(buf)
            del buf[:used]
        else:
            frames, used = self._split(data)
            if used < len(data):
                buf += memoryview(data)[used:]
        return frames

    def _split(self, data: bytes | bytearray | memoryview) -> tuple[list[bytes], int]:
        frames: list[bytes] = []
        end = len(data)
        pos = 0
        unpack = _SIZE.unpack_from
        limit = self.max_frame_size
        with memoryview(data) as view:
            while end - pos >= SIZE_PREFIX_LENGTH:
                (size,) = unpack(view, pos)
                if size < 0 or size > limit:
                    raise ProtocolError(
                        f"frame size {size} is outside 0..{limit} (socket.request.max.bytes)"
                    )
                frame_end = pos + SIZE_PREFIX_LENGTH + size
                if frame_end > end:
                    self._need = frame_end - pos
                    return frames, pos
                frames.append(bytes(view[pos + SIZE_PREFIX_LENGTH : frame_end]))
                pos = frame_end
        self._need = SIZE_PREFIX_LENGTH
        return frames, pos


def frame_prefix(size: int) -> bytes:
    """The 4-byte size prefix of a frame carrying ``size`` bytes."""
    if not 0 <= size <= 0x7FFFFFFF:
        raise ValueError(f"frame size {size} does not fit an int32")
    return _SIZE.pack(size)


def frame(payload: bytes | bytearray | memoryview) -> bytes:
    """``payload`` with its size prefix."""
    return frame_prefix(len(payload)) + bytes(payload)
