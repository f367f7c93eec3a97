# Generated from IncrementalAlterConfigsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "IncrementalAlterConfigsRequest"
API_KEY = 44
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class AlterableConfig:
    name: str = ""
    config_operation: int = 0
    value: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterConfigsResource:
    resource_type: int = 0
    resource_name: str = ""
    configs: list[AlterableConfig] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class IncrementalAlterConfigsRequest:
    resources: list[AlterConfigsResource] = _field(default_factory=list)
    validate_only: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AlterableConfig_v0(r: Reader) -> AlterableConfig:
    name = r.string()
    config_operation = r.int8()
    value = r.nullable_string()
    return AlterableConfig(name=name, config_operation=config_operation, value=value)


def _write_AlterableConfig_v0(w: Writer, m: AlterableConfig) -> None:
    write_string(w, m.name)
    w += _S_b.pack(m.config_operation)
    write_nullable_string(w, m.value)


def _read_AlterableConfig_v1(r: Reader) -> AlterableConfig:
    name = r.compact_string()
    config_operation = r.int8()
    value = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return AlterableConfig(name=name, config_operation=config_operation, value=value, unknown_tagged_fields=unknown_tagged_fields)


def _write_AlterableConfig_v1(w: Writer, m: AlterableConfig) -> None:
    write_compact_string(w, m.name)
    w += _S_b.pack(m.config_operation)
    write_compact_nullable_string(w, m.value)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_AlterConfigsResource_v0(r: Reader) -> AlterConfigsResource:
    resource_type = r.int8()
    resource_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array IncrementalAlterConfigsRequest.Configs is null")
    configs = [_read_AlterableConfig_v0(r) for _ in range(_n)]
    return AlterConfigsResource(resource_type=resource_type, resource_name=resource_name, configs=configs)


def _write_AlterConfigsResource_v0(w: Writer, m: AlterConfigsResource) -> None:
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    _v = m.configs
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AlterableConfig_v0(w, _e)


def _read_AlterConfigsResource_v1(r: Reader) -> AlterConfigsResource:
    resource_type = r.int8()
    resource_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array IncrementalAlterConfigsRequest.Configs is null")
    configs = [_read_AlterableConfig_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterConfigsResource(resource_type=resource_type, resource_name=resource_name, configs=configs, unknown_tagged_fields=unknown_tagged_fields)


def _write_AlterConfigsResource_v1(w: Writer, m: AlterConfigsResource) -> None:
    w += _S_b.pack(m.resource_type)
    write_compact_string(w, m.resource_name)
    _v = m.configs
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AlterableConfig_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> IncrementalAlterConfigsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array IncrementalAlterConfigsRequest.Resources is null")
    resources = [_read_AlterConfigsResource_v0(r) for _ in range(_n)]
    validate_only = r.boolean()
    return IncrementalAlterConfigsRequest(resources=resources, validate_only=validate_only)


def write_v0(w: Writer, m: IncrementalAlterConfigsRequest) -> None:
    _v = m.resources
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AlterConfigsResource_v0(w, _e)
    w += _S_x.pack(m.validate_only)


def read_v1(r: Reader) -> IncrementalAlterConfigsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array IncrementalAlterConfigsRequest.Resources is null")
    resources = [_read_AlterConfigsResource_v1(r) for _ in range(_n)]
    validate_only = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return IncrementalAlterConfigsRequest(resources=resources, validate_only=validate_only, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: IncrementalAlterConfigsRequest) -> None:
    _v = m.resources
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AlterConfigsResource_v1(w, _e)
    w += _S_x.pack(m.validate_only)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> IncrementalAlterConfigsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: IncrementalAlterConfigsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> IncrementalAlterConfigsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: IncrementalAlterConfigsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
