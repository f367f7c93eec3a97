"""Sample messages derived from the spec model, for tests and benchmarks of generated codecs.

Every field present in the requested version gets a distinct value that differs from its
default, so a field that is skipped, swapped or written in the wrong width cannot go unnoticed.
"""

from __future__ import annotations

import itertools
import uuid
from types import ModuleType

from protocol.codegen.spec import FieldSpec, MessageSpec

_LIMITS = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


class SampleBuilder:
    """Builds instances of a generated module's dataclasses for one version.

    With ``nulls`` every field that is nullable in that version is None instead.
    """

    def __init__(self, spec: MessageSpec, module: ModuleType, version: int, nulls: bool = False) -> None:
        self.structs = spec.structs()
        self.module = module
        self.version = version
        self.nulls = nulls
        self.counter = itertools.count(1)

    def scalar(self, type_: str, default: object) -> object:
        k = next(self.counter)
        if type_ in _LIMITS:
            lo, hi = _LIMITS[type_]
            value = hi - k if k % 2 else lo + k  # near the edges, to catch signedness mistakes
            if default is not None and str(value) == str(default):
                value -= 1
            return value
        if type_ == "bool":
            return str(default).lower() != "true"
        if type_ == "float64":
            return k + 0.25
        if type_ == "string":
            return f"s{k}-\u00e9"
        if type_ == "bytes":
            return bytes([k % 256, 0, 255])
        if type_ == "records":
            return b"records-" + bytes([k % 256]) * 5
        if type_ == "uuid":
            return uuid.UUID(int=(k << 64) | k)
        raise ValueError(f"no sample for type {type_}")

    def field_value(self, f: FieldSpec) -> object:
        if self.nulls and self.version in f.nullable_versions:
            return None
        if f.is_array:
            if f.is_struct:
                return [self.struct(f.element_type) for _ in range(2)]
            return [self.scalar(f.element_type, None) for _ in range(2)]
        if f.is_struct:
            return self.struct(f.element_type)
        return self.scalar(f.type, f.default)

    def struct(self, name: str) -> object:
        cls = getattr(self.module, name)
        return cls(
            **{
                f.py_name: self.field_value(f)
                for f in self.structs[name].fields
                if self.version in f.versions
            }
        )


def build_sample(spec: MessageSpec, module: ModuleType, version: int, nulls: bool = False) -> object:
    """A top-level message of ``spec`` for ``version`` with every present field set."""
    return SampleBuilder(spec, module, version, nulls).struct(spec.name)
