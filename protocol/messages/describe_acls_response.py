# Generated from DescribeAclsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DescribeAclsResponse"
API_KEY = 29
TYPE = "response"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_bb = _struct.Struct(">bb")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class AclDescription:
    principal: str = ""
    host: str = ""
    operation: int = 0
    permission_type: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeAclsResource:
    resource_type: int = 0
    resource_name: str = ""
    pattern_type: int = 3
    acls: list[AclDescription] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeAclsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    resources: list[DescribeAclsResource] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AclDescription_v0(r: Reader) -> AclDescription:
    principal = r.string()
    host = r.string()
    operation, permission_type = r.unpack(_S_bb)
    return AclDescription(principal=principal, host=host, operation=operation, permission_type=permission_type)


def _write_AclDescription_v0(w: Writer, m: AclDescription) -> None:
    write_string(w, m.principal)
    write_string(w, m.host)
    w += _S_bb.pack(m.operation, m.permission_type)


def _read_AclDescription_v2(r: Reader) -> AclDescription:
    principal = r.compact_string()
    host = r.compact_string()
    operation, permission_type = r.unpack(_S_bb)
    unknown_tagged_fields = r.tagged_fields()
    return AclDescription(principal=principal, host=host, operation=operation, permission_type=permission_type, unknown_tagged_fields=unknown_tagged_fields)


def _write_AclDescription_v2(w: Writer, m: AclDescription) -> None:
    write_compact_string(w, m.principal)
    write_compact_string(w, m.host)
    w += _S_bb.pack(m.operation, m.permission_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribeAclsResource_v0(r: Reader) -> DescribeAclsResource:
    resource_type = r.int8()
    resource_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeAclsResponse.Acls is null")
    acls = [_read_AclDescription_v0(r) for _ in range(_n)]
    return DescribeAclsResource(resource_type=resource_type, resource_name=resource_name, acls=acls)


def _write_DescribeAclsResource_v0(w: Writer, m: DescribeAclsResource) -> None:
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    _v = m.acls
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AclDescription_v0(w, _e)


def _read_DescribeAclsResource_v1(r: Reader) -> DescribeAclsResource:
    resource_type = r.int8()
    resource_name = r.string()
    pattern_type = r.int8()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeAclsResponse.Acls is null")
    acls = [_read_AclDescription_v0(r) for _ in range(_n)]
    return DescribeAclsResource(resource_type=resource_type, resource_name=resource_name, pattern_type=pattern_type, acls=acls)


def _write_DescribeAclsResource_v1(w: Writer, m: DescribeAclsResource) -> None:
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    w += _S_b.pack(m.pattern_type)
    _v = m.acls
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AclDescription_v0(w, _e)


def _read_DescribeAclsResource_v2(r: Reader) -> DescribeAclsResource:
    resource_type = r.int8()
    resource_name = r.compact_string()
    pattern_type = r.int8()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeAclsResponse.Acls is null")
    acls = [_read_AclDescription_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeAclsResource(resource_type=resource_type, resource_name=resource_name, pattern_type=pattern_type, acls=acls, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeAclsResource_v2(w: Writer, m: DescribeAclsResource) -> None:
    w += _S_b.pack(m.resource_type)
    write_compact_string(w, m.resource_name)
    w += _S_b.pack(m.pattern_type)
    _v = m.acls
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AclDescription_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeAclsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeAclsResponse.Resources is null")
    resources = [_read_DescribeAclsResource_v0(r) for _ in range(_n)]
    return DescribeAclsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, resources=resources)


def write_v0(w: Writer, m: DescribeAclsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_nullable_string(w, m.error_message)
    _v = m.resources
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeAclsResource_v0(w, _e)


def read_v1(r: Reader) -> DescribeAclsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeAclsResponse.Resources is null")
    resources = [_read_DescribeAclsResource_v1(r) for _ in range(_n)]
    return DescribeAclsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, resources=resources)


def write_v1(w: Writer, m: DescribeAclsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_nullable_string(w, m.error_message)
    _v = m.resources
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeAclsResource_v1(w, _e)


def read_v2(r: Reader) -> DescribeAclsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeAclsResponse.Resources is null")
    resources = [_read_DescribeAclsResource_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeAclsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, resources=resources, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DescribeAclsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.resources
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeAclsResource_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v3 = read_v2
write_v3 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> DescribeAclsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeAclsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeAclsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeAclsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
