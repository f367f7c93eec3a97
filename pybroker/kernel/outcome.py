"""Results that come now or later: :data:`Outcome` and the helpers that map them.

A subsystem answers at once when it can (the leader is the whole ISR, the coordinator is this
broker, the controller is local) and with a future otherwise (a purgatory, ZooKeeper, another
broker). Its callers map either without knowing which, and without a task in between: the
helpers run ``fn`` on the spot for a result, or in a done-callback of the future, so an
answer that is ready costs a function call and one that is not costs one future.

* :func:`is_pending`: whether an outcome is (still) a future, the one place that asks.
* :func:`when_ready` maps an outcome, :func:`chain` maps it with a function that may itself
  answer later, :func:`then` maps a future; a failed or cancelled future fails or cancels
  the mapped one.
* :func:`when_settled` maps a failure too, into a value (a coordinator answering
  UNKNOWN_SERVER_ERROR rather than failing).
* :func:`gather`: a list of outcomes as one.
* :func:`settle` completes a future unless it is done already; :class:`Answer` turns a
  callback that is called now or later into an outcome.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

if TYPE_CHECKING:
    from typing_extensions import TypeIs

T = TypeVar("T")
R = TypeVar("R")

#: a result now, or a future of it
Outcome: TypeAlias = T | asyncio.Future[T]

_Future = asyncio.Future


def is_pending(outcome: Outcome[T]) -> TypeIs[asyncio.Future[T]]:
    """Whether ``outcome`` is a future (done or not) rather than a result."""
    return isinstance(outcome, _Future)


def settle(fut: asyncio.Future[T], result: T) -> None:
    """Complete ``fut`` with ``result`` unless it is done already (answered, cancelled)."""
    if not fut.done():
        fut.set_result(result)


def _finish(out: asyncio.Future[R], fn: Callable[[Any], R], arg: Any) -> None:
    """``out`` completed with ``fn(arg)``: failed with what ``fn`` raises, cancelled when that
    is a cancellation."""
    try:
        result = fn(arg)
    except asyncio.CancelledError:
        out.cancel()
    except Exception as e:
        out.set_exception(e)
    else:
        out.set_result(result)


def then(fut: asyncio.Future[T], fn: Callable[[T], R]) -> asyncio.Future[R]:
    """A future of ``fn(fut.result())``, without a task in between."""
    out: asyncio.Future[R] = fut.get_loop().create_future()

    def relay(f: asyncio.Future[T]) -> None:
        if out.done():
            return
        if f.cancelled():
            out.cancel()
        elif (exc := f.exception()) is not None:
            out.set_exception(exc)
        else:
            _finish(out, fn, f.result())

    fut.add_done_callback(relay)
    return out


def when_ready(outcome: Outcome[T], fn: Callable[[T], R]) -> Outcome[R]:
    """``fn(result)`` now when ``outcome`` is a result, else a future of it."""
    if isinstance(outcome, _Future):
        return then(outcome, fn)
    return fn(outcome)


def chain(outcome: Outcome[T], fn: Callable[[T], Outcome[R]]) -> Outcome[R]:
    """``fn(result)`` now when ``outcome`` is a result; else a future of what ``fn`` gives once
    it is known, itself awaited if it is a future."""
    if not isinstance(outcome, _Future):
        return fn(outcome)
    out: asyncio.Future[R] = outcome.get_loop().create_future()

    def relay(f: asyncio.Future[R]) -> None:
        if out.done():
            return
        if f.cancelled():
            out.cancel()
        elif (exc := f.exception()) is not None:
            out.set_exception(exc)
        else:
            out.set_result(f.result())

    def first(f: asyncio.Future[T]) -> None:
        if out.done():
            return
        if f.cancelled():
            out.cancel()
            return
        if (exc := f.exception()) is not None:
            out.set_exception(exc)
            return
        try:
            nxt = fn(f.result())
        except asyncio.CancelledError:
            out.cancel()
            return
        except Exception as e:
            out.set_exception(e)
            return
        if isinstance(nxt, _Future):
            nxt.add_done_callback(relay)
        else:
            out.set_result(nxt)

    outcome.add_done_callback(first)
    return out


def when_settled(outcome: Outcome[T], fn: Callable[[T], R],
                 failed: Callable[[BaseException], R]) -> Outcome[R]:
    """``fn(result)``, or ``failed(error)`` when the future fails or is cancelled (the error a
    :class:`asyncio.CancelledError` then): now when ``outcome`` is a result, else a future of
    it. What ``fn`` or ``failed`` raise fails the future (a cancellation cancels it)."""
    if not isinstance(outcome, _Future):
        return fn(outcome)
    out: asyncio.Future[R] = outcome.get_loop().create_future()

    def relay(f: asyncio.Future[T]) -> None:
        if out.done():
            return
        if f.cancelled():
            _finish(out, failed, asyncio.CancelledError())
        elif (exc := f.exception()) is not None:
            _finish(out, failed, exc)
        else:
            _finish(out, fn, f.result())

    outcome.add_done_callback(relay)
    return out


def gather(outcomes: Sequence[Outcome[T]]) -> Outcome[list[T]]:
    """Every result, in order: a list now when none is a future, else a future of the list,
    failed by the first of them to fail (cancelled by the first cancelled)."""
    pending = [o for o in outcomes if isinstance(o, _Future)]
    if not pending:
        return list(outcomes)  # type: ignore[arg-type]  # (no future among them)
    out: asyncio.Future[list[T]] = pending[0].get_loop().create_future()
    left = len(pending)

    def arrived(f: asyncio.Future[T]) -> None:
        nonlocal left
        if out.done():
            return
        if f.cancelled():
            out.cancel()
        elif (exc := f.exception()) is not None:
            out.set_exception(exc)
        else:
            left -= 1
            if not left:
                out.set_result([o.result() if isinstance(o, _Future) else o for o in outcomes])

    for f in pending:
        f.add_done_callback(arrived)
    return out


class Answer(Generic[T]):
    """The outcome of a call that answers through a callback: pass the answer as the callback,
    then take :meth:`outcome`, the value when the callback came before, else a future of it."""

    __slots__ = ("value", "future")

    def __init__(self) -> None:
        self.value: list[T] = []
        self.future: asyncio.Future[T] | None = None

    def __call__(self, value: T) -> None:
        if self.future is None:
            self.value.append(value)
        else:
            settle(self.future, value)

    def outcome(self) -> Outcome[T]:
        if self.value:
            return self.value[0]
        self.future = asyncio.get_running_loop().create_future()
        return self.future
