"""The registry of API handlers: each handler module registers its key and version range here,
and ApiVersions answers from this table, so what is advertised is exactly what is served."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

from protocol import messages
from protocol.messages import ApiKey
from pybroker.kernel.outcome import Outcome

T = TypeVar("T")

#: what a handler returns: the response, or a future of it when it must wait (purgatory)
Response: TypeAlias = Outcome[T]

Handler = Callable[[Any, Any], Any]

#: the broker's modes: the embedded single node, and a broker of a ZooKeeper-mode cluster
EMBEDDED = "embedded"
ZOOKEEPER = "zookeeper"
ALL_MODES = frozenset({EMBEDDED, ZOOKEEPER})


@dataclass(frozen=True, slots=True)
class ApiHandler:
    api_key: ApiKey
    name: str
    min_version: int
    max_version: int
    handle: Handler
    module: str
    #: the modes that serve (and advertise) this API: the controller's requests to brokers
    #: exist only in a ZooKeeper-mode cluster
    modes: frozenset[str] = ALL_MODES
    #: what docs/apis.md says of it instead of "served" (an API answered as Kafka answers it
    #: when the feature behind it is off)
    status: str | None = None

    def supports(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version


#: api key -> handler; the dispatcher looks keys up with the number read from the wire
HANDLERS: dict[int, ApiHandler] = {}


def api(api_key: ApiKey, min_version: int, max_version: int, *,
        modes: frozenset[str] = ALL_MODES, status: str | None = None,
        ) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of ``api_key`` for the given versions.

    A handler takes ``(ctx, request)`` and returns the response dataclass, ``None`` for no
    response (acks=0 produce), or an awaitable of the response when it must wait (purgatory).
    """
    lo, hi = messages.request_module(api_key).VALID_VERSIONS
    if not (lo <= min_version <= max_version <= hi):
        raise ValueError(f"api {api_key}: {min_version}-{max_version} outside the spec's {lo}-{hi}")

    def register(fn: Handler) -> Handler:
        if api_key in HANDLERS:
            raise ValueError(f"api {api_key} registered twice")
        HANDLERS[api_key] = ApiHandler(
            api_key,
            messages.API_NAMES[api_key],
            min_version,
            max_version,
            fn,
            fn.__module__,
            frozenset(modes),
            status,
        )
        return fn

    return register


def load_handlers(mode: str | None = EMBEDDED) -> dict[int, ApiHandler]:
    """Import every module of :mod:`pybroker.api` so each registers itself; the handlers a
    broker in ``mode`` serves (None: every handler)."""
    import pybroker.api as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in {"registry", "context", "services"}:
            importlib.import_module(f"pybroker.api.{info.name}")
    return {k: h for k, h in HANDLERS.items() if mode is None or mode in h.modes}

