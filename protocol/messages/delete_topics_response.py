# Generated from DeleteTopicsResponse.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    ZERO_UUID,
    decode_message,
    encode_message,
    write_compact_nullable_string,
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DeleteTopicsResponse"
API_KEY = 20
TYPE = "response"
VALID_VERSIONS = (0, 6)
FLEXIBLE_VERSIONS = (4, 6)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class DeletableTopicResult:
    name: str | None = ""
    topic_id: uuid.UUID = ZERO_UUID
    error_code: int = 0
    error_message: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteTopicsResponse:
    throttle_time_ms: int = 0
    responses: list[DeletableTopicResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DeletableTopicResult_v0(r: Reader) -> DeletableTopicResult:
    name = r.string()
    error_code = r.int16()
    return DeletableTopicResult(name=name, error_code=error_code)


def _write_DeletableTopicResult_v0(w: Writer, m: DeletableTopicResult) -> None:
    write_string(w, m.name)
    w += _S_h.pack(m.error_code)


def _read_DeletableTopicResult_v4(r: Reader) -> DeletableTopicResult:
    name = r.compact_string()
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return DeletableTopicResult(name=name, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeletableTopicResult_v4(w: Writer, m: DeletableTopicResult) -> None:
    write_compact_string(w, m.name)
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DeletableTopicResult_v5(r: Reader) -> DeletableTopicResult:
    name = r.compact_string()
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return DeletableTopicResult(name=name, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeletableTopicResult_v5(w: Writer, m: DeletableTopicResult) -> None:
    write_compact_string(w, m.name)
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DeletableTopicResult_v6(r: Reader) -> DeletableTopicResult:
    name = r.compact_nullable_string()
    topic_id = r.uuid()
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return DeletableTopicResult(name=name, topic_id=topic_id, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeletableTopicResult_v6(w: Writer, m: DeletableTopicResult) -> None:
    write_compact_nullable_string(w, m.name)
    w += m.topic_id.bytes
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DeleteTopicsResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteTopicsResponse.Responses is null")
    responses = [_read_DeletableTopicResult_v0(r) for _ in range(_n)]
    return DeleteTopicsResponse(responses=responses)


def write_v0(w: Writer, m: DeleteTopicsResponse) -> None:
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeletableTopicResult_v0(w, _e)


def read_v1(r: Reader) -> DeleteTopicsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteTopicsResponse.Responses is null")
    responses = [_read_DeletableTopicResult_v0(r) for _ in range(_n)]
    return DeleteTopicsResponse(throttle_time_ms=throttle_time_ms, responses=responses)


def write_v1(w: Writer, m: DeleteTopicsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeletableTopicResult_v0(w, _e)


def read_v4(r: Reader) -> DeleteTopicsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteTopicsResponse.Responses is null")
    responses = [_read_DeletableTopicResult_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteTopicsResponse(throttle_time_ms=throttle_time_ms, responses=responses, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: DeleteTopicsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeletableTopicResult_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v5(r: Reader) -> DeleteTopicsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteTopicsResponse.Responses is null")
    responses = [_read_DeletableTopicResult_v5(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteTopicsResponse(throttle_time_ms=throttle_time_ms, responses=responses, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: DeleteTopicsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeletableTopicResult_v5(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v6(r: Reader) -> DeleteTopicsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteTopicsResponse.Responses is null")
    responses = [_read_DeletableTopicResult_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteTopicsResponse(throttle_time_ms=throttle_time_ms, responses=responses, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: DeleteTopicsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeletableTopicResult_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1
read_v3 = read_v1
write_v3 = write_v1

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6}


def read(r: Reader, version: int) -> DeleteTopicsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteTopicsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteTopicsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteTopicsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
