# Generated from UpdateMetadataResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "UpdateMetadataResponse"
API_KEY = 6
TYPE = "response"
VALID_VERSIONS = (0, 8)
FLEXIBLE_VERSIONS = (6, 8)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")


@dataclass(slots=True)
class UpdateMetadataResponse:
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> UpdateMetadataResponse:
    error_code = r.int16()
    return UpdateMetadataResponse(error_code=error_code)


def write_v0(w: Writer, m: UpdateMetadataResponse) -> None:
    w += _S_h.pack(m.error_code)


def read_v6(r: Reader) -> UpdateMetadataResponse:
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return UpdateMetadataResponse(error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: UpdateMetadataResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v3 = read_v0
write_v3 = write_v0
read_v4 = read_v0
write_v4 = write_v0
read_v5 = read_v0
write_v5 = write_v0
read_v7 = read_v6
write_v7 = write_v6
read_v8 = read_v6
write_v8 = write_v6

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8}


def read(r: Reader, version: int) -> UpdateMetadataResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: UpdateMetadataResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> UpdateMetadataResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: UpdateMetadataResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
