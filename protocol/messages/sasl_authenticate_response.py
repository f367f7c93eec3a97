# Generated from SaslAuthenticateResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_bytes,
    write_compact_bytes,
    write_compact_nullable_string,
    write_nullable_string,
    write_tagged_fields,
)

NAME = "SaslAuthenticateResponse"
API_KEY = 36
TYPE = "response"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_q = _struct.Struct(">q")


@dataclass(slots=True)
class SaslAuthenticateResponse:
    error_code: int = 0
    error_message: str | None = ""
    auth_bytes: bytes = b""
    session_lifetime_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> SaslAuthenticateResponse:
    error_code = r.int16()
    error_message = r.nullable_string()
    auth_bytes = r.bytes_()
    return SaslAuthenticateResponse(error_code=error_code, error_message=error_message, auth_bytes=auth_bytes)


def write_v0(w: Writer, m: SaslAuthenticateResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    write_bytes(w, m.auth_bytes)


def read_v1(r: Reader) -> SaslAuthenticateResponse:
    error_code = r.int16()
    error_message = r.nullable_string()
    auth_bytes = r.bytes_()
    session_lifetime_ms = r.int64()
    return SaslAuthenticateResponse(error_code=error_code, error_message=error_message, auth_bytes=auth_bytes, session_lifetime_ms=session_lifetime_ms)


def write_v1(w: Writer, m: SaslAuthenticateResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    write_bytes(w, m.auth_bytes)
    w += _S_q.pack(m.session_lifetime_ms)


def read_v2(r: Reader) -> SaslAuthenticateResponse:
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    auth_bytes = r.compact_bytes()
    session_lifetime_ms = r.int64()
    unknown_tagged_fields = r.tagged_fields()
    return SaslAuthenticateResponse(error_code=error_code, error_message=error_message, auth_bytes=auth_bytes, session_lifetime_ms=session_lifetime_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: SaslAuthenticateResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_compact_bytes(w, m.auth_bytes)
    w += _S_q.pack(m.session_lifetime_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> SaslAuthenticateResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: SaslAuthenticateResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> SaslAuthenticateResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: SaslAuthenticateResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
