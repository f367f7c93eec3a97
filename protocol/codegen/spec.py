"""The message-spec model, and the in-repository schema it is loaded from.

Kafka describes every message in a JSON-with-comments spec. :mod:`protocol.codegen.import_specs`
reads a folder of those specs once and keeps what the generator uses (names, types, versions,
tags, defaults, nullability, flexible versions, listeners) in one schema file committed under
``protocol/schema/``; :func:`load_schema` turns that file back into the same model, so neither
``make gen`` nor the tests need Kafka's source tree.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
#: The schema the committed code in protocol/messages is generated from.
SCHEMA_PATH = REPO_ROOT / "protocol" / "schema" / "kafka-3.9.json"
#: newer specs that replace the base schema's, file by file (KIP-848's messages at 4.1)
OVERLAY_PATHS = (REPO_ROOT / "protocol" / "schema" / "kafka-4.1.json",)

PRIMITIVES = frozenset(
    {"bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64",
     "string", "bytes", "records", "uuid"}
)


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


# -- the schema file --------------------------------------------------------------------------
#
# One JSON document: a header saying which Kafka release the specs came from, then one object
# per spec file, sorted by file name, with Kafka's own key names.  Keys whose value is the
# model's default are left out.  Each field sits on its own line (nested fields indented under
# their parent), so re-importing a newer Kafka shows up in a diff field by field.

SCHEMA_FORMAT = 1
_MESSAGE_KEYS = ("file", "name", "type", "apiKey", "validVersions", "flexibleVersions",
                 "latestVersionUnstable", "listeners", "fields", "commonStructs")
_FIELD_KEYS = ("name", "type", "versions", "nullableVersions", "taggedVersions", "tag",
               "default", "flexibleVersions", "fields")
_HEADER_KEYS = ("@generated", "format", "kafka", "importer", "messages")
_GENERATED = "by `make import-specs` from Apache Kafka's message spec folder. DO NOT EDIT."


@dataclass
class Schema:
    """A schema file: where its specs came from, and the specs."""

    kafka_tag: str  # the Kafka release (git tag) the specs were imported from, e.g. 3.9.0-rc3
    kafka_commit: str | None  # that tag's commit, when the spec folder recorded it
    importer: str
    specs: list[MessageSpec]

    @property
    def release(self) -> str:
        """``3.9`` for ``3.9.0-rc3``: the release line, as the docs and headers name it."""
        return kafka_release(self.kafka_tag)


def kafka_release(tag: str) -> str:
    m = re.match(r"v?(\d+)\.(\d+)(?:[.-]|$)", tag)
    if m is None:
        raise ValueError(f"not a Kafka version: {tag!r} (expected e.g. 3.9.0)")
    return f"{m[1]}.{m[2]}"


def _field_to_json(f: FieldSpec) -> dict:
    out: dict = {"name": f.name, "type": f.type, "versions": str(f.versions)}
    if not f.nullable_versions.empty:
        out["nullableVersions"] = str(f.nullable_versions)
    if not f.tagged_versions.empty:
        out["taggedVersions"] = str(f.tagged_versions)
    if f.tag is not None:
        out["tag"] = f.tag
    if f.default is not None:
        out["default"] = f.default
    if f.never_flexible:
        out["flexibleVersions"] = "none"
    if f.fields:
        out["fields"] = [_field_to_json(c) for c in f.fields]
    return out


def spec_to_json(spec: MessageSpec) -> dict:
    """The schema form of one spec (plain JSON values, keys in Kafka's order)."""
    out: dict = {"file": spec.file_name, "name": spec.name, "type": spec.type}
    if spec.api_key is not None:
        out["apiKey"] = spec.api_key
    out["validVersions"] = str(spec.valid_versions)
    out["flexibleVersions"] = str(spec.flexible_versions)
    if spec.latest_version_unstable:
        out["latestVersionUnstable"] = True
    if spec.listeners:
        out["listeners"] = list(spec.listeners)
    out["fields"] = [_field_to_json(f) for f in spec.fields]
    if spec.common_structs:
        out["commonStructs"] = [
            {"name": s.name, "fields": [_field_to_json(f) for f in s.fields]}
            for s in spec.common_structs
        ]
    return out


def _check_keys(raw: dict, allowed: tuple[str, ...], where: str) -> None:
    unknown = set(raw) - set(allowed)
    if unknown:
        raise ValueError(f"{where}: unknown schema key(s) {sorted(unknown)}")


def _field_from_json(raw: dict, where: str) -> FieldSpec:
    where = f"{where}.{raw.get('name')}"
    _check_keys(raw, _FIELD_KEYS, where)
    flexible = raw.get("flexibleVersions")
    if flexible not in (None, "none"):
        raise ValueError(f"{where}: field flexibleVersions other than 'none': {flexible!r}")
    return FieldSpec(
        name=raw["name"],
        type=raw["type"],
        versions=VersionRange.parse(raw["versions"]),
        nullable_versions=VersionRange.parse(raw.get("nullableVersions")),
        tagged_versions=VersionRange.parse(raw.get("taggedVersions")),
        tag=raw.get("tag"),
        default=raw.get("default"),
        never_flexible=flexible == "none",
        fields=[_field_from_json(c, where) for c in raw.get("fields", [])],
    )


def spec_from_json(raw: dict) -> MessageSpec:
    where = raw.get("file", "?")
    _check_keys(raw, _MESSAGE_KEYS, where)
    return MessageSpec(
        file_name=raw["file"],
        name=raw["name"],
        type=raw["type"],
        api_key=raw.get("apiKey"),
        valid_versions=VersionRange.parse(raw["validVersions"]),
        flexible_versions=VersionRange.parse(raw["flexibleVersions"]),
        listeners=tuple(raw.get("listeners", ())),
        latest_version_unstable=raw.get("latestVersionUnstable", False),
        fields=[_field_from_json(f, where) for f in raw["fields"]],
        common_structs=[
            StructSpec(s["name"], [_field_from_json(f, f"{where}.{s['name']}") for f in s["fields"]])
            for s in raw.get("commonStructs", [])
        ],
    )


def _render(value: object, indent: str) -> str:
    """Compact JSON, except that lists of objects put each object on its own line."""
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            if isinstance(item, list) and item and all(isinstance(i, dict) for i in item):
                inner = indent + "  "
                body = ",\n".join(inner + _render(i, inner) for i in item)
                parts.append(f"{json.dumps(key)}: [\n{body}\n{indent}]")
            else:
                parts.append(f"{json.dumps(key)}: {_render(item, indent)}")
        return "{" + ", ".join(parts) + "}"
    return json.dumps(value, separators=(", ", ": "))


def dump_schema(schema: Schema) -> str:
    """The schema file's text: deterministic, one spec field per line."""
    names = [s.file_name for s in schema.specs]
    if names != sorted(names) or len(set(names)) != len(names):
        raise ValueError("specs must be sorted by file name, each file once")
    kafka: dict = {"tag": schema.kafka_tag}
    if schema.kafka_commit is not None:
        kafka["commit"] = schema.kafka_commit
    lines = [
        "{",
        f'  "@generated": {json.dumps(_GENERATED)},',
        f'  "format": {SCHEMA_FORMAT},',
        f'  "kafka": {_render(kafka, "  ")},',
        f'  "importer": {json.dumps(schema.importer)},',
        '  "messages": [',
        ",\n".join("    " + _render(spec_to_json(s), "    ") for s in schema.specs),
        "  ]",
        "}",
    ]
    return "\n".join(lines) + "\n"


def parse_schema(text: str) -> Schema:
    raw = json.loads(text)
    _check_keys(raw, _HEADER_KEYS, "schema")
    if raw.get("format") != SCHEMA_FORMAT:
        raise ValueError(f"schema format {raw.get('format')!r}; this generator reads {SCHEMA_FORMAT}")
    kafka = raw["kafka"]
    schema = Schema(
        kafka_tag=kafka["tag"],
        kafka_commit=kafka.get("commit"),
        importer=raw["importer"],
        specs=[spec_from_json(m) for m in raw["messages"]],
    )
    names = [s.file_name for s in schema.specs]
    if names != sorted(names) or len(set(names)) != len(names):
        raise ValueError("schema messages must be sorted by file name, each file once")
    return schema


def load_schema(path: Path = SCHEMA_PATH) -> Schema:
    """Read a schema file written by :mod:`protocol.codegen.import_specs`."""
    return parse_schema(path.read_text(encoding="utf-8"))


def merged_specs(schema_path: Path = SCHEMA_PATH,
                 overlays: tuple[Path, ...] | list[Path] = OVERLAY_PATHS,
                 ) -> list[tuple[MessageSpec, Path]]:
    """The specs the generator emits, with the schema each comes from, in file-name order: the
    base schema's, each replaced by an overlay's spec of the same file name or of the same API
    (one renamed since: 3.9's ListClientMetricsResources is 4.1's ListConfigResources)."""
    chosen: dict[str, tuple[MessageSpec, Path]] = {
        s.file_name: (s, schema_path) for s in load_schema(schema_path).specs}
    for path in overlays:
        for spec in load_schema(path).specs:
            if spec.api_key is not None:
                for name, (old, _) in list(chosen.items()):
                    if (old.api_key, old.type) == (spec.api_key, spec.type) \
                            and name != spec.file_name:
                        del chosen[name]
            chosen[spec.file_name] = (spec, path)
    return [chosen[name] for name in sorted(chosen)]

