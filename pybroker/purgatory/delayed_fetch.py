"""A fetch waiting for ``min_bytes`` of data (Kafka's DelayedFetch).

It is watched under each of its partitions: an append on the leader (for a follower's fetch)
or a move of the high watermark (for a consumer's) checks it, and ``max_wait_ms`` ends the wait
with whatever is there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import DelayedOperation

#: a read of every partition of the fetch: ``(results, bytes read, any partition failed)``
Read = Callable[[], tuple[Any, int, bool]]


class DelayedFetch(DelayedOperation):
    def __init__(self, read: Read, min_bytes: int) -> None:
        super().__init__()
        self.read = read
        self.min_bytes = min_bytes

    def try_complete(self) -> Any | None:
        results, total, errors = self.read()
        if total >= self.min_bytes or errors:
            return results
        return None

    def on_expiration(self) -> Any:
        return self.read()[0]
