# Generated from CreateDelegationTokenResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
)

NAME = "CreateDelegationTokenResponse"
API_KEY = 38
TYPE = "response"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_qqq = _struct.Struct(">qqq")


@dataclass(slots=True)
class CreateDelegationTokenResponse:
    error_code: int = 0
    principal_type: str = ""
    principal_name: str = ""
    token_requester_principal_type: str = ""
    token_requester_principal_name: str = ""
    issue_timestamp_ms: int = 0
    expiry_timestamp_ms: int = 0
    max_timestamp_ms: int = 0
    token_id: str = ""
    hmac: bytes = b""
    throttle_time_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> CreateDelegationTokenResponse:
    error_code = r.int16()
    principal_type = r.string()
    principal_name = r.string()
    issue_timestamp_ms, expiry_timestamp_ms, max_timestamp_ms = r.unpack(_S_qqq)
    token_id = r.string()
    hmac = r.bytes_()
    throttle_time_ms = r.int32()
    return CreateDelegationTokenResponse(error_code=error_code, principal_type=principal_type, principal_name=principal_name, issue_timestamp_ms=issue_timestamp_ms, expiry_timestamp_ms=expiry_timestamp_ms, max_timestamp_ms=max_timestamp_ms, token_id=token_id, hmac=hmac, throttle_time_ms=throttle_time_ms)


def write_v0(w: Writer, m: CreateDelegationTokenResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.principal_type)
    write_string(w, m.principal_name)
    w += _S_qqq.pack(m.issue_timestamp_ms, m.expiry_timestamp_ms, m.max_timestamp_ms)
    write_string(w, m.token_id)
    write_bytes(w, m.hmac)
    w += _S_i.pack(m.throttle_time_ms)


def read_v2(r: Reader) -> CreateDelegationTokenResponse:
    error_code = r.int16()
    principal_type = r.compact_string()
    principal_name = r.compact_string()
    issue_timestamp_ms, expiry_timestamp_ms, max_timestamp_ms = r.unpack(_S_qqq)
    token_id = r.compact_string()
    hmac = r.compact_bytes()
    throttle_time_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return CreateDelegationTokenResponse(error_code=error_code, principal_type=principal_type, principal_name=principal_name, issue_timestamp_ms=issue_timestamp_ms, expiry_timestamp_ms=expiry_timestamp_ms, max_timestamp_ms=max_timestamp_ms, token_id=token_id, hmac=hmac, throttle_time_ms=throttle_time_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: CreateDelegationTokenResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_string(w, m.principal_type)
    write_compact_string(w, m.principal_name)
    w += _S_qqq.pack(m.issue_timestamp_ms, m.expiry_timestamp_ms, m.max_timestamp_ms)
    write_compact_string(w, m.token_id)
    write_compact_bytes(w, m.hmac)
    w += _S_i.pack(m.throttle_time_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v3(r: Reader) -> CreateDelegationTokenResponse:
    error_code = r.int16()
    principal_type = r.compact_string()
    principal_name = r.compact_string()
    token_requester_principal_type = r.compact_string()
    token_requester_principal_name = r.compact_string()
    issue_timestamp_ms, expiry_timestamp_ms, max_timestamp_ms = r.unpack(_S_qqq)
    token_id = r.compact_string()
    hmac = r.compact_bytes()
    throttle_time_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return CreateDelegationTokenResponse(error_code=error_code, principal_type=principal_type, principal_name=principal_name, token_requester_principal_type=token_requester_principal_type, token_requester_principal_name=token_requester_principal_name, issue_timestamp_ms=issue_timestamp_ms, expiry_timestamp_ms=expiry_timestamp_ms, max_timestamp_ms=max_timestamp_ms, token_id=token_id, hmac=hmac, throttle_time_ms=throttle_time_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: CreateDelegationTokenResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_string(w, m.principal_type)
    write_compact_string(w, m.principal_name)
    write_compact_string(w, m.token_requester_principal_type)
    write_compact_string(w, m.token_requester_principal_name)
    w += _S_qqq.pack(m.issue_timestamp_ms, m.expiry_timestamp_ms, m.max_timestamp_ms)
    write_compact_string(w, m.token_id)
    write_compact_bytes(w, m.hmac)
    w += _S_i.pack(m.throttle_time_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> CreateDelegationTokenResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: CreateDelegationTokenResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> CreateDelegationTokenResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: CreateDelegationTokenResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
