# Generated from DeleteAclsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_nullable_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DeleteAclsRequest"
API_KEY = 31
TYPE = "request"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_bb = _struct.Struct(">bb")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class DeleteAclsFilter:
    resource_type_filter: int = 0
    resource_name_filter: str | None = ""
    pattern_type_filter: int = 3
    principal_filter: str | None = ""
    host_filter: str | None = ""
    operation: int = 0
    permission_type: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteAclsRequest:
    filters: list[DeleteAclsFilter] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DeleteAclsFilter_v0(r: Reader) -> DeleteAclsFilter:
    resource_type_filter = r.int8()
    resource_name_filter = r.nullable_string()
    principal_filter = r.nullable_string()
    host_filter = r.nullable_string()
    operation, permission_type = r.unpack(_S_bb)
    return DeleteAclsFilter(resource_type_filter=resource_type_filter, resource_name_filter=resource_name_filter, principal_filter=principal_filter, host_filter=host_filter, operation=operation, permission_type=permission_type)


def _write_DeleteAclsFilter_v0(w: Writer, m: DeleteAclsFilter) -> None:
    w += _S_b.pack(m.resource_type_filter)
    write_nullable_string(w, m.resource_name_filter)
    write_nullable_string(w, m.principal_filter)
    write_nullable_string(w, m.host_filter)
    w += _S_bb.pack(m.operation, m.permission_type)


def _read_DeleteAclsFilter_v1(r: Reader) -> DeleteAclsFilter:
    resource_type_filter = r.int8()
    resource_name_filter = r.nullable_string()
    pattern_type_filter = r.int8()
    principal_filter = r.nullable_string()
    host_filter = r.nullable_string()
    operation, permission_type = r.unpack(_S_bb)
    return DeleteAclsFilter(resource_type_filter=resource_type_filter, resource_name_filter=resource_name_filter, pattern_type_filter=pattern_type_filter, principal_filter=principal_filter, host_filter=host_filter, operation=operation, permission_type=permission_type)


def _write_DeleteAclsFilter_v1(w: Writer, m: DeleteAclsFilter) -> None:
    w += _S_b.pack(m.resource_type_filter)
    write_nullable_string(w, m.resource_name_filter)
    w += _S_b.pack(m.pattern_type_filter)
    write_nullable_string(w, m.principal_filter)
    write_nullable_string(w, m.host_filter)
    w += _S_bb.pack(m.operation, m.permission_type)


def _read_DeleteAclsFilter_v2(r: Reader) -> DeleteAclsFilter:
    resource_type_filter = r.int8()
    resource_name_filter = r.compact_nullable_string()
    pattern_type_filter = r.int8()
    principal_filter = r.compact_nullable_string()
    host_filter = r.compact_nullable_string()
    operation, permission_type = r.unpack(_S_bb)
    unknown_tagged_fields = r.tagged_fields()
    return DeleteAclsFilter(resource_type_filter=resource_type_filter, resource_name_filter=resource_name_filter, pattern_type_filter=pattern_type_filter, principal_filter=principal_filter, host_filter=host_filter, operation=operation, permission_type=permission_type, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteAclsFilter_v2(w: Writer, m: DeleteAclsFilter) -> None:
    w += _S_b.pack(m.resource_type_filter)
    write_compact_nullable_string(w, m.resource_name_filter)
    w += _S_b.pack(m.pattern_type_filter)
    write_compact_nullable_string(w, m.principal_filter)
    write_compact_nullable_string(w, m.host_filter)
    w += _S_bb.pack(m.operation, m.permission_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DeleteAclsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsRequest.Filters is null")
    filters = [_read_DeleteAclsFilter_v0(r) for _ in range(_n)]
    return DeleteAclsRequest(filters=filters)


def write_v0(w: Writer, m: DeleteAclsRequest) -> None:
    _v = m.filters
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteAclsFilter_v0(w, _e)


def read_v1(r: Reader) -> DeleteAclsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsRequest.Filters is null")
    filters = [_read_DeleteAclsFilter_v1(r) for _ in range(_n)]
    return DeleteAclsRequest(filters=filters)


def write_v1(w: Writer, m: DeleteAclsRequest) -> None:
    _v = m.filters
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteAclsFilter_v1(w, _e)


def read_v2(r: Reader) -> DeleteAclsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsRequest.Filters is null")
    filters = [_read_DeleteAclsFilter_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteAclsRequest(filters=filters, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DeleteAclsRequest) -> None:
    _v = m.filters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteAclsFilter_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v3 = read_v2
write_v3 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> DeleteAclsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteAclsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteAclsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteAclsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
