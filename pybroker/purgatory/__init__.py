"""Delayed operations: requests parked until a condition holds or their timeout passes.

Like Kafka's DelayedOperationPurgatory, an operation is watched under keys (topic-partitions);
whoever changes what a key names (an append, a high-watermark move) calls
:meth:`Purgatory.check_and_complete` for it. Completion is attempted once when the operation is
parked, on every check of one of its keys, and forced when its timer fires. All of it runs on
the event loop that owns the partitions, so no locking is needed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable, Iterable
from typing import Any


class DelayedOperation:
    """Subclasses implement :meth:`try_complete` (return the response when the condition holds,
    else ``None``) and :meth:`on_expiration` (the response when time is up)."""

    def __init__(self) -> None:
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._timer: asyncio.TimerHandle | None = None
        self.keys: tuple[Hashable, ...] = ()

    def try_complete(self) -> Any | None:
        raise NotImplementedError

    def on_expiration(self) -> Any:
        raise NotImplementedError

    @property
    def completed(self) -> bool:
        return self.future.done()

    def _complete(self, response: Any) -> None:
        if self.future.done():
            return
        if self._timer is not None:
            self._timer.cancel()
        self.future.set_result(response)


class Purgatory:
    def __init__(self, name: str) -> None:
        self.name = name
        self._watchers: dict[Hashable, list[DelayedOperation]] = {}

    def __len__(self) -> int:
        """Operations still waiting (each counted once, however many keys it watches)."""
        return len({id(op) for ops in self._watchers.values() for op in ops if not op.completed})

    @property
    def watched(self) -> int:
        """The watch entries: an operation once per key it watches (Kafka's
        ``PurgatorySize``; ``len()`` is its ``NumDelayedOperations``)."""
        return sum(len(ops) for ops in self._watchers.values())

    def try_complete_else_watch(self, op: DelayedOperation, keys: Iterable[Hashable],
                                timeout_ms: int) -> asyncio.Future[Any]:
        response = op.try_complete()
        if response is not None:
            op._complete(response)
            return op.future
        op.keys = tuple(keys)
        for key in op.keys:
            self._watchers.setdefault(key, []).append(op)
        loop = asyncio.get_running_loop()
        op._timer = loop.call_later(max(timeout_ms, 0) / 1000, self._expire, op)
        op.future.add_done_callback(lambda _f: self._unwatch(op))
        return op.future

    def check_and_complete(self, key: Hashable) -> int:
        """Try to complete every operation watching ``key``; returns how many completed."""
        ops = self._watchers.get(key)
        if not ops:
            return 0
        done = 0
        for op in list(ops):
            if op.completed:
                continue
            try:
                response = op.try_complete()
            except Exception as e:  # a failed check fails that request alone
                op.future.set_exception(e)
                continue
            if response is not None:
                op._complete(response)
                done += 1
        return done

    def _expire(self, op: DelayedOperation) -> None:
        if op.completed:
            return
        try:
            op._complete(op.on_expiration())
        except Exception as e:
            if not op.future.done():
                op.future.set_exception(e)

    def _unwatch(self, op: DelayedOperation) -> None:
        for key in op.keys:
            ops = self._watchers.get(key)
            if ops is None:
                continue
            try:
                ops.remove(op)
            except ValueError:
                pass
            if not ops:
                del self._watchers[key]

    def shutdown(self) -> None:
        for ops in list(self._watchers.values()):
            for op in list(ops):
                if not op.completed:
                    op.future.cancel()
        self._watchers.clear()
