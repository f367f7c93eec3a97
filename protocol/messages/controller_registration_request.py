# Generated from ControllerRegistrationRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    ZERO_UUID,
    decode_message,
    encode_message,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ControllerRegistrationRequest"
API_KEY = 70
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("controller",)
LATEST_VERSION_UNSTABLE = False

_S_Hh = _struct.Struct(">Hh")
_S_hh = _struct.Struct(">hh")
_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class Listener:
    name: str = ""
    host: str = ""
    port: int = 0
    security_protocol: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Feature:
    name: str = ""
    min_supported_version: int = 0
    max_supported_version: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ControllerRegistrationRequest:
    controller_id: int = 0
    incarnation_id: uuid.UUID = ZERO_UUID
    zk_migration_ready: bool = False
    listeners: list[Listener] = _field(default_factory=list)
    features: list[Feature] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_Listener_v0(r: Reader) -> Listener:
    name = r.compact_string()
    host = r.compact_string()
    port, security_protocol = r.unpack(_S_Hh)
    unknown_tagged_fields = r.tagged_fields()
    return Listener(name=name, host=host, port=port, security_protocol=security_protocol, unknown_tagged_fields=unknown_tagged_fields)


def _write_Listener_v0(w: Writer, m: Listener) -> None:
    write_compact_string(w, m.name)
    write_compact_string(w, m.host)
    w += _S_Hh.pack(m.port, m.security_protocol)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Feature_v0(r: Reader) -> Feature:
    name = r.compact_string()
    min_supported_version, max_supported_version = r.unpack(_S_hh)
    unknown_tagged_fields = r.tagged_fields()
    return Feature(name=name, min_supported_version=min_supported_version, max_supported_version=max_supported_version, unknown_tagged_fields=unknown_tagged_fields)


def _write_Feature_v0(w: Writer, m: Feature) -> None:
    write_compact_string(w, m.name)
    w += _S_hh.pack(m.min_supported_version, m.max_supported_version)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ControllerRegistrationRequest:
    controller_id = r.int32()
    incarnation_id = r.uuid()
    zk_migration_ready = r.boolean()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ControllerRegistrationRequest.Listeners is null")
    listeners = [_read_Listener_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ControllerRegistrationRequest.Features is null")
    features = [_read_Feature_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ControllerRegistrationRequest(controller_id=controller_id, incarnation_id=incarnation_id, zk_migration_ready=zk_migration_ready, listeners=listeners, features=features, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ControllerRegistrationRequest) -> None:
    w += _S_i.pack(m.controller_id)
    w += m.incarnation_id.bytes
    w += _S_x.pack(m.zk_migration_ready)
    _v = m.listeners
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Listener_v0(w, _e)
    _v = m.features
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Feature_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ControllerRegistrationRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ControllerRegistrationRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ControllerRegistrationRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ControllerRegistrationRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
