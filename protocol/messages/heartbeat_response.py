# Generated from HeartbeatResponse.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_tagged_fields,
)

NAME = "HeartbeatResponse"
API_KEY = 12
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (4, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class HeartbeatResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> HeartbeatResponse:
    error_code = r.int16()
    return HeartbeatResponse(error_code=error_code)


def write_v0(w: Writer, m: HeartbeatResponse) -> None:
    w += _S_h.pack(m.error_code)


def read_v1(r: Reader) -> HeartbeatResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    return HeartbeatResponse(throttle_time_ms=throttle_time_ms, error_code=error_code)


def write_v1(w: Writer, m: HeartbeatResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)


def read_v4(r: Reader) -> HeartbeatResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return HeartbeatResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: HeartbeatResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1
read_v3 = read_v1
write_v3 = write_v1

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> HeartbeatResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: HeartbeatResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> HeartbeatResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: HeartbeatResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
