# Generated from DeleteAclsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DeleteAclsResponse"
API_KEY = 31
TYPE = "response"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_bb = _struct.Struct(">bb")
_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class DeleteAclsMatchingAcl:
    error_code: int = 0
    error_message: str | None = ""
    resource_type: int = 0
    resource_name: str = ""
    pattern_type: int = 3
    principal: str = ""
    host: str = ""
    operation: int = 0
    permission_type: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteAclsFilterResult:
    error_code: int = 0
    error_message: str | None = ""
    matching_acls: list[DeleteAclsMatchingAcl] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteAclsResponse:
    throttle_time_ms: int = 0
    filter_results: list[DeleteAclsFilterResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DeleteAclsMatchingAcl_v0(r: Reader) -> DeleteAclsMatchingAcl:
    error_code = r.int16()
    error_message = r.nullable_string()
    resource_type = r.int8()
    resource_name = r.string()
    principal = r.string()
    host = r.string()
    operation, permission_type = r.unpack(_S_bb)
    return DeleteAclsMatchingAcl(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name, principal=principal, host=host, operation=operation, permission_type=permission_type)


def _write_DeleteAclsMatchingAcl_v0(w: Writer, m: DeleteAclsMatchingAcl) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    write_string(w, m.principal)
    write_string(w, m.host)
    w += _S_bb.pack(m.operation, m.permission_type)


def _read_DeleteAclsMatchingAcl_v1(r: Reader) -> DeleteAclsMatchingAcl:
    error_code = r.int16()
    error_message = r.nullable_string()
    resource_type = r.int8()
    resource_name = r.string()
    pattern_type = r.int8()
    principal = r.string()
    host = r.string()
    operation, permission_type = r.unpack(_S_bb)
    return DeleteAclsMatchingAcl(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name, pattern_type=pattern_type, principal=principal, host=host, operation=operation, permission_type=permission_type)


def _write_DeleteAclsMatchingAcl_v1(w: Writer, m: DeleteAclsMatchingAcl) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    w += _S_b.pack(m.pattern_type)
    write_string(w, m.principal)
    write_string(w, m.host)
    w += _S_bb.pack(m.operation, m.permission_type)


def _read_DeleteAclsMatchingAcl_v2(r: Reader) -> DeleteAclsMatchingAcl:
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    resource_type = r.int8()
    resource_name = r.compact_string()
    pattern_type = r.int8()
    principal = r.compact_string()
    host = r.compact_string()
    operation, permission_type = r.unpack(_S_bb)
    unknown_tagged_fields = r.tagged_fields()
    return DeleteAclsMatchingAcl(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name, pattern_type=pattern_type, principal=principal, host=host, operation=operation, permission_type=permission_type, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteAclsMatchingAcl_v2(w: Writer, m: DeleteAclsMatchingAcl) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_compact_string(w, m.resource_name)
    w += _S_b.pack(m.pattern_type)
    write_compact_string(w, m.principal)
    write_compact_string(w, m.host)
    w += _S_bb.pack(m.operation, m.permission_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DeleteAclsFilterResult_v0(r: Reader) -> DeleteAclsFilterResult:
    error_code = r.int16()
    error_message = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsResponse.MatchingAcls is null")
    matching_acls = [_read_DeleteAclsMatchingAcl_v0(r) for _ in range(_n)]
    return DeleteAclsFilterResult(error_code=error_code, error_message=error_message, matching_acls=matching_acls)


def _write_DeleteAclsFilterResult_v0(w: Writer, m: DeleteAclsFilterResult) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    _v = m.matching_acls
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteAclsMatchingAcl_v0(w, _e)


def _read_DeleteAclsFilterResult_v1(r: Reader) -> DeleteAclsFilterResult:
    error_code = r.int16()
    error_message = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsResponse.MatchingAcls is null")
    matching_acls = [_read_DeleteAclsMatchingAcl_v1(r) for _ in range(_n)]
    return DeleteAclsFilterResult(error_code=error_code, error_message=error_message, matching_acls=matching_acls)


def _write_DeleteAclsFilterResult_v1(w: Writer, m: DeleteAclsFilterResult) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    _v = m.matching_acls
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteAclsMatchingAcl_v1(w, _e)


def _read_DeleteAclsFilterResult_v2(r: Reader) -> DeleteAclsFilterResult:
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsResponse.MatchingAcls is null")
    matching_acls = [_read_DeleteAclsMatchingAcl_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteAclsFilterResult(error_code=error_code, error_message=error_message, matching_acls=matching_acls, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteAclsFilterResult_v2(w: Writer, m: DeleteAclsFilterResult) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.matching_acls
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteAclsMatchingAcl_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DeleteAclsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsResponse.FilterResults is null")
    filter_results = [_read_DeleteAclsFilterResult_v0(r) for _ in range(_n)]
    return DeleteAclsResponse(throttle_time_ms=throttle_time_ms, filter_results=filter_results)


def write_v0(w: Writer, m: DeleteAclsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.filter_results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteAclsFilterResult_v0(w, _e)


def read_v1(r: Reader) -> DeleteAclsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsResponse.FilterResults is null")
    filter_results = [_read_DeleteAclsFilterResult_v1(r) for _ in range(_n)]
    return DeleteAclsResponse(throttle_time_ms=throttle_time_ms, filter_results=filter_results)


def write_v1(w: Writer, m: DeleteAclsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.filter_results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteAclsFilterResult_v1(w, _e)


def read_v2(r: Reader) -> DeleteAclsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteAclsResponse.FilterResults is null")
    filter_results = [_read_DeleteAclsFilterResult_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteAclsResponse(throttle_time_ms=throttle_time_ms, filter_results=filter_results, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DeleteAclsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.filter_results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteAclsFilterResult_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v3 = read_v2
write_v3 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> DeleteAclsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteAclsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteAclsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteAclsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
