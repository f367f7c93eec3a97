# Generated from EnvelopeResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_nullable_bytes,
    write_tagged_fields,
)

NAME = "EnvelopeResponse"
API_KEY = 58
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")


@dataclass(slots=True)
class EnvelopeResponse:
    response_data: bytes | None = None
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> EnvelopeResponse:
    response_data = r.compact_nullable_bytes()
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return EnvelopeResponse(response_data=response_data, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: EnvelopeResponse) -> None:
    write_compact_nullable_bytes(w, m.response_data)
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> EnvelopeResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: EnvelopeResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> EnvelopeResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: EnvelopeResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
