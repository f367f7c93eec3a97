# Generated from RenewDelegationTokenResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "RenewDelegationTokenResponse"
API_KEY = 39
TYPE = "response"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_hqi = _struct.Struct(">hqi")


@dataclass(slots=True)
class RenewDelegationTokenResponse:
    error_code: int = 0
    expiry_timestamp_ms: int = 0
    throttle_time_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> RenewDelegationTokenResponse:
    error_code, expiry_timestamp_ms, throttle_time_ms = r.unpack(_S_hqi)
    return RenewDelegationTokenResponse(error_code=error_code, expiry_timestamp_ms=expiry_timestamp_ms, throttle_time_ms=throttle_time_ms)


def write_v0(w: Writer, m: RenewDelegationTokenResponse) -> None:
    w += _S_hqi.pack(m.error_code, m.expiry_timestamp_ms, m.throttle_time_ms)


def read_v2(r: Reader) -> RenewDelegationTokenResponse:
    error_code, expiry_timestamp_ms, throttle_time_ms = r.unpack(_S_hqi)
    unknown_tagged_fields = r.tagged_fields()
    return RenewDelegationTokenResponse(error_code=error_code, expiry_timestamp_ms=expiry_timestamp_ms, throttle_time_ms=throttle_time_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: RenewDelegationTokenResponse) -> None:
    w += _S_hqi.pack(m.error_code, m.expiry_timestamp_ms, m.throttle_time_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> RenewDelegationTokenResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: RenewDelegationTokenResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> RenewDelegationTokenResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: RenewDelegationTokenResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
