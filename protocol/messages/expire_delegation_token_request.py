# Generated from ExpireDelegationTokenRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
)

NAME = "ExpireDelegationTokenRequest"
API_KEY = 40
TYPE = "request"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_q = _struct.Struct(">q")


@dataclass(slots=True)
class ExpireDelegationTokenRequest:
    hmac: bytes = b""
    expiry_time_period_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ExpireDelegationTokenRequest:
    hmac = r.bytes_()
    expiry_time_period_ms = r.int64()
    return ExpireDelegationTokenRequest(hmac=hmac, expiry_time_period_ms=expiry_time_period_ms)


def write_v0(w: Writer, m: ExpireDelegationTokenRequest) -> None:
    write_bytes(w, m.hmac)
    w += _S_q.pack(m.expiry_time_period_ms)


def read_v2(r: Reader) -> ExpireDelegationTokenRequest:
    hmac = r.compact_bytes()
    expiry_time_period_ms = r.int64()
    unknown_tagged_fields = r.tagged_fields()
    return ExpireDelegationTokenRequest(hmac=hmac, expiry_time_period_ms=expiry_time_period_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: ExpireDelegationTokenRequest) -> None:
    write_compact_bytes(w, m.hmac)
    w += _S_q.pack(m.expiry_time_period_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> ExpireDelegationTokenRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ExpireDelegationTokenRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ExpireDelegationTokenRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ExpireDelegationTokenRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
