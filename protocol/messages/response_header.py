# Generated from ResponseHeader.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ResponseHeader"
API_KEY = None
TYPE = "header"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class ResponseHeader:
    correlation_id: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ResponseHeader:
    correlation_id = r.int32()
    return ResponseHeader(correlation_id=correlation_id)


def write_v0(w: Writer, m: ResponseHeader) -> None:
    w += _S_i.pack(m.correlation_id)


def read_v1(r: Reader) -> ResponseHeader:
    correlation_id = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return ResponseHeader(correlation_id=correlation_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: ResponseHeader) -> None:
    w += _S_i.pack(m.correlation_id)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> ResponseHeader:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ResponseHeader, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ResponseHeader:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ResponseHeader, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
