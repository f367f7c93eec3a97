import asyncio

from pybroker.kernel.outcome import then
from pybroker.purgatory import DelayedOperation, Purgatory


class WaitForValue(DelayedOperation):
    def __init__(self, box: dict, wanted: int) -> None:
        super().__init__()
        self.box = box
        self.wanted = wanted

    def try_complete(self):
        return "ready" if self.box["value"] >= self.wanted else None

    def on_expiration(self):
        return "expired"


def test_completes_at_once_when_the_condition_already_holds():
    async def main():
        p = Purgatory("test")
        fut = p.try_complete_else_watch(WaitForValue({"value": 5}, 1), ["k"], 10_000)
        assert fut.done() and fut.result() == "ready"
        assert len(p) == 0

    asyncio.run(main())


def test_a_check_on_a_watched_key_completes_the_operation():
    async def main():
        box = {"value": 0}
        p = Purgatory("test")
        fut = p.try_complete_else_watch(WaitForValue(box, 2), ["a", "b"], 10_000)
        assert not fut.done() and len(p) == 1
        assert p.check_and_complete("b") == 0  # condition still false
        box["value"] = 2
        assert p.check_and_complete("other") == 0
        assert p.check_and_complete("a") == 1
        assert fut.result() == "ready"
        await asyncio.sleep(0)
        assert len(p) == 0 and p._watchers == {}

    asyncio.run(main())


def test_expiry_answers_with_the_expiration_response():
    async def main():
        p = Purgatory("test")
        fut = p.try_complete_else_watch(WaitForValue({"value": 0}, 1), ["k"], 10)
        assert await asyncio.wait_for(fut, 5) == "expired"

    asyncio.run(main())


def test_then_maps_results_and_propagates_errors():
    async def main():
        loop = asyncio.get_running_loop()
        f = loop.create_future()
        g = then(f, lambda x: x * 2)
        f.set_result(21)
        assert await g == 42
        f2 = loop.create_future()
        g2 = then(f2, lambda x: x)
        f2.set_exception(ValueError("boom"))
        try:
            await g2
        except ValueError as e:
            assert str(e) == "boom"
        else:
            raise AssertionError("error not propagated")

    asyncio.run(main())


def test_a_delayed_fetch_reads_only_when_it_may_have_news():
    from pybroker.purgatory.delayed_fetch import DelayedFetch

    async def main():
        state = {"news": False, "bytes": 0, "reads": 0}

        def read():
            state["reads"] += 1
            return ["result"], state["bytes"], False

        p = Purgatory("fetch")
        op = DelayedFetch(read, 1, lambda: state["news"])
        fut = p.try_complete_else_watch(op, ["a"], 10_000)
        assert not fut.done() and state["reads"] == 0
        p.check_and_complete("a")
        assert state["reads"] == 0
        state["news"] = True
        p.check_and_complete("a")  # news, but not min_bytes of it
        assert state["reads"] == 1 and not fut.done()
        state["bytes"] = 5
        p.check_and_complete("a")
        assert fut.result() == ["result"] and state["reads"] == 2

    asyncio.run(main())
