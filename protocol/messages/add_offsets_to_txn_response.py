# Generated from AddOffsetsToTxnResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "AddOffsetsToTxnResponse"
API_KEY = 25
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (3, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class AddOffsetsToTxnResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> AddOffsetsToTxnResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    return AddOffsetsToTxnResponse(throttle_time_ms=throttle_time_ms, error_code=error_code)


def write_v0(w: Writer, m: AddOffsetsToTxnResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)


def read_v3(r: Reader) -> AddOffsetsToTxnResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return AddOffsetsToTxnResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: AddOffsetsToTxnResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v4 = read_v3
write_v4 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> AddOffsetsToTxnResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AddOffsetsToTxnResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AddOffsetsToTxnResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AddOffsetsToTxnResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
