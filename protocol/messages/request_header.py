# Generated from RequestHeader.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_nullable_string,
    write_tagged_fields,
)

NAME = "RequestHeader"
API_KEY = None
TYPE = "header"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_hhi = _struct.Struct(">hhi")


@dataclass(slots=True)
class RequestHeader:
    request_api_key: int = 0
    request_api_version: int = 0
    correlation_id: int = 0
    client_id: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> RequestHeader:
    request_api_key, request_api_version, correlation_id = r.unpack(_S_hhi)
    return RequestHeader(request_api_key=request_api_key, request_api_version=request_api_version, correlation_id=correlation_id)


def write_v0(w: Writer, m: RequestHeader) -> None:
    w += _S_hhi.pack(m.request_api_key, m.request_api_version, m.correlation_id)


def read_v1(r: Reader) -> RequestHeader:
    request_api_key, request_api_version, correlation_id = r.unpack(_S_hhi)
    client_id = r.nullable_string()
    return RequestHeader(request_api_key=request_api_key, request_api_version=request_api_version, correlation_id=correlation_id, client_id=client_id)


def write_v1(w: Writer, m: RequestHeader) -> None:
    w += _S_hhi.pack(m.request_api_key, m.request_api_version, m.correlation_id)
    write_nullable_string(w, m.client_id)


def read_v2(r: Reader) -> RequestHeader:
    request_api_key, request_api_version, correlation_id = r.unpack(_S_hhi)
    client_id = r.nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return RequestHeader(request_api_key=request_api_key, request_api_version=request_api_version, correlation_id=correlation_id, client_id=client_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: RequestHeader) -> None:
    w += _S_hhi.pack(m.request_api_key, m.request_api_version, m.correlation_id)
    write_nullable_string(w, m.client_id)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> RequestHeader:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: RequestHeader, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> RequestHeader:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: RequestHeader, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
