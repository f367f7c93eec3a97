"""How many times each error code occurs in a decoded message (Kafka's
``AbstractResponse.errorCounts``, which the broker's ``ErrorsPerSec`` metric marks once per
occurrence: a Produce answered with three failed partitions counts three).

Every ``error_code`` field counts, at any depth: the response's own and those of its topics,
partitions and other entries. What to walk is worked out once per message class, from its
fields' annotations (a field whose type names another struct of the same generated module is
walked), so a response is read without looking at the fields that cannot hold an error (the
records of a fetch, names, offsets).
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable
from typing import Any

_NAME = re.compile(r"[A-Za-z_]\w*")

#: per message class: (does it have an error_code field, the fields to walk)
_PLANS: dict[type, tuple[bool, tuple[str, ...]]] = {}


def _plan(cls: type) -> tuple[bool, tuple[str, ...]]:
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    module = vars(sys.modules[cls.__module__])
    has_error = False
    nested: list[str] = []
    for f in dataclasses.fields(cls):
        if f.name == "error_code":
            has_error = True
            continue
        annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
        if any(dataclasses.is_dataclass(module.get(n)) for n in _NAME.findall(annotation)):
            nested.append(f.name)
    plan = _PLANS[cls] = (has_error, tuple(nested))
    return plan


def error_counts(message: Any) -> dict[int, int]:
    """Each error code in ``message`` (a generated message or struct) and how often it occurs."""
    counts: dict[int, int] = {}
    cls = type(message)
    (COUNTERS.get(cls) or counter(cls))(message, counts)
    return counts


def counter(cls: type) -> Callable[[Any, dict[int, int]], None]:
    """The walk of ``cls``'s messages: called with ``(message, counts)``, it adds each error
    code of the message to ``counts``. Compiled on the first call and kept in
    :data:`COUNTERS`, which a caller on a hot path reads first (``COUNTERS.get(cls) or
    counter(cls)``: no call of this module per message)."""
    return COUNTERS.get(cls) or _compile(cls)


#: per message class: a function of (message, counts) made from its plan: the walk unrolled
#: into nested loops, without a call per struct (it runs for every response)
COUNTERS: dict[type, Callable[[Any, dict[int, int]], None]] = {}


def _compile(cls: type) -> Callable[[Any, dict[int, int]], None]:
    lines = ["def count(m, counts):"]
    _emit(cls, "m", 1, lines, (cls,))
    if len(lines) == 1:
        lines.append("    pass")
    namespace: dict[str, Any] = {"_count": _count_any}
    exec("\n".join(lines), namespace)  # noqa: S102 - code made here from the class's fields
    walk: Callable[[Any, dict[int, int]], None] = namespace["count"]
    COUNTERS[cls] = walk
    return walk


def _emit(cls: type, var: str, depth: int, lines: list[str], outer: tuple[type, ...]) -> None:
    """The statements that count the errors of ``var``, an instance of ``cls``."""
    pad = "    " * depth
    has_error, nested = _PLANS.get(cls) or _plan(cls)
    if has_error:
        lines.append(f"{pad}c = {var}.error_code")
        lines.append(f"{pad}counts[c] = counts.get(c, 0) + 1")
    module = vars(sys.modules[cls.__module__])
    types = _annotations(cls)
    for name in nested:
        annotation = types[name]
        kinds = {module[n] for n in _NAME.findall(annotation)
                 if dataclasses.is_dataclass(module.get(n))}
        kinds = {k for k in kinds if _may_hold_error(k, ())}
        if not kinds:
            continue  # nothing below it can hold an error code
        value = f"v{len(lines)}"
        if len(kinds) != 1 or next(iter(kinds)) in outer:  # a union or a recursive struct
            lines.append(f"{pad}_count({var}.{name}, counts)")
            continue
        (kind,) = kinds
        lines.append(f"{pad}{value} = {var}.{name}")
        lines.append(f"{pad}if {value} is not None:")
        if annotation.startswith("list[") or annotation.startswith("List["):
            item = f"i{len(lines)}"
            lines.append(f"{pad}    for {item} in {value}:")
            _emit(kind, item, depth + 2, lines, (*outer, kind))
        else:
            _emit(kind, value, depth + 1, lines, (*outer, kind))


def _annotations(cls: type) -> dict[str, str]:
    """Each field's annotation, as text."""
    return {f.name: f.type if isinstance(f.type, str) else str(f.type)
            for f in dataclasses.fields(cls)}


def _may_hold_error(cls: type, outer: tuple[type, ...]) -> bool:
    """Whether ``cls`` or a struct below it has an error_code field."""
    has_error, nested = _PLANS.get(cls) or _plan(cls)
    if has_error:
        return True
    module = vars(sys.modules[cls.__module__])
    types = _annotations(cls)
    for name in nested:
        annotation = types[name]
        for n in _NAME.findall(annotation):
            kind = module.get(n)
            if (dataclasses.is_dataclass(kind) and isinstance(kind, type) and kind not in outer
                    and (kind is cls or _may_hold_error(kind, (*outer, cls)))):
                return True
    return False


def _count_any(value: Any, counts: dict[int, int]) -> None:
    """The generic walk of a field's value: a struct, a list of them, or None."""
    if value is None:
        return
    if value.__class__ is list:
        for item in value:
            _count(item, counts)
    else:
        _count(value, counts)


def _count(message: Any, counts: dict[int, int]) -> None:
    plan = _PLANS.get(type(message)) or _plan(type(message))
    if plan[0]:
        code = message.error_code
        counts[code] = counts.get(code, 0) + 1
    for name in plan[1]:
        _count_any(getattr(message, name), counts)
