# Generated from DescribeDelegationTokenResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_bytes,
    write_compact_bytes,
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeDelegationTokenResponse"
API_KEY = 41
TYPE = "response"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_qqq = _struct.Struct(">qqq")


@dataclass(slots=True)
class DescribedDelegationTokenRenewer:
    principal_type: str = ""
    principal_name: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribedDelegationToken:
    principal_type: str = ""
    principal_name: str = ""
    token_requester_principal_type: str = ""
    token_requester_principal_name: str = ""
    issue_timestamp: int = 0
    expiry_timestamp: int = 0
    max_timestamp: int = 0
    token_id: str = ""
    hmac: bytes = b""
    renewers: list[DescribedDelegationTokenRenewer] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeDelegationTokenResponse:
    error_code: int = 0
    tokens: list[DescribedDelegationToken] = _field(default_factory=list)
    throttle_time_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribedDelegationTokenRenewer_v0(r: Reader) -> DescribedDelegationTokenRenewer:
    principal_type = r.string()
    principal_name = r.string()
    return DescribedDelegationTokenRenewer(principal_type=principal_type, principal_name=principal_name)


def _write_DescribedDelegationTokenRenewer_v0(w: Writer, m: DescribedDelegationTokenRenewer) -> None:
    write_string(w, m.principal_type)
    write_string(w, m.principal_name)


def _read_DescribedDelegationTokenRenewer_v2(r: Reader) -> DescribedDelegationTokenRenewer:
    principal_type = r.compact_string()
    principal_name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return DescribedDelegationTokenRenewer(principal_type=principal_type, principal_name=principal_name, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribedDelegationTokenRenewer_v2(w: Writer, m: DescribedDelegationTokenRenewer) -> None:
    write_compact_string(w, m.principal_type)
    write_compact_string(w, m.principal_name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribedDelegationToken_v0(r: Reader) -> DescribedDelegationToken:
    principal_type = r.string()
    principal_name = r.string()
    issue_timestamp, expiry_timestamp, max_timestamp = r.unpack(_S_qqq)
    token_id = r.string()
    hmac = r.bytes_()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeDelegationTokenResponse.Renewers is null")
    renewers = [_read_DescribedDelegationTokenRenewer_v0(r) for _ in range(_n)]
    return DescribedDelegationToken(principal_type=principal_type, principal_name=principal_name, issue_timestamp=issue_timestamp, expiry_timestamp=expiry_timestamp, max_timestamp=max_timestamp, token_id=token_id, hmac=hmac, renewers=renewers)


def _write_DescribedDelegationToken_v0(w: Writer, m: DescribedDelegationToken) -> None:
    write_string(w, m.principal_type)
    write_string(w, m.principal_name)
    w += _S_qqq.pack(m.issue_timestamp, m.expiry_timestamp, m.max_timestamp)
    write_string(w, m.token_id)
    write_bytes(w, m.hmac)
    _v = m.renewers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedDelegationTokenRenewer_v0(w, _e)


def _read_DescribedDelegationToken_v2(r: Reader) -> DescribedDelegationToken:
    principal_type = r.compact_string()
    principal_name = r.compact_string()
    issue_timestamp, expiry_timestamp, max_timestamp = r.unpack(_S_qqq)
    token_id = r.compact_string()
    hmac = r.compact_bytes()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeDelegationTokenResponse.Renewers is null")
    renewers = [_read_DescribedDelegationTokenRenewer_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribedDelegationToken(principal_type=principal_type, principal_name=principal_name, issue_timestamp=issue_timestamp, expiry_timestamp=expiry_timestamp, max_timestamp=max_timestamp, token_id=token_id, hmac=hmac, renewers=renewers, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribedDelegationToken_v2(w: Writer, m: DescribedDelegationToken) -> None:
    write_compact_string(w, m.principal_type)
    write_compact_string(w, m.principal_name)
    w += _S_qqq.pack(m.issue_timestamp, m.expiry_timestamp, m.max_timestamp)
    write_compact_string(w, m.token_id)
    write_compact_bytes(w, m.hmac)
    _v = m.renewers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribedDelegationTokenRenewer_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribedDelegationToken_v3(r: Reader) -> DescribedDelegationToken:
    principal_type = r.compact_string()
    principal_name = r.compact_string()
    token_requester_principal_type = r.compact_string()
    token_requester_principal_name = r.compact_string()
    issue_timestamp, expiry_timestamp, max_timestamp = r.unpack(_S_qqq)
    token_id = r.compact_string()
    hmac = r.compact_bytes()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeDelegationTokenResponse.Renewers is null")
    renewers = [_read_DescribedDelegationTokenRenewer_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribedDelegationToken(principal_type=principal_type, principal_name=principal_name, token_requester_principal_type=token_requester_principal_type, token_requester_principal_name=token_requester_principal_name, issue_timestamp=issue_timestamp, expiry_timestamp=expiry_timestamp, max_timestamp=max_timestamp, token_id=token_id, hmac=hmac, renewers=renewers, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribedDelegationToken_v3(w: Writer, m: DescribedDelegationToken) -> None:
    write_compact_string(w, m.principal_type)
    write_compact_string(w, m.principal_name)
    write_compact_string(w, m.token_requester_principal_type)
    write_compact_string(w, m.token_requester_principal_name)
    w += _S_qqq.pack(m.issue_timestamp, m.expiry_timestamp, m.max_timestamp)
    write_compact_string(w, m.token_id)
    write_compact_bytes(w, m.hmac)
    _v = m.renewers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribedDelegationTokenRenewer_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeDelegationTokenResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeDelegationTokenResponse.Tokens is null")
    tokens = [_read_DescribedDelegationToken_v0(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    return DescribeDelegationTokenResponse(error_code=error_code, tokens=tokens, throttle_time_ms=throttle_time_ms)


def write_v0(w: Writer, m: DescribeDelegationTokenResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.tokens
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedDelegationToken_v0(w, _e)
    w += _S_i.pack(m.throttle_time_ms)


def read_v2(r: Reader) -> DescribeDelegationTokenResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeDelegationTokenResponse.Tokens is null")
    tokens = [_read_DescribedDelegationToken_v2(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeDelegationTokenResponse(error_code=error_code, tokens=tokens, throttle_time_ms=throttle_time_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DescribeDelegationTokenResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.tokens
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribedDelegationToken_v2(w, _e)
    w += _S_i.pack(m.throttle_time_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v3(r: Reader) -> DescribeDelegationTokenResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeDelegationTokenResponse.Tokens is null")
    tokens = [_read_DescribedDelegationToken_v3(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeDelegationTokenResponse(error_code=error_code, tokens=tokens, throttle_time_ms=throttle_time_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: DescribeDelegationTokenResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.tokens
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribedDelegationToken_v3(w, _e)
    w += _S_i.pack(m.throttle_time_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> DescribeDelegationTokenResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeDelegationTokenResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeDelegationTokenResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeDelegationTokenResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
