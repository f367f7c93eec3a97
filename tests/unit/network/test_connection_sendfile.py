"""A connection's fetch answers that carry file regions (pybroker/network/connection.py): sent
straight to the socket when it takes them, through loop.sendfile when it is full, always in
request order and byte for byte; a region whose file has shrunk closes the connection."""

from __future__ import annotations

import asyncio
import os
import struct
from pathlib import Path
from typing import Any

from protocol.framing import frame
from pybroker.log.file_slice import FileSlice
from pybroker.network.connection import KafkaConnection


class Spliced(bytearray):
    """An encoded response with file regions spliced in (as ``Writer.splices`` records)."""

    splices: list[tuple[int, Any]]


def spliced(head: bytes, region: FileSlice, tail: bytes) -> Spliced:
    body = Spliced(struct.pack(">i", len(head) + len(region) + len(tail) - 4) + head[4:] + tail)
    body.splices = [(len(head), region)]
    return body


class Dispatcher:
    """Answers a request naming ``(position, size)`` of the file with those bytes between a
    header and a trailer."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def dispatch(self, request: bytes | bytearray | memoryview, conn: object,
                 times: object = None) -> Spliced:
        position, size = struct.unpack(">qq", bytes(request))
        return spliced(b"\0\0\0\0HEAD", FileSlice(self.fd, position, size), b"TAIL")


async def exchange(path: Path, asks: list[tuple[int, int]]) -> tuple[bytes, int]:
    """Send every ask at once; return all the bytes the broker side sent until it closed (or
    until the expected length) and how many connections it still holds."""
    fd = os.open(path, os.O_RDONLY)
    connections: set[KafkaConnection] = set()
    try:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: KafkaConnection(Dispatcher(fd), max_frame_size=1 << 20,  # type: ignore[arg-type]
                                    use_sendfile=True, connections=connections),
            "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"".join(frame(struct.pack(">qq", p, n)) for p, n in asks))
        expected = sum(4 + 4 + n + 4 for _, n in asks)
        got = bytearray()
        while len(got) < expected:
            chunk = await reader.read(1 << 20)
            if not chunk:
                break
            got += chunk
            await asyncio.sleep(0)  # a slow reader: the socket fills up
        writer.close()
        server.close()
        await server.wait_closed()
        return bytes(got), len(connections)
    finally:
        os.close(fd)


def expected_answer(data: bytes, position: int, size: int) -> bytes:
    return struct.pack(">i", 4 + size + 4) + b"HEAD" + data[position:position + size] + b"TAIL"


def test_answers_with_file_regions_arrive_whole_and_in_order(tmp_path: Path) -> None:
    data = os.urandom(24 << 20)
    path = tmp_path / "segment.log"
    path.write_bytes(data)
    # small regions (sent at once) around large ones (more than a socket buffer holds)
    asks = [(0, 1000), (5, 12 << 20), (7, 10), (1 << 20, 20 << 20), (3, 0), (100, 5000)]
    got, _ = asyncio.run(exchange(path, asks))
    assert got == b"".join(expected_answer(data, p, n) for p, n in asks)


def test_a_region_past_the_end_of_its_file_closes_the_connection(tmp_path: Path) -> None:
    path = tmp_path / "segment.log"
    path.write_bytes(b"x" * 100)
    got, _ = asyncio.run(exchange(path, [(0, 10), (50, 100)]))
    # the first answer whole; of the second only what the file had: the frame would lie
    assert got.startswith(expected_answer(b"x" * 100, 0, 10))
    assert len(got) < len(expected_answer(b"x" * 100, 0, 10)) + 4 + 4 + 100 + 4
