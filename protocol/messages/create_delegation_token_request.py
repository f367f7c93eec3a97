# Generated from CreateDelegationTokenRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "CreateDelegationTokenRequest"
API_KEY = 38
TYPE = "request"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_q = _struct.Struct(">q")


@dataclass(slots=True)
class CreatableRenewers:
    principal_type: str = ""
    principal_name: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreateDelegationTokenRequest:
    owner_principal_type: str | None = ""
    owner_principal_name: str | None = ""
    renewers: list[CreatableRenewers] = _field(default_factory=list)
    max_lifetime_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_CreatableRenewers_v0(r: Reader) -> CreatableRenewers:
    principal_type = r.string()
    principal_name = r.string()
    return CreatableRenewers(principal_type=principal_type, principal_name=principal_name)


def _write_CreatableRenewers_v0(w: Writer, m: CreatableRenewers) -> None:
    write_string(w, m.principal_type)
    write_string(w, m.principal_name)


def _read_CreatableRenewers_v2(r: Reader) -> CreatableRenewers:
    principal_type = r.compact_string()
    principal_name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return CreatableRenewers(principal_type=principal_type, principal_name=principal_name, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatableRenewers_v2(w: Writer, m: CreatableRenewers) -> None:
    write_compact_string(w, m.principal_type)
    write_compact_string(w, m.principal_name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> CreateDelegationTokenRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateDelegationTokenRequest.Renewers is null")
    renewers = [_read_CreatableRenewers_v0(r) for _ in range(_n)]
    max_lifetime_ms = r.int64()
    return CreateDelegationTokenRequest(renewers=renewers, max_lifetime_ms=max_lifetime_ms)


def write_v0(w: Writer, m: CreateDelegationTokenRequest) -> None:
    _v = m.renewers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatableRenewers_v0(w, _e)
    w += _S_q.pack(m.max_lifetime_ms)


def read_v2(r: Reader) -> CreateDelegationTokenRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateDelegationTokenRequest.Renewers is null")
    renewers = [_read_CreatableRenewers_v2(r) for _ in range(_n)]
    max_lifetime_ms = r.int64()
    unknown_tagged_fields = r.tagged_fields()
    return CreateDelegationTokenRequest(renewers=renewers, max_lifetime_ms=max_lifetime_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: CreateDelegationTokenRequest) -> None:
    _v = m.renewers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CreatableRenewers_v2(w, _e)
    w += _S_q.pack(m.max_lifetime_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v3(r: Reader) -> CreateDelegationTokenRequest:
    owner_principal_type = r.compact_nullable_string()
    owner_principal_name = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateDelegationTokenRequest.Renewers is null")
    renewers = [_read_CreatableRenewers_v2(r) for _ in range(_n)]
    max_lifetime_ms = r.int64()
    unknown_tagged_fields = r.tagged_fields()
    return CreateDelegationTokenRequest(owner_principal_type=owner_principal_type, owner_principal_name=owner_principal_name, renewers=renewers, max_lifetime_ms=max_lifetime_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: CreateDelegationTokenRequest) -> None:
    write_compact_nullable_string(w, m.owner_principal_type)
    write_compact_nullable_string(w, m.owner_principal_name)
    _v = m.renewers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CreatableRenewers_v2(w, _e)
    w += _S_q.pack(m.max_lifetime_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> CreateDelegationTokenRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: CreateDelegationTokenRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> CreateDelegationTokenRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: CreateDelegationTokenRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
