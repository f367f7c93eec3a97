# Generated from IncrementalAlterConfigsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "IncrementalAlterConfigsResponse"
API_KEY = 44
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class AlterConfigsResourceResponse:
    error_code: int = 0
    error_message: str | None = ""
    resource_type: int = 0
    resource_name: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class IncrementalAlterConfigsResponse:
    throttle_time_ms: int = 0
    responses: list[AlterConfigsResourceResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AlterConfigsResourceResponse_v0(r: Reader) -> AlterConfigsResourceResponse:
    error_code = r.int16()
    error_message = r.nullable_string()
    resource_type = r.int8()
    resource_name = r.string()
    return AlterConfigsResourceResponse(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name)


def _write_AlterConfigsResourceResponse_v0(w: Writer, m: AlterConfigsResourceResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)


def _read_AlterConfigsResourceResponse_v1(r: Reader) -> AlterConfigsResourceResponse:
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    resource_type = r.int8()
    resource_name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return AlterConfigsResourceResponse(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name, unknown_tagged_fields=unknown_tagged_fields)


def _write_AlterConfigsResourceResponse_v1(w: Writer, m: AlterConfigsResourceResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_compact_string(w, m.resource_name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> IncrementalAlterConfigsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array IncrementalAlterConfigsResponse.Responses is null")
    responses = [_read_AlterConfigsResourceResponse_v0(r) for _ in range(_n)]
    return IncrementalAlterConfigsResponse(throttle_time_ms=throttle_time_ms, responses=responses)


def write_v0(w: Writer, m: IncrementalAlterConfigsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AlterConfigsResourceResponse_v0(w, _e)


def read_v1(r: Reader) -> IncrementalAlterConfigsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array IncrementalAlterConfigsResponse.Responses is null")
    responses = [_read_AlterConfigsResourceResponse_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return IncrementalAlterConfigsResponse(throttle_time_ms=throttle_time_ms, responses=responses, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: IncrementalAlterConfigsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AlterConfigsResourceResponse_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> IncrementalAlterConfigsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: IncrementalAlterConfigsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> IncrementalAlterConfigsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: IncrementalAlterConfigsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
