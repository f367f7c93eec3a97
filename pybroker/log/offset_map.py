"""The cleaner's offset map (Kafka's ``SkimpyOffsetMap``): key -> latest offset over the dirty
section, keys stored as MD5 digests so that memory per key is fixed."""

from __future__ import annotations

import hashlib


class OffsetMap:
    """Key -> latest offset in the dirty section, keyed by the key's MD5 digest."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self.latest_offset = -1  # last offset of the last batch mapped
        self._offsets: dict[bytes, int] = {}

    def __len__(self) -> int:
        return len(self._offsets)

    @staticmethod
    def _digest(key: bytes) -> bytes:
        return hashlib.md5(key, usedforsecurity=False).digest()

    def put(self, key: bytes, offset: int) -> None:
        self._offsets[self._digest(key)] = offset

    def get(self, key: bytes) -> int:
        """The latest offset of ``key``, or -1 when the dirty section does not have it."""
        return self._offsets.get(self._digest(key), -1)


__all__ = [
    "OffsetMap",
]
