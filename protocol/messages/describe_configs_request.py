# Generated from DescribeConfigsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_array_length,
    write_compact_array_length,
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeConfigsRequest"
API_KEY = 32
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (4, 4)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")
_S_xx = _struct.Struct(">??")


@dataclass(slots=True)
class DescribeConfigsResource:
    resource_type: int = 0
    resource_name: str = ""
    configuration_keys: list[str] | None = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeConfigsRequest:
    resources: list[DescribeConfigsResource] = _field(default_factory=list)
    include_synonyms: bool = False
    include_documentation: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribeConfigsResource_v0(r: Reader) -> DescribeConfigsResource:
    resource_type = r.int8()
    resource_name = r.string()
    _n = r.array_length()
    configuration_keys = None if _n < 0 else [r.string() for _ in range(_n)]
    return DescribeConfigsResource(resource_type=resource_type, resource_name=resource_name, configuration_keys=configuration_keys)


def _write_DescribeConfigsResource_v0(w: Writer, m: DescribeConfigsResource) -> None:
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    _v = m.configuration_keys
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            write_string(w, _e)


def _read_DescribeConfigsResource_v4(r: Reader) -> DescribeConfigsResource:
    resource_type = r.int8()
    resource_name = r.compact_string()
    _n = r.compact_array_length()
    configuration_keys = None if _n < 0 else [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeConfigsResource(resource_type=resource_type, resource_name=resource_name, configuration_keys=configuration_keys, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeConfigsResource_v4(w: Writer, m: DescribeConfigsResource) -> None:
    w += _S_b.pack(m.resource_type)
    write_compact_string(w, m.resource_name)
    _v = m.configuration_keys
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeConfigsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsRequest.Resources is null")
    resources = [_read_DescribeConfigsResource_v0(r) for _ in range(_n)]
    return DescribeConfigsRequest(resources=resources)


def write_v0(w: Writer, m: DescribeConfigsRequest) -> None:
    _v = m.resources
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResource_v0(w, _e)


def read_v1(r: Reader) -> DescribeConfigsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsRequest.Resources is null")
    resources = [_read_DescribeConfigsResource_v0(r) for _ in range(_n)]
    include_synonyms = r.boolean()
    return DescribeConfigsRequest(resources=resources, include_synonyms=include_synonyms)


def write_v1(w: Writer, m: DescribeConfigsRequest) -> None:
    _v = m.resources
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResource_v0(w, _e)
    w += _S_x.pack(m.include_synonyms)


def read_v3(r: Reader) -> DescribeConfigsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsRequest.Resources is null")
    resources = [_read_DescribeConfigsResource_v0(r) for _ in range(_n)]
    include_synonyms, include_documentation = r.unpack(_S_xx)
    return DescribeConfigsRequest(resources=resources, include_synonyms=include_synonyms, include_documentation=include_documentation)


def write_v3(w: Writer, m: DescribeConfigsRequest) -> None:
    _v = m.resources
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResource_v0(w, _e)
    w += _S_xx.pack(m.include_synonyms, m.include_documentation)


def read_v4(r: Reader) -> DescribeConfigsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsRequest.Resources is null")
    resources = [_read_DescribeConfigsResource_v4(r) for _ in range(_n)]
    include_synonyms, include_documentation = r.unpack(_S_xx)
    unknown_tagged_fields = r.tagged_fields()
    return DescribeConfigsRequest(resources=resources, include_synonyms=include_synonyms, include_documentation=include_documentation, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: DescribeConfigsRequest) -> None:
    _v = m.resources
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeConfigsResource_v4(w, _e)
    w += _S_xx.pack(m.include_synonyms, m.include_documentation)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> DescribeConfigsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeConfigsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeConfigsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeConfigsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
