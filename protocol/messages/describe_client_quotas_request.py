# Generated from DescribeClientQuotasRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_nullable_string,
    write_compact_string,
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeClientQuotasRequest"
API_KEY = 48
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class ComponentData:
    entity_type: str = ""
    match_type: int = 0
    match: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeClientQuotasRequest:
    components: list[ComponentData] = _field(default_factory=list)
    strict: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ComponentData_v0(r: Reader) -> ComponentData:
    entity_type = r.string()
    match_type = r.int8()
    match = r.nullable_string()
    return ComponentData(entity_type=entity_type, match_type=match_type, match=match)


def _write_ComponentData_v0(w: Writer, m: ComponentData) -> None:
    write_string(w, m.entity_type)
    w += _S_b.pack(m.match_type)
    write_nullable_string(w, m.match)


def _read_ComponentData_v1(r: Reader) -> ComponentData:
    entity_type = r.compact_string()
    match_type = r.int8()
    match = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return ComponentData(entity_type=entity_type, match_type=match_type, match=match, unknown_tagged_fields=unknown_tagged_fields)


def _write_ComponentData_v1(w: Writer, m: ComponentData) -> None:
    write_compact_string(w, m.entity_type)
    w += _S_b.pack(m.match_type)
    write_compact_nullable_string(w, m.match)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeClientQuotasRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeClientQuotasRequest.Components is null")
    components = [_read_ComponentData_v0(r) for _ in range(_n)]
    strict = r.boolean()
    return DescribeClientQuotasRequest(components=components, strict=strict)


def write_v0(w: Writer, m: DescribeClientQuotasRequest) -> None:
    _v = m.components
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ComponentData_v0(w, _e)
    w += _S_x.pack(m.strict)


def read_v1(r: Reader) -> DescribeClientQuotasRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeClientQuotasRequest.Components is null")
    components = [_read_ComponentData_v1(r) for _ in range(_n)]
    strict = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeClientQuotasRequest(components=components, strict=strict, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: DescribeClientQuotasRequest) -> None:
    _v = m.components
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ComponentData_v1(w, _e)
    w += _S_x.pack(m.strict)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> DescribeClientQuotasRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeClientQuotasRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeClientQuotasRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeClientQuotasRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
