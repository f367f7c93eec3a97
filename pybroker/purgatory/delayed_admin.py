"""Admin requests waiting for the controller's outcome to reach this broker (Kafka's
DelayedCreatePartitions and DelayedDeleteTopics).

In ZooKeeper mode a broker answers CreateTopics, CreatePartitions and DeleteTopics only once its
own metadata shows the change (every partition led; the topic gone), or when the request's
``timeout_ms`` runs out (REQUEST_TIMED_OUT for what is still pending: the change goes on
regardless). The operation is watched under its topics' names; each UpdateMetadata checks the
topics it names.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from . import DelayedOperation


@dataclass(slots=True)
class PendingItem:
    """One item of the request: its result when done, and how to tell that it is."""

    key: Hashable
    is_done: Callable[[], bool]
    result: Any
    timed_out: Any
    done: bool = False


class DelayedTopicOperation(DelayedOperation):
    def __init__(self, items: list[PendingItem], respond: Callable[[list[Any]], Any]) -> None:
        super().__init__()
        self.items = items
        self.respond = respond

    def try_complete(self) -> Any | None:
        for item in self.items:
            if not item.done and item.is_done():
                item.done = True
        if all(item.done for item in self.items):
            return self.respond([item.result for item in self.items])
        return None

    def on_expiration(self) -> Any:
        return self.respond([item.result if item.done else item.timed_out
                             for item in self.items])
