# Generated from DescribeConfigsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DescribeConfigsResponse"
API_KEY = 32
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (4, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_xbx = _struct.Struct(">?b?")
_S_xxx = _struct.Struct(">???")


@dataclass(slots=True)
class DescribeConfigsSynonym:
    name: str = ""
    value: str | None = ""
    source: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeConfigsResourceResult:
    name: str = ""
    value: str | None = ""
    read_only: bool = False
    is_default: bool = False
    config_source: int = -1
    is_sensitive: bool = False
    synonyms: list[DescribeConfigsSynonym] = _field(default_factory=list)
    config_type: int = 0
    documentation: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeConfigsResult:
    error_code: int = 0
    error_message: str | None = ""
    resource_type: int = 0
    resource_name: str = ""
    configs: list[DescribeConfigsResourceResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeConfigsResponse:
    throttle_time_ms: int = 0
    results: list[DescribeConfigsResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribeConfigsSynonym_v1(r: Reader) -> DescribeConfigsSynonym:
    name = r.string()
    value = r.nullable_string()
    source = r.int8()
    return DescribeConfigsSynonym(name=name, value=value, source=source)


def _write_DescribeConfigsSynonym_v1(w: Writer, m: DescribeConfigsSynonym) -> None:
    write_string(w, m.name)
    write_nullable_string(w, m.value)
    w += _S_b.pack(m.source)


def _read_DescribeConfigsSynonym_v4(r: Reader) -> DescribeConfigsSynonym:
    name = r.compact_string()
    value = r.compact_nullable_string()
    source = r.int8()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeConfigsSynonym(name=name, value=value, source=source, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeConfigsSynonym_v4(w: Writer, m: DescribeConfigsSynonym) -> None:
    write_compact_string(w, m.name)
    write_compact_nullable_string(w, m.value)
    w += _S_b.pack(m.source)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribeConfigsResourceResult_v0(r: Reader) -> DescribeConfigsResourceResult:
    name = r.string()
    value = r.nullable_string()
    read_only, is_default, is_sensitive = r.unpack(_S_xxx)
    return DescribeConfigsResourceResult(name=name, value=value, read_only=read_only, is_default=is_default, is_sensitive=is_sensitive)


def _write_DescribeConfigsResourceResult_v0(w: Writer, m: DescribeConfigsResourceResult) -> None:
    write_string(w, m.name)
    write_nullable_string(w, m.value)
    w += _S_xxx.pack(m.read_only, m.is_default, m.is_sensitive)


def _read_DescribeConfigsResourceResult_v1(r: Reader) -> DescribeConfigsResourceResult:
    name = r.string()
    value = r.nullable_string()
    read_only, config_source, is_sensitive = r.unpack(_S_xbx)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Synonyms is null")
    synonyms = [_read_DescribeConfigsSynonym_v1(r) for _ in range(_n)]
    return DescribeConfigsResourceResult(name=name, value=value, read_only=read_only, config_source=config_source, is_sensitive=is_sensitive, synonyms=synonyms)


def _write_DescribeConfigsResourceResult_v1(w: Writer, m: DescribeConfigsResourceResult) -> None:
    write_string(w, m.name)
    write_nullable_string(w, m.value)
    w += _S_xbx.pack(m.read_only, m.config_source, m.is_sensitive)
    _v = m.synonyms
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsSynonym_v1(w, _e)


def _read_DescribeConfigsResourceResult_v3(r: Reader) -> DescribeConfigsResourceResult:
    name = r.string()
    value = r.nullable_string()
    read_only, config_source, is_sensitive = r.unpack(_S_xbx)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Synonyms is null")
    synonyms = [_read_DescribeConfigsSynonym_v1(r) for _ in range(_n)]
    config_type = r.int8()
    documentation = r.nullable_string()
    return DescribeConfigsResourceResult(name=name, value=value, read_only=read_only, config_source=config_source, is_sensitive=is_sensitive, synonyms=synonyms, config_type=config_type, documentation=documentation)


def _write_DescribeConfigsResourceResult_v3(w: Writer, m: DescribeConfigsResourceResult) -> None:
    write_string(w, m.name)
    write_nullable_string(w, m.value)
    w += _S_xbx.pack(m.read_only, m.config_source, m.is_sensitive)
    _v = m.synonyms
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsSynonym_v1(w, _e)
    w += _S_b.pack(m.config_type)
    write_nullable_string(w, m.documentation)


def _read_DescribeConfigsResourceResult_v4(r: Reader) -> DescribeConfigsResourceResult:
    name = r.compact_string()
    value = r.compact_nullable_string()
    read_only, config_source, is_sensitive = r.unpack(_S_xbx)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Synonyms is null")
    synonyms = [_read_DescribeConfigsSynonym_v4(r) for _ in range(_n)]
    config_type = r.int8()
    documentation = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeConfigsResourceResult(name=name, value=value, read_only=read_only, config_source=config_source, is_sensitive=is_sensitive, synonyms=synonyms, config_type=config_type, documentation=documentation, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeConfigsResourceResult_v4(w: Writer, m: DescribeConfigsResourceResult) -> None:
    write_compact_string(w, m.name)
    write_compact_nullable_string(w, m.value)
    w += _S_xbx.pack(m.read_only, m.config_source, m.is_sensitive)
    _v = m.synonyms
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeConfigsSynonym_v4(w, _e)
    w += _S_b.pack(m.config_type)
    write_compact_nullable_string(w, m.documentation)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribeConfigsResult_v0(r: Reader) -> DescribeConfigsResult:
    error_code = r.int16()
    error_message = r.nullable_string()
    resource_type = r.int8()
    resource_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Configs is null")
    configs = [_read_DescribeConfigsResourceResult_v0(r) for _ in range(_n)]
    return DescribeConfigsResult(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name, configs=configs)


def _write_DescribeConfigsResult_v0(w: Writer, m: DescribeConfigsResult) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    _v = m.configs
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResourceResult_v0(w, _e)


def _read_DescribeConfigsResult_v1(r: Reader) -> DescribeConfigsResult:
    error_code = r.int16()
    error_message = r.nullable_string()
    resource_type = r.int8()
    resource_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Configs is null")
    configs = [_read_DescribeConfigsResourceResult_v1(r) for _ in range(_n)]
    return DescribeConfigsResult(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name, configs=configs)


def _write_DescribeConfigsResult_v1(w: Writer, m: DescribeConfigsResult) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    _v = m.configs
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResourceResult_v1(w, _e)


def _read_DescribeConfigsResult_v3(r: Reader) -> DescribeConfigsResult:
    error_code = r.int16()
    error_message = r.nullable_string()
    resource_type = r.int8()
    resource_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Configs is null")
    configs = [_read_DescribeConfigsResourceResult_v3(r) for _ in range(_n)]
    return DescribeConfigsResult(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name, configs=configs)


def _write_DescribeConfigsResult_v3(w: Writer, m: DescribeConfigsResult) -> None:
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_string(w, m.resource_name)
    _v = m.configs
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResourceResult_v3(w, _e)


def _read_DescribeConfigsResult_v4(r: Reader) -> DescribeConfigsResult:
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    resource_type = r.int8()
    resource_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Configs is null")
    configs = [_read_DescribeConfigsResourceResult_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeConfigsResult(error_code=error_code, error_message=error_message, resource_type=resource_type, resource_name=resource_name, configs=configs, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeConfigsResult_v4(w: Writer, m: DescribeConfigsResult) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_b.pack(m.resource_type)
    write_compact_string(w, m.resource_name)
    _v = m.configs
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeConfigsResourceResult_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeConfigsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Results is null")
    results = [_read_DescribeConfigsResult_v0(r) for _ in range(_n)]
    return DescribeConfigsResponse(throttle_time_ms=throttle_time_ms, results=results)


def write_v0(w: Writer, m: DescribeConfigsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResult_v0(w, _e)


def read_v1(r: Reader) -> DescribeConfigsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Results is null")
    results = [_read_DescribeConfigsResult_v1(r) for _ in range(_n)]
    return DescribeConfigsResponse(throttle_time_ms=throttle_time_ms, results=results)


def write_v1(w: Writer, m: DescribeConfigsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResult_v1(w, _e)


def read_v3(r: Reader) -> DescribeConfigsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Results is null")
    results = [_read_DescribeConfigsResult_v3(r) for _ in range(_n)]
    return DescribeConfigsResponse(throttle_time_ms=throttle_time_ms, results=results)


def write_v3(w: Writer, m: DescribeConfigsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeConfigsResult_v3(w, _e)


def read_v4(r: Reader) -> DescribeConfigsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeConfigsResponse.Results is null")
    results = [_read_DescribeConfigsResult_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeConfigsResponse(throttle_time_ms=throttle_time_ms, results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: DescribeConfigsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeConfigsResult_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> DescribeConfigsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeConfigsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeConfigsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeConfigsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
