"""Fault injection for the in-process broker: rules that make the broker answer a request with an
error, answer it late, never answer it, or close the connection.

A :class:`FaultInjector` is the broker dispatcher's request interceptor
(:class:`pybroker.api.router.RequestInterceptor`): the dispatcher hands it every decoded
request, on the broker's event loop, before the handler. Tests add rules from their own thread (``ApiKey`` and ``ErrorCode`` can be imported from
this module)::

    broker.faults.fail(ApiKey.PRODUCE, ErrorCode.NOT_LEADER_OR_FOLLOWER)       # once
    broker.faults.delay(ApiKey.FETCH, 0.5, times=None)                        # every fetch
    with broker.faults.drop(ApiKey.OFFSET_COMMIT) as rule:                    # removed on exit
        ...
        rule.wait()                                                           # it fired

Rules are tried in the order they were added; the first that matches the request (its API key,
``client_id`` and ``match(request)`` when given) decides, and counts one hit. A rule with
``times=n`` is removed after ``n`` hits; ``times=None`` keeps it until it is removed.

What each kind of rule does to a request:

- ``fail``: the request is *not* handled; the answer carries the error in every ``error_code``
  it has room for (:func:`error_response`: each topic, partition, group or key the request
  named, as Kafka's ``getErrorResponse`` shapes it). A produce with acks=0, which is never
  answered, gets its connection closed instead, as Kafka closes it after such a produce fails.
- ``respond``: the request is not handled; the answer is what the given function builds.
- ``delay``: the request is handled at once and answered ``seconds`` later (later answers on the
  same connection wait behind it, as answers leave in request order).
- ``drop``: the request is handled and never answered: the case of a produce written but not
  acknowledged. The client times the request out and reconnects.
- ``disconnect``: the connection is closed before the request is handled.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from protocol import messages
from protocol.errors import ErrorCode
from protocol.messages import ApiKey
from pybroker.api.context import RequestContext
from pybroker.api.router import Interception

#: ApiKey and ErrorCode are here too, so a test needs one import for its rules
__all__ = ["ApiKey", "ErrorCode", "FaultInjector", "FaultRule", "error_response"]

#: builds a response body for a request: ``(ctx, request) -> body``
Responder = Callable[[RequestContext, Any], Any]
Decide = Callable[[RequestContext, Any], Interception]


class FaultRule:
    """One rule of a :class:`FaultInjector`: which requests it takes and what it does to them."""

    def __init__(self, injector: FaultInjector, api_key: int | None, decide: Decide, *,
                 times: int | None, match: Callable[[Any], bool] | None,
                 client_id: str | None, description: str) -> None:
        if times is not None and times < 1:
            raise ValueError(f"times must be at least 1 (or None for always), not {times}")
        self.injector = injector
        self.api_key = api_key
        self.decide = decide
        self.times = times
        self.match = match
        self.client_id = client_id
        self.description = description
        #: requests this rule has taken so far
        self.hits = 0
        self._fired = threading.Condition(injector._lock)

    def applies_to(self, ctx: RequestContext, request: Any) -> bool:
        if self.api_key is not None and ctx.api_key != self.api_key:
            return False
        if self.client_id is not None and ctx.client_id != self.client_id:
            return False
        return self.match is None or bool(self.match(request))

    @property
    def exhausted(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def remove(self) -> None:
        """Take the rule out (a no-op once it is out)."""
        self.injector.remove(self)

    def wait(self, hits: int = 1, timeout: float = 10.0) -> None:
        """Block until the rule has taken ``hits`` requests; AssertionError after ``timeout``
        seconds."""
        deadline = time.monotonic() + timeout
        with self._fired:
            while self.hits < hits:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"fault rule {self.description} took {self.hits} request(s) of the "
                        f"{hits} awaited within {timeout:.1f}s")
                self._fired.wait(left)

    def __enter__(self) -> FaultRule:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def __repr__(self) -> str:
        times = "always" if self.times is None else f"{self.hits}/{self.times}"
        return f"FaultRule({self.description}, {times})"


class FaultInjector:
    """The rules in force on one broker. Thread-safe: the broker's loop matches requests while
    tests add and remove rules."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []

    # -- the interceptor --------------------------------------------------------------------
    def __call__(self, ctx: RequestContext, request: Any) -> Interception | None:
        if not self._rules:  # read without the lock: a rule added meanwhile waits one request
            return None
        with self._lock:
            for rule in self._rules:
                if rule.applies_to(ctx, request):
                    rule.hits += 1
                    if rule.exhausted:
                        self._rules.remove(rule)
                    rule._fired.notify_all()
                    break
            else:
                return None
        return rule.decide(ctx, request)

    # -- rules ------------------------------------------------------------------------------
    @property
    def rules(self) -> list[FaultRule]:
        with self._lock:
            return list(self._rules)

    def add(self, api_key: int | None, decide: Decide, *, times: int | None = 1,
            match: Callable[[Any], bool] | None = None, client_id: str | None = None,
            description: str = "custom") -> FaultRule:
        """A rule deciding with ``decide(ctx, request)`` for requests of ``api_key`` (None:
        any API)."""
        rule = FaultRule(self, None if api_key is None else int(api_key), decide, times=times,
                         match=match, client_id=client_id, description=description)
        with self._lock:
            self._rules.append(rule)
        return rule

    def fail(self, api_key: int, error: int, *, times: int | None = 1,
             match: Callable[[Any], bool] | None = None,
             client_id: str | None = None) -> FaultRule:
        """Answer requests of ``api_key`` with ``error`` (an :class:`~protocol.errors.ErrorCode`)
        without handling them."""
        code = int(error)

        def decide(ctx: RequestContext, request: Any) -> Interception:
            if ctx.api_key == ApiKey.PRODUCE and request.acks == 0:
                # an acks=0 producer reads no answers: Kafka closes its connection instead
                return Interception(disconnect=True)
            return Interception(respond=error_response(ctx.api_key, request, code))

        return self.add(api_key, decide, times=times, match=match, client_id=client_id,
                        description=f"fail {_api_name(api_key)} with {_error_name(code)}")

    def respond(self, api_key: int, responder: Responder, *, times: int | None = 1,
                match: Callable[[Any], bool] | None = None,
                client_id: str | None = None) -> FaultRule:
        """Answer requests of ``api_key`` with ``responder(ctx, request)`` (a response body of
        the request's type, valid at ``ctx.api_version``) without handling them."""

        def decide(ctx: RequestContext, request: Any) -> Interception:
            return Interception(respond=responder(ctx, request))

        return self.add(api_key, decide, times=times, match=match, client_id=client_id,
                        description=f"respond to {_api_name(api_key)}")

    def delay(self, api_key: int | None, seconds: float, *, times: int | None = 1,
              match: Callable[[Any], bool] | None = None,
              client_id: str | None = None) -> FaultRule:
        """Handle requests of ``api_key`` at once and send their answers ``seconds`` later."""
        if seconds <= 0:
            raise ValueError("a delay must be positive")
        decision = Interception(delay_s=seconds)
        return self.add(api_key, lambda ctx, request: decision, times=times, match=match,
                        client_id=client_id,
                        description=f"delay {_api_name(api_key)} by {seconds}s")

    def drop(self, api_key: int | None, *, times: int | None = 1,
             match: Callable[[Any], bool] | None = None,
             client_id: str | None = None) -> FaultRule:
        """Handle requests of ``api_key`` and never answer them."""
        decision = Interception(drop=True)
        return self.add(api_key, lambda ctx, request: decision, times=times, match=match,
                        client_id=client_id, description=f"drop {_api_name(api_key)} answers")

    def disconnect(self, api_key: int | None, *, times: int | None = 1,
                   match: Callable[[Any], bool] | None = None,
                   client_id: str | None = None) -> FaultRule:
        """Close the connection on requests of ``api_key`` instead of handling them."""
        decision = Interception(disconnect=True)
        return self.add(api_key, lambda ctx, request: decision, times=times, match=match,
                        client_id=client_id, description=f"disconnect on {_api_name(api_key)}")

    def remove(self, rule: FaultRule) -> None:
        with self._lock:
            if rule in self._rules:
                self._rules.remove(rule)

    def clear(self) -> None:
        """Remove every rule."""
        with self._lock:
            self._rules.clear()

    def __repr__(self) -> str:
        return f"FaultInjector({self.rules})"


def _api_name(api_key: int | None) -> str:
    return "any request" if api_key is None else messages.API_NAMES.get(api_key, str(api_key))


def _error_name(code: int) -> str:
    try:
        return ErrorCode(code).name
    except ValueError:
        return str(code)


# -- error responses shaped from their request ------------------------------------------------

#: names of the fields that say *what* an element of a request or response is about, grouped
#: by meaning: a response element takes them from the request element it answers
_IDENTITY_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"name", "topic", "topic_name"}),
    frozenset({"topic_id"}),
    frozenset({"partition", "partition_index", "index", "partition_id"}),
    frozenset({"group_id"}),
    frozenset({"member_id"}),
    frozenset({"group_instance_id"}),
    frozenset({"key"}),
    frozenset({"transactional_id"}),
    frozenset({"resource_type"}),
    frozenset({"resource_name"}),
    frozenset({"producer_id"}),
)
_GROUP_OF = {name: group for group in _IDENTITY_GROUPS for name in group}
#: the identity a bare scalar in a request list stands for (``coordinator_keys: [str]``,
#: ``partition_indexes: [int]``, ``topic_names: [str]``)
_SCALAR_IDENTITY: dict[type, tuple[str, ...]] = {
    str: ("name", "topic", "group_id", "key", "transactional_id"),
    int: ("partition_index", "partition", "index", "producer_id"),
    uuid.UUID: ("topic_id",),
}


_LIST_OF = re.compile(r"list\[(\w+)\](?:\s*\|\s*None)?")


@functools.cache
def _fields(cls: type) -> tuple[tuple[str, type | None], ...]:
    """``(name, X)`` for each field of a generated message class, X the struct class when the
    field is a ``list[X]`` of structs, else None. (The generated modules' annotations are
    strings; only lists of structs matter here.)"""
    module = vars(sys.modules[cls.__module__])
    out = []
    for f in dataclasses.fields(cls):
        if f.name == "unknown_tagged_fields":
            continue
        element = None
        found = _LIST_OF.fullmatch(str(f.type).strip())
        if found is not None:
            candidate = module.get(found.group(1))
            if isinstance(candidate, type) and dataclasses.is_dataclass(candidate):
                element = candidate
        out.append((f.name, element))
    return tuple(out)


@functools.cache
def _carries_errors(cls: type) -> bool:
    """Whether a response struct has an ``error_code`` in it or in a struct it lists."""
    for name, element in _fields(cls):
        if name == "error_code" or (element is not None and _carries_errors(element)):
            return True
    return False


def _identity_fields(cls: type) -> list[str]:
    return [name for name, _ in _fields(cls) if name in _GROUP_OF]


def _source_field(item: Any, target: str) -> str | None:
    """The field of request element ``item`` naming what the response field ``target`` names."""
    group = _GROUP_OF[target]
    if hasattr(item, target):
        return target
    for name in group:
        if hasattr(item, name):
            return name
    return None


def _scalar_target(cls: type, value: Any) -> str | None:
    names = {name for name, _ in _fields(cls)}
    for kind, candidates in _SCALAR_IDENTITY.items():
        if isinstance(value, kind) and not isinstance(value, bool):
            for candidate in candidates:
                if candidate in names:
                    return candidate
    return None


def _score(cls: type, items: list[Any]) -> int:
    """How well a request list's elements match response elements of ``cls``."""
    first = items[0]
    if dataclasses.is_dataclass(first):
        return sum(1 for f in _identity_fields(cls) if _source_field(first, f) is not None)
    return 1 if _scalar_target(cls, first) is not None else 0


def _mirror(cls: type, source: Any, error: int) -> Any:
    out = cls()
    for name, element in _fields(cls):
        if name == "error_code":
            setattr(out, name, error)
            continue
        if element is None or not _carries_errors(element):
            continue
        candidates = [
            (getattr(source, f.name), f.name) for f in dataclasses.fields(source)
            if isinstance(getattr(source, f.name), list) and getattr(source, f.name)
        ]
        best: tuple[int, int, list[Any]] | None = None
        for items, field_name in candidates:
            score = _score(element, items)
            if score and (best is None or (score, field_name == name) > best[:2]):
                best = (score, int(field_name == name), items)
        if best is not None:
            setattr(out, name, [_answer(element, item, error) for item in best[2]])
    return out


def _answer(cls: type, item: Any, error: int) -> Any:
    """The response element of ``cls`` answering request element ``item`` with ``error``."""
    if not dataclasses.is_dataclass(item):
        out = cls()
        target = _scalar_target(cls, item)
        if target is not None:
            setattr(out, target, item)
        if hasattr(out, "error_code"):
            out.error_code = error
        return out
    out = _mirror(cls, item, error)
    for target in _identity_fields(cls):
        source = _source_field(item, target)
        if source is not None:
            setattr(out, target, getattr(item, source))
    return out


def error_response(api_key: int, request: Any, error: int) -> Any:
    """The response to ``request`` that fails all of it with ``error``: every ``error_code``
    set, one element for each topic, partition, group or key the request named (a topic's
    partitions each with the error), every other field at its default.

    Like Kafka's ``AbstractRequest.getErrorResponse``, but shaped generically from the two
    message definitions: a response list takes its elements from the request list whose
    elements share the most identifying fields (name/topic, topic id, partition/index, group,
    member, key, ...)."""
    module = messages.response_module(api_key)
    cls = getattr(module, module.NAME)
    return _mirror(cls, request, int(error))
