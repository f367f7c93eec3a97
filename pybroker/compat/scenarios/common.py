"""What scenarios of several clients share: the records they send and how they compare."""

from __future__ import annotations

CODECS = ("gzip", "snappy", "lz4", "zstd")


def records(n: int, tag: str = "") -> list[tuple[bytes, bytes]]:
    """``n`` (key, value) pairs of varied sizes, compressible, distinct per ``tag``."""
    return [(f"{tag}k{i}".encode(), f"{tag}value-{i}-".encode() * (1 + i % 7)) for i in range(n)]
