"""The kernel's outcomes: results now or later, mapped without a task in between."""

from __future__ import annotations

import asyncio

import pytest

from pybroker.kernel.outcome import (
    Answer,
    chain,
    gather,
    is_pending,
    settle,
    then,
    when_ready,
    when_settled,
)


def test_a_result_is_mapped_at_once() -> None:
    assert not is_pending(3)
    assert when_ready(3, lambda x: x + 1) == 4
    assert chain(3, lambda x: x * 2) == 6
    assert when_settled(3, lambda x: x - 1, lambda _e: -1) == 2
    assert gather([1, 2]) == [1, 2]


def test_a_future_is_mapped_when_it_is_done() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[int] = loop.create_future()
        mapped = when_ready(fut, lambda x: x + 1)
        assert is_pending(mapped) and not mapped.done()
        fut.set_result(1)
        assert await mapped == 2

        inner: asyncio.Future[int] = loop.create_future()
        chained = chain(5, lambda x: inner)
        assert chained is inner
        outer: asyncio.Future[int] = loop.create_future()
        chained = chain(outer, lambda x: inner)
        outer.set_result(0)
        await asyncio.sleep(0)
        assert isinstance(chained, asyncio.Future) and not chained.done()
        inner.set_result(7)
        assert await chained == 7

    asyncio.run(main())


def test_failures_and_cancellations_carry_over() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        failing: asyncio.Future[int] = loop.create_future()
        mapped = then(failing, lambda x: x)
        failing.set_exception(ValueError("boom"))
        with pytest.raises(ValueError):
            await mapped

        cancelled: asyncio.Future[int] = loop.create_future()
        mapped = then(cancelled, lambda x: x)
        cancelled.cancel()
        await asyncio.sleep(0)
        assert mapped.cancelled()

        fut: asyncio.Future[int] = loop.create_future()
        raising = when_ready(fut, lambda x: 1 // x)
        fut.set_result(0)
        with pytest.raises(ZeroDivisionError):
            await raising

    asyncio.run(main())


def test_when_settled_answers_a_failure_with_a_value() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        seen: list[BaseException] = []

        def failed(e: BaseException) -> int:
            seen.append(e)
            return -1

        failing: asyncio.Future[int] = loop.create_future()
        mapped = when_settled(failing, lambda x: x, failed)
        failing.set_exception(ValueError("boom"))
        assert await mapped == -1

        cancelled: asyncio.Future[int] = loop.create_future()
        mapped = when_settled(cancelled, lambda x: x, failed)
        cancelled.cancel()
        assert await mapped == -1
        assert [type(e) for e in seen] == [ValueError, asyncio.CancelledError]

    asyncio.run(main())


def test_gather_keeps_the_order_and_waits_for_every_future() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        a: asyncio.Future[int] = loop.create_future()
        b: asyncio.Future[int] = loop.create_future()
        both = gather([a, 2, b])
        b.set_result(3)
        await asyncio.sleep(0)
        assert isinstance(both, asyncio.Future) and not both.done()
        a.set_result(1)
        assert await both == [1, 2, 3]

        c: asyncio.Future[int] = loop.create_future()
        failed = gather([1, c])
        c.set_exception(KeyError("k"))
        with pytest.raises(KeyError):
            await failed

    asyncio.run(main())


def test_settle_and_answer() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[int] = loop.create_future()
        settle(fut, 1)
        settle(fut, 2)  # answered already: ignored
        assert fut.result() == 1
        fut = loop.create_future()
        fut.cancel()
        settle(fut, 3)  # cancelled: ignored

        now: Answer[str] = Answer()
        now("at once")
        assert now.outcome() == "at once"
        later: Answer[str] = Answer()
        outcome = later.outcome()
        assert is_pending(outcome)
        later("later")
        assert await outcome == "later"

    asyncio.run(main())
