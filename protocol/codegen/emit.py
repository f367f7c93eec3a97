"""Turn a :class:`~protocol.codegen.spec.MessageSpec` into the source of one Python module.

Every (struct, version) pair gets a flat reader and writer with no version tests left at run
time.  Versions whose encoding is identical share one function, named after the first version
with that encoding, which keeps the output small.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from protocol.codegen.spec import FieldSpec, MessageSpec, StructSpec, snake_case

KAFKA_RELEASE = "3.9"

# struct format characters of the fixed-width types
FIXED = {
    "bool": "?",
    "int8": "b",
    "int16": "h",
    "uint16": "H",
    "int32": "i",
    "uint32": "I",
    "int64": "q",
    "float64": "d",
}
READ_FIXED = {
    "bool": "boolean",
    "int8": "int8",
    "int16": "int16",
    "uint16": "uint16",
    "int32": "int32",
    "uint32": "uint32",
    "int64": "int64",
    "float64": "float64",
}
PY_TYPES = {
    "bool": "bool",
    "float64": "float",
    "string": "str",
    "bytes": "bytes",
    "records": "RecordsData",
    "uuid": "uuid.UUID",
    **{t: "int" for t in ("int8", "int16", "uint16", "int32", "uint32", "int64")},
}
RESERVED_LOCALS = {"r", "w", "m"}


def _lit(text: str) -> str:
    """A double-quoted Python string literal."""
    return json.dumps(text)


def _tuple(items: tuple[str, ...]) -> str:
    if len(items) == 1:
        return f"({_lit(items[0])},)"
    return "(" + ", ".join(_lit(i) for i in items) + ")"


def module_name(file_name: str) -> str:
    """``ProduceRequest.json`` -> ``produce_request``."""
    return snake_case(file_name.removesuffix(".json"))


@dataclass(frozen=True)
class Form:
    """How one field is encoded in one version."""

    flexible: bool  # compact lengths for strings, bytes, records and arrays
    nullable: bool


class _Module:
    def __init__(self, spec: MessageSpec) -> None:
        self.spec = spec
        self.structs = spec.structs()
        self.structs_used: dict[str, str] = {}  # format -> constant name
        self.helpers_used: set[str] = set()
        self.uses_uuid = False
        self.uses_records = False

    # -- shared ------------------------------------------------------------------------------

    def struct_const(self, fmt: str) -> str:
        name = "_S_" + fmt.lstrip(">").replace("?", "x")
        self.structs_used[fmt] = name
        return name

    def helper(self, name: str) -> str:
        self.helpers_used.add(name)
        return name

    def is_flexible(self, version: int) -> bool:
        return version in self.spec.flexible_versions

    def form(self, f: FieldSpec, version: int) -> Form:
        flexible = self.is_flexible(version) and not f.never_flexible
        return Form(flexible, version in f.nullable_versions)

    def default_value(self, f: FieldSpec) -> str | None:
        """The field's default as a Python expression; None when it needs a default factory."""
        t = f.type
        raw = f.default
        is_null = raw == "null"
        if f.is_array or f.is_struct:
            return "None" if is_null else None
        if t == "records":
            return "None"
        if is_null:
            return "None"
        if t == "bool":
            if raw is None:
                return "False"
            if isinstance(raw, bool):
                return repr(raw)
            return {"true": "True", "false": "False"}[str(raw).lower()]
        if t in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
            return "0" if raw is None else str(int(str(raw), 0))
        if t == "float64":
            return "0.0" if raw is None else repr(float(raw))
        if t == "string":
            return '""' if raw is None else _lit(str(raw))
        if t == "bytes":
            return 'b""'
        if t == "uuid":
            return "ZERO_UUID"
        raise ValueError(f"{self.spec.name}.{f.name}: unsupported type {t}")

    def default_expr(self, f: FieldSpec) -> str:
        """An expression building a fresh default value (for tagged fields in generated code)."""
        value = self.default_value(f)
        if value is not None:
            return value
        return "[]" if f.is_array else f"{f.element_type}()"

    def annotation(self, f: FieldSpec) -> str:
        base = f.element_type if f.is_struct else PY_TYPES[f.element_type]
        ann = f"list[{base}]" if f.is_array else base
        if not f.nullable_versions.empty or self.default_value(f) == "None":
            ann += " | None"
        return ann

    # -- dataclasses ---------------------------------------------------------------------------

    def emit_class(self, struct: StructSpec) -> list[str]:
        lines = ["@dataclass(slots=True)", f"class {struct.name}:"]
        for f in struct.fields:
            if f.py_name in RESERVED_LOCALS:
                raise ValueError(f"{self.spec.name}.{f.name}: field name clashes with a local")
            if f.element_type == "uuid":
                self.uses_uuid = True
            if f.element_type == "records":
                self.uses_records = True
            value = self.default_value(f)
            if value is None:
                factory = "list" if f.is_array else f.element_type
                value = f"_field(default_factory={factory})"
            elif value == "ZERO_UUID":
                self.helper("ZERO_UUID")
            lines.append(f"    {f.py_name}: {self.annotation(f)} = {value}")
        lines.append("    unknown_tagged_fields: list[tuple[int, bytes]] | None = None")
        return lines

    # -- readers -------------------------------------------------------------------------------

    def read_value(self, f: FieldSpec, form: Form, version: int, names: dict) -> str:
        """A single expression reading a non-array value of ``f``'s element type."""
        t = f.element_type
        if t in FIXED:
            return f"r.{READ_FIXED[t]}()"
        if t == "uuid":
            return "r.uuid()"
        if t == "string":
            return "r." + ("compact_" if form.flexible else "") + (
                "nullable_string()" if form.nullable else "string()"
            )
        if t == "bytes":
            if form.flexible:
                return "r.compact_nullable_bytes()" if form.nullable else "r.compact_bytes()"
            return "r.nullable_bytes()" if form.nullable else "r.bytes_()"
        if t == "records":
            return "r.compact_records()" if form.flexible else "r.records()"
        return f"{names[(t, version)][0]}(r)"

    def read_field(
        self, f: FieldSpec, version: int, names: dict, tagged: bool = False
    ) -> list[str]:
        form = self.form(f, version)
        var = f.py_name
        what = f"{self.spec.name}.{f.name}"
        if f.is_array:
            length = "r.compact_array_length()" if form.flexible else "r.array_length()"
            elem = FIXED.get(f.element_type)
            if elem:
                items = f'r.fixed_array("{elem}", _n)'
            else:
                items = f"[{self.read_value(f, Form(form.flexible, False), version, names)} for _ in range(_n)]"
            lines = [f"_n = {length}"]
            if form.nullable:
                lines.append(f"{var} = None if _n < 0 else {items}")
            else:
                lines.append("if _n < 0:")
                lines.append(f'    raise ProtocolError("non-nullable array {what} is null")')
                lines.append(f"{var} = {items}")
            return lines
        expr = self.read_value(f, form, version, names)
        if f.is_struct and form.nullable:
            marker = "r.uvarint() == 0" if tagged else "r.int8() < 0"
            return [f"{var} = None if {marker} else {expr}"]
        lines = [f"{var} = {expr}"]
        if f.element_type == "records" and not form.nullable:
            lines.append(f"if {var} is None:")
            lines.append(f'    raise ProtocolError("non-nullable field {what} is null")')
        return lines

    def read_body(self, struct: StructSpec, version: int, names: dict) -> list[str]:
        present = [f for f in struct.fields if version in f.versions]
        plain = [f for f in present if version not in f.tagged_versions]
        tagged = sorted((f for f in present if version in f.tagged_versions), key=lambda f: f.tag)
        body: list[str] = []
        run: list[FieldSpec] = []

        def flush() -> None:
            if len(run) == 1:
                body.append(f"{run[0].py_name} = r.{READ_FIXED[run[0].type]}()")
            elif run:
                const = self.struct_const(">" + "".join(FIXED[f.type] for f in run))
                body.append(f"{', '.join(f.py_name for f in run)} = r.unpack({const})")
            run.clear()

        for f in plain:
            if f.type in FIXED:
                run.append(f)
                continue
            flush()
            body.extend(self.read_field(f, version, names))
        flush()
        args = [f"{f.py_name}={f.py_name}" for f in plain + tagged]
        if self.is_flexible(version):
            if not tagged:
                body.append("unknown_tagged_fields = r.tagged_fields()")
            else:
                for f in tagged:
                    body.append(f"{f.py_name} = {self.default_expr(f)}")
                body.append("unknown_tagged_fields = None")
                body.append("for _ in range(r.uvarint()):")
                body.append("    _tag = r.uvarint()")
                body.append("    _size = r.uvarint()")
                for i, f in enumerate(tagged):
                    body.append(f"    {'if' if i == 0 else 'elif'} _tag == {f.tag}:")
                    body.append("        _end = r.pos + _size")
                    body.extend("        " + s for s in self.read_field(f, version, names, True))
                    body.append("        if r.pos != _end:")
                    body.append(
                        f'            raise ProtocolError("tagged field {self.spec.name}.{f.name} '
                        'does not match its size")'
                    )
                body.append("    else:")
                body.append(
                    "        unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)"
                )
            args.append("unknown_tagged_fields=unknown_tagged_fields")
        body.append(f"return {struct.name}({', '.join(args)})")
        return body

    # -- writers -------------------------------------------------------------------------------

    def write_field(
        self, f: FieldSpec, version: int, names: dict, value: str, out: str, tagged: bool = False
    ) -> list[str]:
        """Statements appending ``value`` (an expression naming the field) to ``out``."""
        form = self.form(f, version)
        t = f.element_type
        if f.is_array:
            lines = [f"_v = {value}"]
            if form.nullable:
                fn = "write_compact_array_length" if form.flexible else "write_array_length"
                lines.append(f"{self.helper(fn)}({out}, _v)")
            elif form.flexible:
                lines.append(f"{self.helper('write_uvarint')}({out}, len(_v) + 1)")
            else:
                lines.append(f"{out} += {self.struct_const('>i')}.pack(len(_v))")
            # a null array has no elements to write
            indent = ""
            if form.nullable:
                lines.append("if _v:")
                indent = "    "
            if t in FIXED:
                lines.append(f'{indent}{self.helper("write_fixed_array")}({out}, "{FIXED[t]}", _v)')
            else:
                lines.append(f"{indent}for _e in _v:")
                lines.extend(
                    f"{indent}    " + s
                    for s in self.write_value(f, Form(form.flexible, False), version, names, "_e", out)
                )
            return lines
        if f.is_struct and form.nullable:
            null_marker, marker = ("0", "1") if tagged else ("255", "1")
            return [
                f"_v = {value}",
                "if _v is None:",
                f"    {out}.append({null_marker})",
                "else:",
                f"    {out}.append({marker})",
                *("    " + s for s in self.write_value(f, form, version, names, "_v", out)),
            ]
        return self.write_value(f, form, version, names, value, out)

    def write_value(
        self, f: FieldSpec, form: Form, version: int, names: dict, value: str, out: str
    ) -> list[str]:
        t = f.element_type
        if t in FIXED:
            return [f"{out} += {self.struct_const('>' + FIXED[t])}.pack({value})"]
        if t == "uuid":
            return [f"{out} += {value}.bytes"]
        if t in ("string", "bytes", "records"):
            if t == "records":
                fn = "write_compact_records" if form.flexible else "write_records"
            else:
                fn = "write_" + ("compact_" if form.flexible else "") + (
                    "nullable_" if form.nullable else ""
                ) + t
            return [f"{self.helper(fn)}({out}, {value})"]
        return [f"{names[(t, version)][1]}({out}, {value})"]

    def write_body(self, struct: StructSpec, version: int, names: dict) -> list[str]:
        present = [f for f in struct.fields if version in f.versions]
        plain = [f for f in present if version not in f.tagged_versions]
        tagged = sorted((f for f in present if version in f.tagged_versions), key=lambda f: f.tag)
        body: list[str] = []
        run: list[FieldSpec] = []

        def flush() -> None:
            if run:
                const = self.struct_const(">" + "".join(FIXED[f.type] for f in run))
                body.append(f"w += {const}.pack({', '.join('m.' + f.py_name for f in run)})")
            run.clear()

        for f in plain:
            if f.type in FIXED:
                run.append(f)
                continue
            flush()
            body.extend(self.write_field(f, version, names, f"m.{f.py_name}", "w"))
        flush()
        if self.is_flexible(version):
            fn = self.helper("write_tagged_fields")
            if not tagged:
                body.append(f"{fn}(w, m.unknown_tagged_fields)")
            else:
                body.append("_known = []")
                for f in tagged:
                    default = self.default_expr(f)
                    test = "is not None" if default == "None" else f"!= {default}"
                    body.append(f"if m.{f.py_name} {test}:")
                    body.append(f"    _t = {self.helper('Writer')}()")
                    body.extend(
                        "    " + s
                        for s in self.write_field(f, version, names, f"m.{f.py_name}", "_t", True)
                    )
                    body.append(f"    _known.append(({f.tag}, _t))")
                body.append(f"{fn}(w, m.unknown_tagged_fields, _known)")
        if not body:
            body.append("pass")
        return body

    # -- functions -----------------------------------------------------------------------------

    def reachable(self) -> dict[str, list[int]]:
        """For every struct, the message versions in which it can appear."""
        found: dict[str, set[int]] = {name: set() for name in self.structs}

        def visit(struct: StructSpec, version: int) -> None:
            if version in found[struct.name]:
                return
            found[struct.name].add(version)
            for f in struct.fields:
                if f.is_struct and version in f.versions:
                    visit(self.structs[f.element_type], version)

        for v in self.spec.versions:
            visit(self.structs[self.spec.name], v)
        return {name: sorted(vs) for name, vs in found.items()}

    def emit_functions(self) -> tuple[list[str], list[str]]:
        """(function definitions, top-level aliases) for every reachable (struct, version)."""
        names: dict[tuple[str, int], tuple[str, str]] = {}
        out: list[str] = []
        aliases: list[str] = []
        top = self.spec.name
        for struct_name, versions in self.reachable().items():
            struct = self.structs[struct_name]
            seen: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[str, str]] = {}
            for v in versions:
                rbody = tuple(self.read_body(struct, v, names))
                wbody = tuple(self.write_body(struct, v, names))
                key = (rbody, wbody)
                if struct_name == top:
                    rname, wname = f"read_v{v}", f"write_v{v}"
                else:
                    rname, wname = f"_read_{struct_name}_v{v}", f"_write_{struct_name}_v{v}"
                if key in seen:
                    names[(struct_name, v)] = seen[key]
                    if struct_name == top:
                        aliases.append(f"read_v{v} = {seen[key][0]}")
                        aliases.append(f"write_v{v} = {seen[key][1]}")
                    continue
                seen[key] = names[(struct_name, v)] = (rname, wname)
                out.append("")
                out.append("")
                out.append(f"def {rname}(r: Reader) -> {struct_name}:")
                out.extend("    " + s for s in rbody)
                out.append("")
                out.append("")
                out.append(f"def {wname}(w: Writer, m: {struct_name}) -> None:")
                out.extend("    " + s for s in wbody)
        return out, aliases

    def emit(self) -> str:
        spec = self.spec
        classes: list[str] = []
        for struct in self.structs.values():
            classes.append("")
            classes.append("")
            classes.extend(self.emit_class(struct))
        functions, aliases = self.emit_functions()
        lo = spec.valid_versions.lo
        hi = spec.valid_versions.hi
        flex = spec.flexible_versions
        if flex.empty or (hi is not None and flex.lo > hi):
            flexible = "None"
        else:
            flexible = f"({flex.lo}, {hi if flex.hi is None else min(flex.hi, hi)})"
        self.helpers_used.update({"Reader", "Writer", "decode_message", "encode_message"})
        if self.uses_records:
            self.helpers_used.add("RecordsData")
        head = [
            f"# Generated from {spec.file_name} (Apache Kafka {KAFKA_RELEASE}) by protocol.codegen.",
            "# Do not edit: change the generator or the spec and run `make gen`.",
            "",
            "from __future__ import annotations",
            "",
        ]
        if self.structs_used:
            head.append("import struct as _struct")
        if self.uses_uuid:
            head.append("import uuid  # noqa: F401  (annotations)")
        head.append("from dataclasses import dataclass")
        if any("_field(" in line for line in classes):
            head[-1] = "from dataclasses import dataclass, field as _field"
        head.append("")
        if any("ProtocolError" in line for line in functions):
            head.append("from protocol.errors import ProtocolError")
        helpers = sorted(self.helpers_used, key=lambda s: (not s[0].isupper(), s))
        head.append("from protocol.primitives import (")
        head.extend(f"    {h}," for h in helpers)
        head.append(")")
        head += [
            "",
            f"NAME = {_lit(spec.name)}",
            f"API_KEY = {spec.api_key!r}",
            f"TYPE = {_lit(spec.type)}",
            f"VALID_VERSIONS = ({lo}, {hi})",
            f"FLEXIBLE_VERSIONS = {flexible}",
            f"LISTENERS = {_tuple(spec.listeners)}",
            f"LATEST_VERSION_UNSTABLE = {spec.latest_version_unstable}",
        ]
        if self.structs_used:
            head.append("")
            for fmt, name in sorted(self.structs_used.items(), key=lambda kv: kv[1]):
                head.append(f'{name} = _struct.Struct("{fmt}")')
        versions = list(spec.versions)
        tail = ["", ""]
        tail.extend(aliases)
        if aliases:
            tail.append("")
        tail.append(f"READERS = {{{', '.join(f'{v}: read_v{v}' for v in versions)}}}")
        tail.append(f"WRITERS = {{{', '.join(f'{v}: write_v{v}' for v in versions)}}}")
        tail += [
            "",
            "",
            f"def read(r: Reader, version: int) -> {spec.name}:",
            "    try:",
            "        reader = READERS[version]",
            "    except KeyError:",
            '        raise ProtocolError(f"unsupported {NAME} version {version}") from None',
            "    return reader(r)",
            "",
            "",
            f"def write(w: Writer, m: {spec.name}, version: int) -> None:",
            "    try:",
            "        writer = WRITERS[version]",
            "    except KeyError:",
            '        raise ValueError(f"unsupported {NAME} version {version}") from None',
            "    writer(w, m)",
            "",
            "",
            f"def decode(data: bytes | bytearray | memoryview, version: int) -> {spec.name}:",
            '    """Decode a whole buffer; anything malformed raises ProtocolError."""',
            "    return decode_message(READERS, NAME, data, version)",
            "",
            "",
            f"def encode(m: {spec.name}, version: int) -> bytes:",
            "    return encode_message(WRITERS, NAME, m, version)",
        ]
        if "from protocol.errors import ProtocolError" not in head:
            head.insert(head.index("from protocol.primitives import ("), "from protocol.errors import ProtocolError")
        return "\n".join(head + classes + functions + tail) + "\n"


def emit_module(spec: MessageSpec) -> str:
    return _Module(spec).emit()


def emit_index(specs: list[MessageSpec]) -> str:
    """``protocol/messages/__init__.py``: the api-key tables and lazy module lookup."""
    requests = {s.api_key: s for s in specs if s.type == "request" and s.api_key is not None}
    responses = {s.api_key: s for s in specs if s.type == "response" and s.api_key is not None}
    keys = sorted(set(requests) & set(responses))

    def flex_from(s: MessageSpec) -> str:
        hi = s.valid_versions.hi
        if s.flexible_versions.empty or (hi is not None and s.flexible_versions.lo > hi):
            return "None"
        return str(s.flexible_versions.lo)

    lines = [
        f"# Generated from the Apache Kafka {KAFKA_RELEASE} message specs by protocol.codegen.",
        "# Do not edit: change the generator or the spec and run `make gen`.",
        '"""Generated codecs, one module per Kafka message spec.',
        "",
        "Modules are imported on first use: :func:`request_module` / :func:`response_module` map an",
        "api key to its codec module without importing the ~200 others.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import importlib",
        "from types import ModuleType",
        "",
        "# api key -> (request module, response module)",
        "API_KEYS: dict[int, tuple[str, str]] = {",
    ]
    for k in keys:
        lines.append(
            f"    {k}: ({_lit(module_name(requests[k].file_name))}, "
            f"{_lit(module_name(responses[k].file_name))}),"
        )
    lines.append("}")
    lines.append("")
    lines.append("API_NAMES: dict[int, str] = {")
    for k in keys:
        lines.append(f"    {k}: {_lit(requests[k].name.removesuffix('Request'))},")
    lines.append("}")
    lines.append("")
    lines.append("# api key -> (lowest, highest) valid request version")
    lines.append("REQUEST_VERSIONS: dict[int, tuple[int, int]] = {")
    for k in keys:
        vr = requests[k].valid_versions
        lines.append(f"    {k}: ({vr.lo}, {vr.hi}),")
    lines.append("}")
    lines.append("")
    lines.append("# api key -> first flexible request version (None: never flexible)")
    lines.append("REQUEST_FLEXIBLE_FROM: dict[int, int | None] = {")
    for k in keys:
        lines.append(f"    {k}: {flex_from(requests[k])},")
    lines.append("}")
    lines.append("")
    lines.append("# api key -> first flexible response version (None: never flexible)")
    lines.append("RESPONSE_FLEXIBLE_FROM: dict[int, int | None] = {")
    for k in keys:
        lines.append(f"    {k}: {flex_from(responses[k])},")
    lines.append("}")
    lines += [
        "",
        "_requests: dict[int, ModuleType] = {}",
        "_responses: dict[int, ModuleType] = {}",
        "",
        "",
        "def request_module(api_key: int) -> ModuleType:",
        '    """The request codec module for ``api_key``; KeyError when the key is unknown."""',
        "    module = _requests.get(api_key)",
        "    if module is None:",
        "        module = importlib.import_module(f\"{__name__}.{API_KEYS[api_key][0]}\")",
        "        _requests[api_key] = module",
        "    return module",
        "",
        "",
        "def response_module(api_key: int) -> ModuleType:",
        '    """The response codec module for ``api_key``; KeyError when the key is unknown."""',
        "    module = _responses.get(api_key)",
        "    if module is None:",
        "        module = importlib.import_module(f\"{__name__}.{API_KEYS[api_key][1]}\")",
        "        _responses[api_key] = module",
        "    return module",
    ]
    return "\n".join(lines) + "\n"
