"""Hands out producer ids for idempotent producers (InitProducerId).

Ids come from blocks reserved durably, as Kafka reserves them: in the embedded node's metadata
store, in ZooKeeper mode by a compare-and-set on ``/latest_producer_id_block``. A restart never
reuses an id, and two brokers never hand out the same one.

Where reserving a block takes a round trip (ZooKeeper), the next block is fetched in the
background once 90% of the current one is used (as Kafka's ``RPCProducerIdManager`` prefetches),
so requests rarely wait; one that finds no id left gets a future of its id.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable
from typing import Protocol

from pybroker.kernel.outcome import Outcome, is_pending

log = logging.getLogger(__name__)

BLOCK_SIZE = 1000
PREFETCH_AT = 0.9


class ProducerIdBlocks(Protocol):
    def allocate_producer_id_block(self, size: int) -> int | Awaitable[int]:
        """Reserve ``size`` ids and return the first; never the same ids twice."""
        ...


class ProducerIdManager:
    def __init__(self, blocks: ProducerIdBlocks, block_size: int = BLOCK_SIZE) -> None:
        self.blocks = blocks
        self.block_size = block_size
        self._next = 0
        self._end = 0  # exclusive
        self._prefetched: int | None = None  # the first id of a block reserved ahead
        self._fetching: asyncio.Future[int] | None = None
        self._waiting: list[asyncio.Future[int]] = []
        self._remote = False  # the source answers later (ZooKeeper): prefetch blocks

    def generate_producer_id(self) -> Outcome[int]:
        if self._next >= self._end and self._prefetched is not None:
            self._take(self._prefetched)
            self._prefetched = None
        if self._next >= self._end:
            first = self._request_block()
            if first is None:  # on its way
                fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
                self._waiting.append(fut)
                return fut
            self._take(first)
        pid = self._next
        self._next += 1
        if self._remote and self._fetching is None and self._prefetched is None \
                and self._next - (self._end - self.block_size) >= PREFETCH_AT * self.block_size:
            first = self._request_block()
            if first is not None:
                self._prefetched = first
        return pid

    def _take(self, first: int) -> None:
        self._next, self._end = first, first + self.block_size

    def _request_block(self) -> int | None:
        """A block at once when the source answers at once; else None, and it arrives later."""
        if self._fetching is not None:
            return None
        outcome = self.blocks.allocate_producer_id_block(self.block_size)
        if not inspect.isawaitable(outcome):
            return outcome
        self._remote = True
        self._fetching = asyncio.ensure_future(outcome)
        self._fetching.add_done_callback(self._block_arrived)
        return None

    def _block_arrived(self, fut: asyncio.Future[int]) -> None:
        self._fetching = None
        if fut.cancelled() or fut.exception() is not None:
            error = fut.exception() or asyncio.CancelledError()
            log.error("could not reserve a block of producer ids: %r", error)
            waiting, self._waiting = self._waiting, []
            for w in waiting:
                if not w.done():
                    w.set_exception(error)
            return
        if self._next >= self._end:
            self._take(fut.result())
        else:
            self._prefetched = fut.result()
        # answer the waiting requests in order, from this block and then from the next ones
        while self._waiting:
            if self._next >= self._end and self._prefetched is None:
                self._request_block()
                return
            w = self._waiting.pop(0)
            if not w.done():
                pid = self.generate_producer_id()
                assert not is_pending(pid)
                w.set_result(pid)
