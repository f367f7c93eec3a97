# Generated from SaslHandshakeResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_string,
)

NAME = "SaslHandshakeResponse"
API_KEY = 17
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class SaslHandshakeResponse:
    error_code: int = 0
    mechanisms: list[str] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> SaslHandshakeResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array SaslHandshakeResponse.Mechanisms is null")
    mechanisms = [r.string() for _ in range(_n)]
    return SaslHandshakeResponse(error_code=error_code, mechanisms=mechanisms)


def write_v0(w: Writer, m: SaslHandshakeResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.mechanisms
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> SaslHandshakeResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: SaslHandshakeResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> SaslHandshakeResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: SaslHandshakeResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
