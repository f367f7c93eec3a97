"""State tables: a state machine's legal transitions as data, in Kafka's form.

Kafka declares each state machine by the states every state may be entered *from*
(``validPreviousStates``). A :class:`StateTable` is that mapping, kept as data so that it can be
read, tested and drawn (``docs/state-machines.md`` is generated from the tables by
:mod:`pybroker.tools.state_diagrams`), with what every machine needs of it written once: the
legality of a transition, every legal transition, and the error of an illegal one. A
transition the table does not allow is a bug in the machine that tried it, not a client's
error: :meth:`StateTable.check` raises the table's :class:`IllegalTransition`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeVar

S = TypeVar("S", bound=enum.Enum)


def state_name(state: object) -> str:
    """An enum's string value (Kafka's display name), else its member name; else ``str``."""
    if isinstance(state, enum.Enum):
        return state.value if isinstance(state.value, str) else state.name
    return str(state)


class IllegalTransition(RuntimeError):
    """A transition its state table forbids. Subclasses name what moves (:meth:`describe`)."""

    def __init__(self, subject: Any, source: object, target: object,
                 allowed: Iterable[object]) -> None:
        self.subject = subject
        self.source = source
        self.target = target
        to = state_name(target)
        names = ", ".join(sorted(state_name(s) for s in allowed))
        super().__init__(f"{self.describe(subject)} cannot move from {state_name(source)} to "
                         f"{to} ({to} is entered only from: {names})")

    @classmethod
    def describe(cls, subject: Any) -> str:
        """What moves, in the message: ``subject`` as it is by default."""
        return str(subject)


class StateTable(Mapping[S, frozenset[S]]):
    """Each state of an enum mapped to the states it may be entered from.

    ``initial`` is the state a new instance starts in, when there is one; ``error`` the
    exception :meth:`check` raises. Every state of the enum has its row (an empty one for a
    state nothing enters)."""

    __slots__ = ("_previous", "_order", "initial", "error")

    def __init__(self, previous: Mapping[S, Iterable[S]], *, initial: S | None = None,
                 error: type[IllegalTransition] = IllegalTransition) -> None:
        self._previous: dict[S, frozenset[S]] = {t: frozenset(s) for t, s in previous.items()}
        members = list(type(next(iter(self._previous))))
        missing = [m for m in members if m not in self._previous]
        if missing:
            raise ValueError(f"no row for {', '.join(state_name(m) for m in missing)}")
        self._order: dict[S, int] = {m: i for i, m in enumerate(members)}
        self.initial = initial
        self.error = error

    # -- the mapping: target -> the states it is entered from ---------------------------------
    def __getitem__(self, target: S) -> frozenset[S]:
        return self._previous[target]

    def __iter__(self) -> Iterator[S]:
        return iter(self._previous)

    def __len__(self) -> int:
        return len(self._previous)

    def __repr__(self) -> str:
        return f"StateTable({self._previous!r})"

    # -- what the machines ask ----------------------------------------------------------------
    @property
    def states(self) -> list[S]:
        """Every state, in the enum's order."""
        return sorted(self._previous, key=self._order.__getitem__)

    def allows(self, source: S, target: S) -> bool:
        """Whether a machine in ``source`` may move to ``target``."""
        return source in self._previous[target]

    def sources(self, target: S) -> list[S]:
        """The states ``target`` may be entered from, in the enum's order."""
        return sorted(self._previous[target], key=self._order.__getitem__)

    def transitions(self) -> Iterator[tuple[S, S]]:
        """Every allowed ``(source, target)`` pair, for documentation and tests."""
        for target, sources in self._previous.items():
            for source in sources:
                yield source, target

    def check(self, subject: Any, source: S, target: S) -> None:
        """Raise the table's error when ``subject`` may not move from ``source`` to
        ``target``; ``subject`` (a group id, a partition) is formatted only then."""
        allowed = self._previous[target]
        if source not in allowed:
            raise self.error(subject, source, target, allowed)
