# Generated from DescribeUserScramCredentialsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DescribeUserScramCredentialsResponse"
API_KEY = 50
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_bi = _struct.Struct(">bi")
_S_h = _struct.Struct(">h")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class CredentialInfo:
    mechanism: int = 0
    iterations: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeUserScramCredentialsResult:
    user: str = ""
    error_code: int = 0
    error_message: str | None = ""
    credential_infos: list[CredentialInfo] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeUserScramCredentialsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    results: list[DescribeUserScramCredentialsResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_CredentialInfo_v0(r: Reader) -> CredentialInfo:
    mechanism, iterations = r.unpack(_S_bi)
    unknown_tagged_fields = r.tagged_fields()
    return CredentialInfo(mechanism=mechanism, iterations=iterations, unknown_tagged_fields=unknown_tagged_fields)


def _write_CredentialInfo_v0(w: Writer, m: CredentialInfo) -> None:
    w += _S_bi.pack(m.mechanism, m.iterations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribeUserScramCredentialsResult_v0(r: Reader) -> DescribeUserScramCredentialsResult:
    user = r.compact_string()
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeUserScramCredentialsResponse.CredentialInfos is null")
    credential_infos = [_read_CredentialInfo_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeUserScramCredentialsResult(user=user, error_code=error_code, error_message=error_message, credential_infos=credential_infos, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeUserScramCredentialsResult_v0(w: Writer, m: DescribeUserScramCredentialsResult) -> None:
    write_compact_string(w, m.user)
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.credential_infos
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CredentialInfo_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeUserScramCredentialsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeUserScramCredentialsResponse.Results is null")
    results = [_read_DescribeUserScramCredentialsResult_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeUserScramCredentialsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeUserScramCredentialsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeUserScramCredentialsResult_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DescribeUserScramCredentialsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeUserScramCredentialsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeUserScramCredentialsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeUserScramCredentialsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
