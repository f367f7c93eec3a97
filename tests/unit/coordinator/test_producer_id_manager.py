"""Producer ids (pybroker.coordinator.producer_id_manager): blocks reserved at once (the
embedded store) or later (ZooKeeper), prefetched ahead, never an id twice."""

from __future__ import annotations

import asyncio

from pybroker.coordinator.producer_id_manager import ProducerIdManager


class LocalBlocks:
    def __init__(self) -> None:
        self.next = 0
        self.calls = 0

    def allocate_producer_id_block(self, size: int) -> int:
        self.calls += 1
        first, self.next = self.next, self.next + size
        return first


class RemoteBlocks(LocalBlocks):
    """Answers after a round trip, like a compare-and-set on /latest_producer_id_block."""

    def allocate_producer_id_block(self, size: int):  # type: ignore[override]
        first = super().allocate_producer_id_block(size)

        async def later() -> int:
            await asyncio.sleep(0.01)
            return first

        return later()


def test_blocks_reserved_at_once_are_used_in_order_without_prefetching() -> None:
    blocks = LocalBlocks()
    ids = ProducerIdManager(blocks, block_size=10)
    assert [ids.generate_producer_id() for _ in range(25)] == list(range(25))
    assert blocks.calls == 3  # 0-9, 10-19, 20-29: nothing reserved ahead


def test_remote_blocks_are_awaited_then_prefetched_and_never_overlap() -> None:
    async def main() -> None:
        blocks = RemoteBlocks()
        ids = ProducerIdManager(blocks, block_size=10)
        first = [ids.generate_producer_id() for _ in range(3)]
        assert all(isinstance(f, asyncio.Future) for f in first)  # nothing reserved yet
        assert [await f for f in first] == [0, 1, 2]  # type: ignore[misc]
        got = [ids.generate_producer_id() for _ in range(7)]
        assert got == list(range(3, 10))
        # 90% of the block used: the next one was asked for in the background
        await asyncio.sleep(0.05)
        more = [ids.generate_producer_id() for _ in range(5)]
        assert more == list(range(10, 15))  # no wait: it had arrived
        assert blocks.calls == 2

    asyncio.run(main())


def test_many_waiting_requests_span_several_blocks() -> None:
    async def main() -> None:
        ids = ProducerIdManager(RemoteBlocks(), block_size=4)
        pending = [ids.generate_producer_id() for _ in range(10)]
        results = [p if isinstance(p, int) else await p for p in pending]
        assert results == list(range(10))  # in the order they were asked for

    asyncio.run(main())
