"""``python -m protocol.codegen [--schema SCHEMA] [--overlay OVERLAY ...] OUT_DIR [--check]``.

Generates one module per spec of the schema file (``protocol/schema/kafka-3.9.json`` by default,
written by :mod:`protocol.codegen.import_specs`) and the package index. An overlay
(``protocol/schema/kafka-4.1.json`` by default) holds the few newer specs a feature needs
(KIP-848's messages at Kafka 4.1's versions): a spec file it names replaces the base schema's
and its module's header names the overlay.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from protocol.codegen.emit import Origin, emit_index, emit_module, module_name
from protocol.codegen.spec import OVERLAY_PATHS, REPO_ROOT, SCHEMA_PATH, load_schema, merged_specs


def _origin(path: Path) -> Origin:
    try:
        shown = path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:  # a schema outside the repository, named by its file name
        shown = path.name
    return Origin(shown, load_schema(path).release)


def render(schema_path: Path = SCHEMA_PATH,
           overlays: tuple[Path, ...] | list[Path] = OVERLAY_PATHS) -> dict[str, str]:
    """File name -> source for everything the generator owns in the output directory."""
    base = _origin(schema_path)
    origins = {schema_path: base, **{path: _origin(path) for path in overlays}}
    ordered = [(spec, origins[path]) for spec, path in merged_specs(schema_path, overlays)]
    files = {f"{module_name(s.file_name)}.py": emit_module(s, o) for s, o in ordered}
    if len(files) != len(ordered):
        raise SystemExit("two spec files map to the same module name")
    files["__init__.py"] = emit_index([s for s, _ in ordered], base)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol.codegen", description=__doc__)
    parser.add_argument("--schema", type=Path, default=SCHEMA_PATH,
                        help=f"schema file (default {SCHEMA_PATH.relative_to(REPO_ROOT)})")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--check", action="store_true", help="report differences, write nothing")
    parser.add_argument("--overlay", type=Path, action="append",
                        help="an overlay schema whose specs replace the base's (default "
                             + ", ".join(p.relative_to(REPO_ROOT).as_posix() for p in OVERLAY_PATHS)
                             + "); repeatable")
    args = parser.parse_args(argv)

    files = render(args.schema, OVERLAY_PATHS if args.overlay is None else args.overlay)
    existing = {p.name for p in args.out_dir.glob("*.py")} if args.out_dir.is_dir() else set()
    if args.check:
        problems = [f"missing: {n}" for n in sorted(set(files) - existing)]
        problems += [f"extra: {n}" for n in sorted(existing - set(files))]
        problems += [
            f"differs: {n}"
            for n in sorted(set(files) & existing)
            if (args.out_dir / n).read_text(encoding="utf-8") != files[n]
        ]
        for line in problems:
            print(f"{args.out_dir}/{line.split(': ', 1)[1]}: {line.split(':', 1)[0]}")
        if problems:
            print(f"{len(problems)} generated file(s) out of date: run `make gen`", file=sys.stderr)
            return 1
        return 0

    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name in sorted(existing - set(files)):
        (args.out_dir / name).unlink()
    written = 0
    for name, source in sorted(files.items()):
        path = args.out_dir / name
        if not path.exists() or path.read_text(encoding="utf-8") != source:
            path.write_text(source, encoding="utf-8")
            written += 1
    print(f"{len(files)} files in {args.out_dir}, {written} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
