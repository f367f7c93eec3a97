"""A fetch waiting for ``min_bytes`` of data (Kafka's DelayedFetch).

It is watched under each of its partitions: an append on the leader (for a follower's fetch)
or a move of the high watermark (for a consumer's) checks it, and ``max_wait_ms`` ends the wait
with whatever is there. A check first asks ``may_have_news``, a look at offsets alone (as
Kafka's ``tryComplete`` looks at offsets, not at data): when it says nothing changed for any of
the partitions (a high watermark that moved under a follower's fetch, which waits for records),
the partitions are not read again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import DelayedOperation

#: a read of every partition of the fetch: ``(results, bytes read, any partition failed)``
Read = Callable[[], tuple[Any, int, bool]]


class DelayedFetch(DelayedOperation):
    """``may_have_news``: False only when reading again would find exactly what the last read
    found (no partition has anything new to read, none changed hands); None: always read."""

    def __init__(self, read: Read, min_bytes: int,
                 may_have_news: Callable[[], bool] | None = None) -> None:
        super().__init__()
        self.read = read
        self.min_bytes = min_bytes
        self.may_have_news = may_have_news

    def try_complete(self) -> Any | None:
        if self.may_have_news is not None and not self.may_have_news():
            return None
        results, total, errors = self.read()
        if total >= self.min_bytes or errors:
            return results
        return None

    def on_expiration(self) -> Any:
        return self.read()[0]
