"""A byte range of a segment file, handed to the network layer instead of a copy.

A fetch response carries whole batches straight from the page cache: the sender either calls
``os.sendfile(sock, slice.fileno(), slice.position, len(slice))`` or ``slice.read_bytes()``.
A ``FileSlice`` is deliberately not bytes-like; a response writer tells it apart from
``bytes`` by ``__len__`` together with ``fileno``.
"""

from __future__ import annotations

import os
from typing import Protocol


class _HasFileno(Protocol):
    def fileno(self) -> int: ...


class FileSlice:
    """``size`` bytes of ``file`` starting at ``position``; the file stays owned by its segment."""

    __slots__ = ("file", "position", "size")

    def __init__(self, file: _HasFileno | int, position: int, size: int) -> None:
        self.file = file
        self.position = position
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"FileSlice(fd={self.fileno()}, position={self.position}, size={self.size})"

    def fileno(self) -> int:
        return self.file if isinstance(self.file, int) else self.file.fileno()

    def read_bytes(self) -> bytes:
        """The slice's bytes, read with ``os.pread``.

        Raises ``EOFError`` when the file has shrunk below the slice (the segment was truncated
        or deleted after the read was planned); the caller must then drop the connection rather
        than send a short frame.
        """
        fd = self.fileno()
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
