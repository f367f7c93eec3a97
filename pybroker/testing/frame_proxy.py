"""A TCP proxy on 127.0.0.1 that shows each Kafka request frame to an observer.

Used by scripts/capture_frames.py to record fixtures and by tests that must see what a client
really sent (for instance, whether librdkafka compressed a batch or quietly fell back to
uncompressed because of the broker's ApiVersions answer). The broker behind it has to
advertise the proxy's address, or clients bypass the proxy after bootstrapping.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
import threading
from collections.abc import Callable

from crc32c import crc32c

FrameObserver = Callable[[bytes], None]

API_PRODUCE = 0


def produce_codec(frame: bytes) -> int | None:
    """Compression codec (attributes & 7) of the first record batch in a Produce request frame.

    Finds the batch by its shape rather than by decoding the request, so it works for every
    Produce version: baseOffset 0, magic 2 at +16, and a CRC-32C (over the attributes onwards)
    that matches. Returns None if no such batch is present.
    """
    for pos in range(len(frame) - 61):
        if frame[pos + 16] != 2 or frame[pos : pos + 8] != b"\x00" * 8:
            continue
        length, _epoch, _magic, crc, attributes = struct.unpack_from(">iibIh", frame, pos + 8)
        end = pos + 12 + length
        if 49 <= length and end <= len(frame) and crc32c(frame[pos + 21 : end]) == crc:
            return attributes & 0x07
    return None


def request_key(frame: bytes) -> tuple[int, int]:
    """(api key, api version) of a request frame."""
    return struct.unpack_from(">hh", frame)


class FrameSplitter:
    """Cuts a byte stream into the payloads of size-prefixed frames."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self.buf += data
        frames = []
        while len(self.buf) >= 4:
            (size,) = struct.unpack_from(">i", self.buf)
            if size < 0 or len(self.buf) < 4 + size:
                break
            frames.append(bytes(self.buf[4 : 4 + size]))
            del self.buf[: 4 + size]
        return frames


class FrameProxy:
    """Forwards 127.0.0.1:``port`` to ``upstream`` (or, with None, answers nothing).

    Every complete request frame from a client is passed to the ``observer`` that was set when
    the client's connection was accepted, so frames of a finished session never leak into the
    next one. The event loop runs in a daemon thread; ``close()`` stops it.
    """

    def __init__(self, port: int, upstream: tuple[str, int] | None) -> None:
        self.port = port
        self.upstream = upstream
        self.observer: FrameObserver | None = None
        self.loop = asyncio.new_event_loop()
        self.server: asyncio.Server | None = None
        self.thread = threading.Thread(target=self.loop.run_forever, name="frame-proxy", daemon=True)
        self.connections: set[asyncio.Task] = set()

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> FrameProxy:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self.loop).result(10)
        return self

    async def _listen(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    def close(self) -> None:
        async def shutdown() -> None:
            if self.server is not None:
                self.server.close()
            for task in list(self.connections):
                task.cancel()
            await asyncio.sleep(0)

        if self.thread.is_alive():
            asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(10)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.connections.add(task)
        observer = self.observer
        up_writer: asyncio.StreamWriter | None = None
        pump_back: asyncio.Future | None = None
        try:
            if self.upstream is not None:
                up_reader, up_writer = await asyncio.open_connection(*self.upstream)
                pump_back = asyncio.ensure_future(self._pump(up_reader, writer))
            splitter = FrameSplitter()
            while data := await reader.read(65536):
                if observer is not None:
                    for frame in splitter.feed(data):
                        observer(frame)
                if up_writer is not None:
                    up_writer.write(data)
                    await up_writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            if pump_back is not None:
                pump_back.cancel()
            self.connections.discard(task)
            for w in (writer, up_writer):
                if w is not None:
                    w.close()

    @staticmethod
    async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    def __enter__(self) -> FrameProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class FrameLog:
    """An observer that keeps every frame; thread-safe enough for list appends under the GIL."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def __call__(self, frame: bytes) -> None:
        self.frames.append(frame)

    def produce_codecs(self) -> set[int | None]:
        """Codecs of the record batches in every Produce request seen so far."""
        return {produce_codec(f) for f in self.frames if request_key(f)[0] == API_PRODUCE}
