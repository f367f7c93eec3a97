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
    _count(message, counts)
    return counts


def _count(message: Any, counts: dict[int, int]) -> None:
    plan = _PLANS.get(type(message)) or _plan(type(message))
    if plan[0]:
        code = message.error_code
        counts[code] = counts.get(code, 0) + 1
    for name in plan[1]:
        value = getattr(message, name)
        if value is None:
            continue
        if value.__class__ is list:
            for item in value:
                _count(item, counts)
        else:
            _count(value, counts)
