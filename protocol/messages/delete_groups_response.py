# Generated from DeleteGroupsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DeleteGroupsResponse"
API_KEY = 42
TYPE = "response"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class DeletableGroupResult:
    group_id: str = ""
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteGroupsResponse:
    throttle_time_ms: int = 0
    results: list[DeletableGroupResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DeletableGroupResult_v0(r: Reader) -> DeletableGroupResult:
    group_id = r.string()
    error_code = r.int16()
    return DeletableGroupResult(group_id=group_id, error_code=error_code)


def _write_DeletableGroupResult_v0(w: Writer, m: DeletableGroupResult) -> None:
    write_string(w, m.group_id)
    w += _S_h.pack(m.error_code)


def _read_DeletableGroupResult_v2(r: Reader) -> DeletableGroupResult:
    group_id = r.compact_string()
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return DeletableGroupResult(group_id=group_id, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeletableGroupResult_v2(w: Writer, m: DeletableGroupResult) -> None:
    write_compact_string(w, m.group_id)
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DeleteGroupsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteGroupsResponse.Results is null")
    results = [_read_DeletableGroupResult_v0(r) for _ in range(_n)]
    return DeleteGroupsResponse(throttle_time_ms=throttle_time_ms, results=results)


def write_v0(w: Writer, m: DeleteGroupsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeletableGroupResult_v0(w, _e)


def read_v2(r: Reader) -> DeleteGroupsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteGroupsResponse.Results is null")
    results = [_read_DeletableGroupResult_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteGroupsResponse(throttle_time_ms=throttle_time_ms, results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DeleteGroupsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeletableGroupResult_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> DeleteGroupsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteGroupsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteGroupsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteGroupsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
