"""Scenarios, their registry and the context a scenario runs with (see the package docstring)."""

from __future__ import annotations

import importlib
import json
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from pybroker.compat.capabilities import CAPABILITIES
from pybroker.compat.clients import CLIENTS
from pybroker.compat.security import ClientSecurity

#: every name the suite creates starts with this, then the run id and a dash
PREFIX = "compat-"
DEFAULT_TIMEOUT = 30.0

ScenarioFunction = Callable[..., None]


class ScenarioFailed(AssertionError):
    """The broker did not do what the capability needs; ``evidence`` says what happened."""

    def __init__(self, message: str, evidence: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.evidence = dict(evidence or {})


class ScenarioSkipped(Exception):
    """The scenario cannot run with this client here (the reason is shown in the card)."""


class ScenarioNotOffered(Exception):
    """The broker does not offer what the scenario checks, found out by asking it (a SASL
    mechanism its SaslHandshake does not list, ACLs answered with SECURITY_DISABLED)."""


@dataclass(frozen=True)
class Scenario:
    capability: str
    client: str
    name: str
    timeout: float
    module: str
    function: str
    params: tuple[tuple[str, Any], ...] = ()
    description: str = ""

    @property
    def id(self) -> str:
        return f"{self.client}/{self.name}"

    def load(self) -> ScenarioFunction:
        """The scenario's function (imports its module)."""
        func: ScenarioFunction = getattr(importlib.import_module(self.module), self.function)
        return func


#: every registered scenario by id, in registration order
registry: dict[str, Scenario] = {}


def scenario(
    capability: str,
    *,
    client: str,
    timeout: float = DEFAULT_TIMEOUT,
    name: str | None = None,
    params: dict[str, Any] | None = None,
) -> Callable[[ScenarioFunction], ScenarioFunction]:
    """Register the decorated function as the scenario ``<client>/<name or capability>``.

    The function is returned unchanged, so it can be registered again with other ``params``.
    """
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r} (pybroker.compat.capabilities)")
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r} (pybroker.compat.clients)")
    if timeout <= 0:
        raise ValueError("a scenario's timeout must be positive")

    def register(func: ScenarioFunction) -> ScenarioFunction:
        if "<locals>" in func.__qualname__:
            raise ValueError("a scenario must be a module-level function")
        doc = (func.__doc__ or "").strip().splitlines()
        s = Scenario(
            capability=capability, client=client, name=name or capability,
            timeout=float(timeout), module=func.__module__, function=func.__name__,
            params=tuple(sorted((params or {}).items())), description=doc[0] if doc else "",
        )
        old = registry.get(s.id)
        if old is not None and old != s:
            raise ValueError(f"scenario {s.id} is registered twice")
        registry[s.id] = s
        return func

    return register


def load_scenarios(modules: Iterable[str] | None = None) -> dict[str, Scenario]:
    """Import the scenario modules (by default :data:`SCENARIO_MODULES`); the registry."""
    if modules is None:
        from pybroker.compat.scenarios import SCENARIO_MODULES

        modules = SCENARIO_MODULES
    for module in modules:
        importlib.import_module(module)
    return registry


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


@dataclass
class Context:
    """What a scenario gets: the broker's address, names it owns, a deadline, evidence."""

    bootstrap: str
    run_id: str
    scenario_id: str
    #: time.monotonic() by which the scenario is killed
    deadline: float
    #: evidence is appended here as JSON lines, so it survives the scenario being killed
    evidence_path: Path | None = None
    attached: dict[str, Any] = field(default_factory=dict)
    #: how every client connects (``--security-protocol`` and friends; anonymous PLAINTEXT)
    security: ClientSecurity = field(default_factory=ClientSecurity)

    # -- client settings -----------------------------------------------------------------------

    def kafka_python(self, security: ClientSecurity | None = None) -> dict[str, Any]:
        """kafka-python's connection arguments: ``bootstrap_servers`` and the security ones."""
        return {"bootstrap_servers": self.bootstrap,
                **(security or self.security).kafka_python()}

    def aiokafka(self, security: ClientSecurity | None = None) -> dict[str, Any]:
        """aiokafka's connection arguments: ``bootstrap_servers`` and the security ones."""
        return {"bootstrap_servers": self.bootstrap, **(security or self.security).aiokafka()}

    def confluent(self, security: ClientSecurity | None = None) -> dict[str, Any]:
        """confluent-kafka's connection properties (``bootstrap.servers`` and the security
        ones, then ``--client-property`` values)."""
        return {"bootstrap.servers": self.bootstrap, **(security or self.security).confluent()}

    # -- names -----------------------------------------------------------------------------

    @property
    def prefix(self) -> str:
        """Every name of this run starts with it; cleanup deletes what does."""
        return f"{PREFIX}{self.run_id}-"

    def _name(self, kind: str, suffix: str) -> str:
        return f"{self.prefix}{slug(self.scenario_id.replace('/', '-'))}-{kind}{suffix}"

    def topic(self, suffix: str = "") -> str:
        """A topic name of this scenario (``suffix`` tells several apart)."""
        return self._name("t", suffix)

    def group(self, suffix: str = "") -> str:
        """A consumer group id of this scenario."""
        return self._name("g", suffix)

    def create_topic(self, suffix: str = "", partitions: int = 1,
                     configs: dict[str, str] | None = None) -> str:
        """Create :meth:`topic` ``(suffix)`` over the protocol (through the controller, with
        the broker's default replication factor), wait until its partitions have leaders, and
        return its name. Scenarios create their topics so as not to need auto-creation."""
        from pybroker.compat.admin import create_topic

        name = self.topic(suffix)
        create_topic(self.bootstrap, name, partitions, configs,
                     timeout=max(1.0, min(20.0, self.remaining() - 1.0)), security=self.security)
        return name

    def transactional_id(self, suffix: str = "") -> str:
        """A transactional id of this scenario (Kafka cannot delete these; they expire)."""
        return self._name("x", suffix)

    # -- time --------------------------------------------------------------------------------

    def remaining(self) -> float:
        """Seconds left before the scenario is killed."""
        return max(0.0, self.deadline - time.monotonic())

    def wait_until(
        self, predicate: Callable[[], Any], what: str, timeout: float | None = None,
        interval: float = 0.1,
    ) -> Any:
        """Poll ``predicate`` until it returns something true; fail saying ``what`` did not
        happen within ``timeout`` (default: until shortly before the deadline)."""
        limit = self.remaining() - 1.0 if timeout is None else min(timeout, self.remaining())
        end = time.monotonic() + max(0.0, limit)
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() >= end:
                self.fail(f"{what} did not happen within {max(0.0, limit):.1f}s",
                          last_value=value)
            time.sleep(interval)

    # -- evidence and outcomes ---------------------------------------------------------------

    def evidence(self, label: str, value: Any) -> None:
        """Attach ``value`` (JSON, else its repr) under ``label`` to the scenario's result."""
        value = jsonable(value)
        self.attached[label] = value
        if self.evidence_path is not None:
            with self.evidence_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"label": label, "value": value}) + "\n")

    def log(self, message: str) -> None:
        """A line in the scenario's output (kept with its result)."""
        print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    def fail(self, message: str, **evidence: Any) -> NoReturn:
        for label, value in evidence.items():
            self.evidence(label, value)
        raise ScenarioFailed(message, {k: jsonable(v) for k, v in evidence.items()})

    def check(self, condition: object, message: str, **evidence: Any) -> None:
        """Fail with ``message`` and ``evidence`` unless ``condition`` holds."""
        if not condition:
            self.fail(message, **evidence)

    def skip(self, reason: str) -> NoReturn:
        raise ScenarioSkipped(reason)

    def not_offered(self, reason: str) -> NoReturn:
        """Report the capability *not offered* (the broker said so when asked)."""
        raise ScenarioNotOffered(reason)


def jsonable(value: Any) -> Any:
    """``value`` as JSON data: bytes as text where they decode, else hex; others by repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return "0x" + raw.hex()
    if isinstance(value, dict):
        return {str(jsonable(k)): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    return repr(value)
