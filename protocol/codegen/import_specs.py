"""``python -m protocol.codegen.import_specs SPEC_DIR [--out SCHEMA] [--kafka-version TAG] [--only FILES]``.

Reads a folder of Apache Kafka's JSON message specs (``common/message/*.json`` from the clients,
group-coordinator and transaction-coordinator modules, in any sub-folders) and writes the
schema file that ``make gen`` and the tests read (``protocol/schema/kafka-3.9.json`` by default).

Only what the generator uses is kept; prose (``about``) and the keys nothing here reads are
dropped, and a key this importer does not know stops it, so a newer Kafka cannot add a
feature that is silently lost.  The Kafka release comes from the folder's ``PINNED`` file
(``tag: ...`` and ``commit: ...`` lines) or, without one, from ``--kafka-version``.

``--only`` keeps the named spec files (comma-separated), for an overlay of newer specs
(``protocol/schema/kafka-4.1.json``: KIP-848's messages from Kafka 4.1's jars, ``make
import-specs-4.1``). Kafka 4 types its ``__consumer_offsets`` record schemas
``coordinator-key`` and ``coordinator-value`` (the record type in ``apiKey``, version 0) where
3.9 typed them ``data`` (the record type as the key's version); both are kept as Kafka wrote them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from protocol.codegen.spec import (
    REPO_ROOT,
    SCHEMA_PATH,
    FieldSpec,
    MessageSpec,
    Schema,
    StructSpec,
    VersionRange,
    dump_schema,
    kafka_release,
    parse_schema,
    spec_from_json,
    spec_to_json,
)

IMPORTER = "protocol.codegen.import_specs"

# Keys of Kafka's specs that the generator does not use; anything else unknown is an error.
_MESSAGE_KEYS = {"apiKey", "type", "listeners", "name", "validVersions", "flexibleVersions",
                 "latestVersionUnstable", "fields", "commonStructs"}
_MESSAGE_DROPPED = {"deprecatedVersions"}  # informational in Kafka too
_FIELD_KEYS = {"name", "type", "versions", "nullableVersions", "taggedVersions", "tag",
               "default", "flexibleVersions", "fields"}
# Prose, and Java-generator hints: entity types for ACL tooling, map keys and zero-copy
# buffers for the Java classes, "ignorable" for Java's writers of older versions.
_FIELD_DROPPED = {"about", "entityType", "mapKey", "zeroCopy", "ignorable"}
_STRUCT_KEYS = {"name", "fields"}
_STRUCT_DROPPED = {"versions"}  # a common struct's own versions; its fields carry theirs


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


def _check(raw: dict, known: set[str], dropped: set[str], where: str) -> None:
    unknown = set(raw) - known - dropped
    if unknown:
        raise ValueError(f"{where}: spec key(s) the generator does not know: {sorted(unknown)}")


def _parse_field(raw: dict, where: str) -> FieldSpec:
    where = f"{where}.{raw.get('name')}"
    _check(raw, _FIELD_KEYS, _FIELD_DROPPED, where)
    flexible = raw.get("flexibleVersions")
    if flexible not in (None, "none"):
        raise ValueError(f"{where}: field flexibleVersions {flexible!r} (only 'none' is supported)")
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
        never_flexible=flexible == "none",
        fields=[_parse_field(f, where) for f in raw.get("fields", [])],
    )


def parse_message(path: Path) -> MessageSpec:
    """One of Kafka's commented JSON spec files, as the generator's model."""
    raw = json.loads(strip_comments(path.read_text(encoding="utf-8")))
    where = path.name
    _check(raw, _MESSAGE_KEYS, _MESSAGE_DROPPED, where)
    for s in raw.get("commonStructs", []):
        _check(s, _STRUCT_KEYS, _STRUCT_DROPPED, f"{where}.{s.get('name')}")
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
        fields=[_parse_field(f, where) for f in raw.get("fields", [])],
        common_structs=[
            StructSpec(s["name"], [_parse_field(f, f"{where}.{s['name']}") for f in s["fields"]])
            for s in raw.get("commonStructs", [])
        ],
    )


def load_spec_dir(spec_dir: Path, only: set[str] | None = None) -> list[MessageSpec]:
    """Every ``*.json`` under ``spec_dir`` (recursively), sorted by file name; with ``only``,
    just those file names (each must be there)."""
    paths = sorted(spec_dir.rglob("*.json"), key=lambda p: (p.name, str(p)))
    if only is not None:
        missing = only - {p.name for p in paths}
        if missing:
            raise ValueError(f"not under {spec_dir}: {sorted(missing)}")
        paths = [p for p in paths if p.name in only]
    if not paths:
        raise ValueError(f"no *.json message specs under {spec_dir}")
    specs = [parse_message(p) for p in paths]
    seen: set[str] = set()
    for s in specs:
        if s.file_name in seen:
            raise ValueError(f"duplicate spec file name {s.file_name}")
        seen.add(s.file_name)
    return specs


def read_pinned(spec_dir: Path) -> tuple[str, str | None] | None:
    """``(tag, commit)`` from ``spec_dir/PINNED``, or None when there is no such file."""
    path = spec_dir / "PINNED"
    if not path.is_file():
        return None
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("tag", "commit") and value.split():
            found[key.strip()] = value.split()[0]
    if "tag" not in found:
        raise ValueError(f"{path} has no 'tag: ...' line")
    return found["tag"], found.get("commit")


def import_specs(spec_dir: Path, kafka_version: str | None = None,
                 only: set[str] | None = None) -> Schema:
    """The schema of a spec folder; its Kafka release from PINNED, else ``kafka_version``."""
    pinned = read_pinned(spec_dir)
    if pinned is not None:
        tag, commit = pinned
        if kafka_version is not None and kafka_version != tag:
            raise ValueError(f"{spec_dir}/PINNED says {tag}, not {kafka_version}")
    elif kafka_version is None:
        raise ValueError(f"{spec_dir} has no PINNED file: give the Kafka version its specs come "
                         "from (make import-specs KAFKA_VERSION=..., or --kafka-version)")
    else:
        tag, commit = kafka_version, None
    kafka_release(tag)  # a version the headers can name
    schema = Schema(kafka_tag=tag, kafka_commit=commit, importer=IMPORTER,
                    specs=load_spec_dir(spec_dir, only))
    # The schema must give back exactly the model the specs gave.
    for spec in schema.specs:
        if spec_from_json(spec_to_json(spec)) != spec:
            raise ValueError(f"{spec.file_name}: does not survive the schema round trip")
    if parse_schema(dump_schema(schema)) != schema:
        raise ValueError("the schema file does not read back as written")
    return schema


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {IMPORTER}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec_dir", type=Path, help="a folder of Kafka's JSON message specs")
    parser.add_argument("--out", type=Path, default=SCHEMA_PATH,
                        help=f"schema file to write (default {SCHEMA_PATH.relative_to(REPO_ROOT)})")
    parser.add_argument("--kafka-version", help="the Kafka tag the specs come from (without PINNED)")
    parser.add_argument("--only", help="comma-separated spec file names to keep (an overlay)")
    args = parser.parse_args(argv)
    only = None if args.only is None else {n.strip() for n in args.only.split(",") if n.strip()}
    if not args.spec_dir.is_dir():
        parser.error(f"{args.spec_dir} is not a folder")
    try:
        schema = import_specs(args.spec_dir, args.kafka_version, only)
    except ValueError as exc:
        print(f"import_specs: {exc}", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump_schema(schema), encoding="utf-8")
    commit = f" ({schema.kafka_commit})" if schema.kafka_commit else ""
    print(f"{len(schema.specs)} specs from Apache Kafka {schema.kafka_tag}{commit} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
