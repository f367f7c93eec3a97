# Generated from AlterClientQuotasResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "AlterClientQuotasResponse"
API_KEY = 49
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class EntityData:
    entity_type: str = ""
    entity_name: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class EntryData:
    error_code: int = 0
    error_message: str | None = ""
    entity: list[EntityData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterClientQuotasResponse:
    throttle_time_ms: int = 0
    entries: list[EntryData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_EntityData_v0(r: Reader) -> EntityData:
    entity_type = r.string()
    entity_name = r.nullable_string()
    return EntityData(entity_type=entity_type, entity_name=entity_name)


def _write_EntityData_v0(w: Writer, m: EntityData) -> None:
    write_string(w, m.entity_type)
    write_nullable_string(w, m.entity_name)


def _read_EntityData_v1(r: Reader) -> EntityData:
    entity_type = r.compact_string()
    entity_name = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return EntityData(entity_type=entity_type, entity_name=entity_name, unknown_tagged_fields=unknown_tagged_fields)


def _write_EntityData_v1(w: Writer, m: EntityData) -> None:
    write_compact_string(w, m.entity_type)
    write_compact_nullable_string(w, m.entity_name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_EntryData_v0(r: Reader) -> EntryData:
    error_code = r.int16()
    error_message = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasResponse.Entity is null")
    entity = [_read_EntityData_v0(r) for _ in range(_n)]
    return EntryData(error_code=error_code, error_message=error_message, entity=entity)


def _write_EntryData_v0(w: Writer, m: EntryData) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    _v = m.entity
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_EntityData_v0(w, _e)


def _read_EntryData_v1(r: Reader) -> EntryData:
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasResponse.Entity is null")
    entity = [_read_EntityData_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return EntryData(error_code=error_code, error_message=error_message, entity=entity, unknown_tagged_fields=unknown_tagged_fields)


def _write_EntryData_v1(w: Writer, m: EntryData) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.entity
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_EntityData_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AlterClientQuotasResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasResponse.Entries is null")
    entries = [_read_EntryData_v0(r) for _ in range(_n)]
    return AlterClientQuotasResponse(throttle_time_ms=throttle_time_ms, entries=entries)


def write_v0(w: Writer, m: AlterClientQuotasResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.entries
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_EntryData_v0(w, _e)


def read_v1(r: Reader) -> AlterClientQuotasResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasResponse.Entries is null")
    entries = [_read_EntryData_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterClientQuotasResponse(throttle_time_ms=throttle_time_ms, entries=entries, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: AlterClientQuotasResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.entries
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_EntryData_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> AlterClientQuotasResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AlterClientQuotasResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AlterClientQuotasResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AlterClientQuotasResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
