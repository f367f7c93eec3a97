# Generated from CreateAclsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "CreateAclsRequest"
API_KEY = 30
TYPE = "request"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_bb = _struct.Struct(">bb")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class AclCreation:
    resource_type: int = 0
    resource_name: str = ""
    resource_pattern_type: int = 3
    principal: str = ""
    host: str = ""
    operation: int = 0
    permission_type: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreateAclsRequest:
    creations: list[AclCreation] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AclCreation_v0(r: Reader) -> AclCreation:
    resource_type = r.int8()
    resource_name = r.string()
    principal = r.string()
    host = r.string()
    operation, permission_type = r.unpack(_S_bb)
    return AclCreation(resource_type=resource_type, resource_name=resource_name, principal=principal, host=host, operation=operation, permission_type=permission_type)


def _write_AclCreation_v0(w: Writer, m: AclCreation) -> None:
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    write_string(w, m.principal)
    write_string(w, m.host)
    w += _S_bb.pack(m.operation, m.permission_type)


def _read_AclCreation_v1(r: Reader) -> AclCreation:
    resource_type = r.int8()
    resource_name = r.string()
    resource_pattern_type = r.int8()
    principal = r.string()
    host = r.string()
    operation, permission_type = r.unpack(_S_bb)
    return AclCreation(resource_type=resource_type, resource_name=resource_name, resource_pattern_type=resource_pattern_type, principal=principal, host=host, operation=operation, permission_type=permission_type)


def _write_AclCreation_v1(w: Writer, m: AclCreation) -> None:
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    w += _S_b.pack(m.resource_pattern_type)
    write_string(w, m.principal)
    write_string(w, m.host)
    w += _S_bb.pack(m.operation, m.permission_type)


def _read_AclCreation_v2(r: Reader) -> AclCreation:
    resource_type = r.int8()
    resource_name = r.compact_string()
    resource_pattern_type = r.int8()
    principal = r.compact_string()
    host = r.compact_string()
    operation, permission_type = r.unpack(_S_bb)
    unknown_tagged_fields = r.tagged_fields()
    return AclCreation(resource_type=resource_type, resource_name=resource_name, resource_pattern_type=resource_pattern_type, principal=principal, host=host, operation=operation, permission_type=permission_type, unknown_tagged_fields=unknown_tagged_fields)


def _write_AclCreation_v2(w: Writer, m: AclCreation) -> None:
    w += _S_b.pack(m.resource_type)
    write_compact_string(w, m.resource_name)
    w += _S_b.pack(m.resource_pattern_type)
    write_compact_string(w, m.principal)
    write_compact_string(w, m.host)
    w += _S_bb.pack(m.operation, m.permission_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> CreateAclsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateAclsRequest.Creations is null")
    creations = [_read_AclCreation_v0(r) for _ in range(_n)]
    return CreateAclsRequest(creations=creations)


def write_v0(w: Writer, m: CreateAclsRequest) -> None:
    _v = m.creations
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AclCreation_v0(w, _e)


def read_v1(r: Reader) -> CreateAclsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateAclsRequest.Creations is null")
    creations = [_read_AclCreation_v1(r) for _ in range(_n)]
    return CreateAclsRequest(creations=creations)


def write_v1(w: Writer, m: CreateAclsRequest) -> None:
    _v = m.creations
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AclCreation_v1(w, _e)


def read_v2(r: Reader) -> CreateAclsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateAclsRequest.Creations is null")
    creations = [_read_AclCreation_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return CreateAclsRequest(creations=creations, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: CreateAclsRequest) -> None:
    _v = m.creations
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AclCreation_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v3 = read_v2
write_v3 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> CreateAclsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: CreateAclsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> CreateAclsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: CreateAclsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
