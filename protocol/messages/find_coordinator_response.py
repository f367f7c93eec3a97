# Generated from FindCoordinatorResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "FindCoordinatorResponse"
API_KEY = 10
TYPE = "response"
VALID_VERSIONS = (0, 6)
FLEXIBLE_VERSIONS = (3, 6)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_hi = _struct.Struct(">hi")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class Coordinator:
    key: str = ""
    node_id: int = 0
    host: str = ""
    port: int = 0
    error_code: int = 0
    error_message: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FindCoordinatorResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    node_id: int = 0
    host: str = ""
    port: int = 0
    coordinators: list[Coordinator] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_Coordinator_v4(r: Reader) -> Coordinator:
    key = r.compact_string()
    node_id = r.int32()
    host = r.compact_string()
    port, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return Coordinator(key=key, node_id=node_id, host=host, port=port, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_Coordinator_v4(w: Writer, m: Coordinator) -> None:
    write_compact_string(w, m.key)
    w += _S_i.pack(m.node_id)
    write_compact_string(w, m.host)
    w += _S_ih.pack(m.port, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> FindCoordinatorResponse:
    error_code, node_id = r.unpack(_S_hi)
    host = r.string()
    port = r.int32()
    return FindCoordinatorResponse(error_code=error_code, node_id=node_id, host=host, port=port)


def write_v0(w: Writer, m: FindCoordinatorResponse) -> None:
    w += _S_hi.pack(m.error_code, m.node_id)
    write_string(w, m.host)
    w += _S_i.pack(m.port)


def read_v1(r: Reader) -> FindCoordinatorResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.nullable_string()
    node_id = r.int32()
    host = r.string()
    port = r.int32()
    return FindCoordinatorResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, node_id=node_id, host=host, port=port)


def write_v1(w: Writer, m: FindCoordinatorResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_nullable_string(w, m.error_message)
    w += _S_i.pack(m.node_id)
    write_string(w, m.host)
    w += _S_i.pack(m.port)


def read_v3(r: Reader) -> FindCoordinatorResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    node_id = r.int32()
    host = r.compact_string()
    port = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return FindCoordinatorResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, node_id=node_id, host=host, port=port, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: FindCoordinatorResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_i.pack(m.node_id)
    write_compact_string(w, m.host)
    w += _S_i.pack(m.port)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v4(r: Reader) -> FindCoordinatorResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FindCoordinatorResponse.Coordinators is null")
    coordinators = [_read_Coordinator_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FindCoordinatorResponse(throttle_time_ms=throttle_time_ms, coordinators=coordinators, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: FindCoordinatorResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.coordinators
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Coordinator_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1
read_v5 = read_v4
write_v5 = write_v4
read_v6 = read_v4
write_v6 = write_v4

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6}


def read(r: Reader, version: int) -> FindCoordinatorResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: FindCoordinatorResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> FindCoordinatorResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: FindCoordinatorResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
