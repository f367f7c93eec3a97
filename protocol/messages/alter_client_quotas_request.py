# Generated from AlterClientQuotasRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "AlterClientQuotasRequest"
API_KEY = 49
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_dx = _struct.Struct(">d?")
_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class EntityData:
    entity_type: str = ""
    entity_name: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OpData:
    key: str = ""
    value: float = 0.0
    remove: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class EntryData:
    entity: list[EntityData] = _field(default_factory=list)
    ops: list[OpData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterClientQuotasRequest:
    entries: list[EntryData] = _field(default_factory=list)
    validate_only: bool = False
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


def _read_OpData_v0(r: Reader) -> OpData:
    key = r.string()
    value, remove = r.unpack(_S_dx)
    return OpData(key=key, value=value, remove=remove)


def _write_OpData_v0(w: Writer, m: OpData) -> None:
    write_string(w, m.key)
    w += _S_dx.pack(m.value, m.remove)


def _read_OpData_v1(r: Reader) -> OpData:
    key = r.compact_string()
    value, remove = r.unpack(_S_dx)
    unknown_tagged_fields = r.tagged_fields()
    return OpData(key=key, value=value, remove=remove, unknown_tagged_fields=unknown_tagged_fields)


def _write_OpData_v1(w: Writer, m: OpData) -> None:
    write_compact_string(w, m.key)
    w += _S_dx.pack(m.value, m.remove)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_EntryData_v0(r: Reader) -> EntryData:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasRequest.Entity is null")
    entity = [_read_EntityData_v0(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasRequest.Ops is null")
    ops = [_read_OpData_v0(r) for _ in range(_n)]
    return EntryData(entity=entity, ops=ops)


def _write_EntryData_v0(w: Writer, m: EntryData) -> None:
    _v = m.entity
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_EntityData_v0(w, _e)
    _v = m.ops
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OpData_v0(w, _e)


def _read_EntryData_v1(r: Reader) -> EntryData:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasRequest.Entity is null")
    entity = [_read_EntityData_v1(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasRequest.Ops is null")
    ops = [_read_OpData_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return EntryData(entity=entity, ops=ops, unknown_tagged_fields=unknown_tagged_fields)


def _write_EntryData_v1(w: Writer, m: EntryData) -> None:
    _v = m.entity
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_EntityData_v1(w, _e)
    _v = m.ops
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OpData_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AlterClientQuotasRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasRequest.Entries is null")
    entries = [_read_EntryData_v0(r) for _ in range(_n)]
    validate_only = r.boolean()
    return AlterClientQuotasRequest(entries=entries, validate_only=validate_only)


def write_v0(w: Writer, m: AlterClientQuotasRequest) -> None:
    _v = m.entries
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_EntryData_v0(w, _e)
    w += _S_x.pack(m.validate_only)


def read_v1(r: Reader) -> AlterClientQuotasRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterClientQuotasRequest.Entries is null")
    entries = [_read_EntryData_v1(r) for _ in range(_n)]
    validate_only = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return AlterClientQuotasRequest(entries=entries, validate_only=validate_only, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: AlterClientQuotasRequest) -> None:
    _v = m.entries
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_EntryData_v1(w, _e)
    w += _S_x.pack(m.validate_only)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> AlterClientQuotasRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AlterClientQuotasRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AlterClientQuotasRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AlterClientQuotasRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
