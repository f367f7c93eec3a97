"""The message-spec model: Kafka's commented JSON parsed into plain dataclasses."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

PRIMITIVES = frozenset(
    {"bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64",
     "string", "bytes", "records", "uuid"}
)


def strip_comments(text: str) -> str:
    """Drop ``//`` and ``/* */`` comments outside string literals (the specs are JSON + comments)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class VersionRange:
    """An inclusive range of versions; ``hi`` is None for open ranges ("3+")."""

    lo: int
    hi: int | None

    @classmethod
    def parse(cls, text: str | None) -> VersionRange:
        if text is None:
            return NO_VERSIONS
        text = str(text).strip()
        if text == "none":
            return NO_VERSIONS
        if text.endswith("+"):
            return cls(int(text[:-1]), None)
        if "-" in text:
            lo, hi = text.split("-", 1)
            return cls(int(lo), int(hi))
        return cls(int(text), int(text))

    @property
    def empty(self) -> bool:
        return self.hi is not None and self.hi < self.lo

    def __contains__(self, version: int) -> bool:
        return self.lo <= version and (self.hi is None or version <= self.hi)

    def __str__(self) -> str:
        if self.empty:
            return "none"
        if self.hi is None:
            return f"{self.lo}+"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


NO_VERSIONS = VersionRange(0, -1)


def snake_case(name: str) -> str:
    """``TopicId`` -> ``topic_id``, ``isKRaftController`` -> ``is_kraft_controller``."""
    name = name.replace("KRaft", "Kraft")
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    name = re.sub(r"([a-z\d])([A-Z])", r"\1_\2", name)
    return name.lower()


@dataclass
class FieldSpec:
    name: str
    type: str
    versions: VersionRange
    nullable_versions: VersionRange = NO_VERSIONS
    tagged_versions: VersionRange = NO_VERSIONS
    tag: int | None = None
    default: object = None
    never_flexible: bool = False  # "flexibleVersions": "none" (RequestHeader.ClientId)
    fields: list[FieldSpec] = field(default_factory=list)

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def element_type(self) -> str:
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self) -> bool:
        """True for struct fields and arrays of structs."""
        return self.element_type not in PRIMITIVES

    @property
    def py_name(self) -> str:
        import keyword

        name = snake_case(self.name)
        return name + "_" if keyword.iskeyword(name) else name


@dataclass
class StructSpec:
    name: str
    fields: list[FieldSpec]


@dataclass
class MessageSpec:
    file_name: str
    name: str
    type: str
    api_key: int | None
    valid_versions: VersionRange
    flexible_versions: VersionRange
    listeners: tuple[str, ...]
    latest_version_unstable: bool
    fields: list[FieldSpec]
    common_structs: list[StructSpec]

    @property
    def versions(self) -> range:
        hi = self.valid_versions.hi
        assert hi is not None, f"{self.name}: open validVersions"
        return range(self.valid_versions.lo, hi + 1)

    def structs(self) -> dict[str, StructSpec]:
        """Every struct by type name, children before parents, the top-level struct last."""
        known: dict[str, StructSpec] = {}
        for common in self.common_structs:
            known[common.name] = common
        ordered: dict[str, StructSpec] = {}

        def visit(struct: StructSpec) -> None:
            for f in struct.fields:
                if not f.is_struct:
                    continue
                child_name = f.element_type
                if f.fields:
                    if child_name in known and known[child_name].fields is not f.fields:
                        raise ValueError(f"{self.name}: struct {child_name} defined twice")
                    known[child_name] = StructSpec(child_name, f.fields)
                elif child_name not in known:
                    raise ValueError(f"{self.name}: unknown struct type {child_name}")
                visit(known[child_name])
            ordered.setdefault(struct.name, struct)

        for common in self.common_structs:
            visit(common)
        top = StructSpec(self.name, self.fields)
        if self.name in known:
            raise ValueError(f"{self.name}: a nested struct shares the message name")
        visit(top)
        return ordered


def _parse_field(raw: dict) -> FieldSpec:
    tag = raw.get("tag")
    return FieldSpec(
        name=raw["name"],
        type=raw["type"],
        versions=VersionRange.parse(raw.get("versions")),
        nullable_versions=VersionRange.parse(raw.get("nullableVersions")),
        tagged_versions=VersionRange.parse(raw.get("taggedVersions")),
        tag=None if tag is None else int(tag),
        # A JSON null default means the same as the string "null".
        default="null" if "default" in raw and raw["default"] is None else raw.get("default"),
        never_flexible=raw.get("flexibleVersions") == "none",
        fields=[_parse_field(f) for f in raw.get("fields", [])],
    )


def parse_message(path: Path) -> MessageSpec:
    raw = json.loads(strip_comments(path.read_text(encoding="utf-8")))
    api_key = raw.get("apiKey")
    return MessageSpec(
        file_name=path.name,
        name=raw["name"],
        type=raw["type"],
        api_key=None if api_key is None else int(api_key),
        valid_versions=VersionRange.parse(raw["validVersions"]),
        flexible_versions=VersionRange.parse(raw.get("flexibleVersions", "none")),
        listeners=tuple(raw.get("listeners", ())),
        latest_version_unstable=bool(raw.get("latestVersionUnstable", False)),
        fields=[_parse_field(f) for f in raw.get("fields", [])],
        common_structs=[
            StructSpec(s["name"], [_parse_field(f) for f in s["fields"]])
            for s in raw.get("commonStructs", [])
        ],
    )


def load_specs(spec_dir: Path) -> list[MessageSpec]:
    """Every ``*.json`` under ``spec_dir`` (recursively), sorted by file name."""
    paths = sorted(spec_dir.rglob("*.json"), key=lambda p: (p.name, str(p)))
    specs = [parse_message(p) for p in paths]
    seen: dict[str, str] = {}
    for s in specs:
        if s.file_name in seen:
            raise ValueError(f"duplicate spec file name {s.file_name}")
        seen[s.file_name] = s.name
    return specs
