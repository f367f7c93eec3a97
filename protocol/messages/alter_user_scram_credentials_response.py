# Generated from AlterUserScramCredentialsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "AlterUserScramCredentialsResponse"
API_KEY = 51
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class AlterUserScramCredentialsResult:
    user: str = ""
    error_code: int = 0
    error_message: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterUserScramCredentialsResponse:
    throttle_time_ms: int = 0
    results: list[AlterUserScramCredentialsResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AlterUserScramCredentialsResult_v0(r: Reader) -> AlterUserScramCredentialsResult:
    user = r.compact_string()
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return AlterUserScramCredentialsResult(user=user, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_AlterUserScramCredentialsResult_v0(w: Writer, m: AlterUserScramCredentialsResult) -> None:
    write_compact_string(w, m.user)
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AlterUserScramCredentialsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterUserScramCredentialsResponse.Results is null")
    results = [_read_AlterUserScramCredentialsResult_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterUserScramCredentialsResponse(throttle_time_ms=throttle_time_ms, results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AlterUserScramCredentialsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AlterUserScramCredentialsResult_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> AlterUserScramCredentialsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AlterUserScramCredentialsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AlterUserScramCredentialsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AlterUserScramCredentialsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
