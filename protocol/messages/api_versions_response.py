# Generated from ApiVersionsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "ApiVersionsResponse"
API_KEY = 18
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (3, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_hh = _struct.Struct(">hh")
_S_hhh = _struct.Struct(">hhh")
_S_i = _struct.Struct(">i")
_S_q = _struct.Struct(">q")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class ApiVersion:
    api_key: int = 0
    min_version: int = 0
    max_version: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class SupportedFeatureKey:
    name: str = ""
    min_version: int = 0
    max_version: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FinalizedFeatureKey:
    name: str = ""
    max_version_level: int = 0
    min_version_level: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ApiVersionsResponse:
    error_code: int = 0
    api_keys: list[ApiVersion] = _field(default_factory=list)
    throttle_time_ms: int = 0
    supported_features: list[SupportedFeatureKey] = _field(default_factory=list)
    finalized_features_epoch: int = -1
    finalized_features: list[FinalizedFeatureKey] = _field(default_factory=list)
    zk_migration_ready: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ApiVersion_v0(r: Reader) -> ApiVersion:
    api_key, min_version, max_version = r.unpack(_S_hhh)
    return ApiVersion(api_key=api_key, min_version=min_version, max_version=max_version)


def _write_ApiVersion_v0(w: Writer, m: ApiVersion) -> None:
    w += _S_hhh.pack(m.api_key, m.min_version, m.max_version)


def _read_ApiVersion_v3(r: Reader) -> ApiVersion:
    api_key, min_version, max_version = r.unpack(_S_hhh)
    unknown_tagged_fields = r.tagged_fields()
    return ApiVersion(api_key=api_key, min_version=min_version, max_version=max_version, unknown_tagged_fields=unknown_tagged_fields)


def _write_ApiVersion_v3(w: Writer, m: ApiVersion) -> None:
    w += _S_hhh.pack(m.api_key, m.min_version, m.max_version)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_SupportedFeatureKey_v3(r: Reader) -> SupportedFeatureKey:
    name = r.compact_string()
    min_version, max_version = r.unpack(_S_hh)
    unknown_tagged_fields = r.tagged_fields()
    return SupportedFeatureKey(name=name, min_version=min_version, max_version=max_version, unknown_tagged_fields=unknown_tagged_fields)


def _write_SupportedFeatureKey_v3(w: Writer, m: SupportedFeatureKey) -> None:
    write_compact_string(w, m.name)
    w += _S_hh.pack(m.min_version, m.max_version)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FinalizedFeatureKey_v3(r: Reader) -> FinalizedFeatureKey:
    name = r.compact_string()
    max_version_level, min_version_level = r.unpack(_S_hh)
    unknown_tagged_fields = r.tagged_fields()
    return FinalizedFeatureKey(name=name, max_version_level=max_version_level, min_version_level=min_version_level, unknown_tagged_fields=unknown_tagged_fields)


def _write_FinalizedFeatureKey_v3(w: Writer, m: FinalizedFeatureKey) -> None:
    write_compact_string(w, m.name)
    w += _S_hh.pack(m.max_version_level, m.min_version_level)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ApiVersionsResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ApiVersionsResponse.ApiKeys is null")
    api_keys = [_read_ApiVersion_v0(r) for _ in range(_n)]
    return ApiVersionsResponse(error_code=error_code, api_keys=api_keys)


def write_v0(w: Writer, m: ApiVersionsResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.api_keys
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ApiVersion_v0(w, _e)


def read_v1(r: Reader) -> ApiVersionsResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ApiVersionsResponse.ApiKeys is null")
    api_keys = [_read_ApiVersion_v0(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    return ApiVersionsResponse(error_code=error_code, api_keys=api_keys, throttle_time_ms=throttle_time_ms)


def write_v1(w: Writer, m: ApiVersionsResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.api_keys
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ApiVersion_v0(w, _e)
    w += _S_i.pack(m.throttle_time_ms)


def read_v3(r: Reader) -> ApiVersionsResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ApiVersionsResponse.ApiKeys is null")
    api_keys = [_read_ApiVersion_v3(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    supported_features = []
    finalized_features_epoch = -1
    finalized_features = []
    zk_migration_ready = False
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            _n = r.compact_array_length()
            if _n < 0:
                raise ProtocolError("non-nullable array ApiVersionsResponse.SupportedFeatures is null")
            supported_features = [_read_SupportedFeatureKey_v3(r) for _ in range(_n)]
            if r.pos != _end:
                raise ProtocolError("tagged field ApiVersionsResponse.SupportedFeatures does not match its size")
        elif _tag == 1:
            _end = r.pos + _size
            finalized_features_epoch = r.int64()
            if r.pos != _end:
                raise ProtocolError("tagged field ApiVersionsResponse.FinalizedFeaturesEpoch does not match its size")
        elif _tag == 2:
            _end = r.pos + _size
            _n = r.compact_array_length()
            if _n < 0:
                raise ProtocolError("non-nullable array ApiVersionsResponse.FinalizedFeatures is null")
            finalized_features = [_read_FinalizedFeatureKey_v3(r) for _ in range(_n)]
            if r.pos != _end:
                raise ProtocolError("tagged field ApiVersionsResponse.FinalizedFeatures does not match its size")
        elif _tag == 3:
            _end = r.pos + _size
            zk_migration_ready = r.boolean()
            if r.pos != _end:
                raise ProtocolError("tagged field ApiVersionsResponse.ZkMigrationReady does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return ApiVersionsResponse(error_code=error_code, api_keys=api_keys, throttle_time_ms=throttle_time_ms, supported_features=supported_features, finalized_features_epoch=finalized_features_epoch, finalized_features=finalized_features, zk_migration_ready=zk_migration_ready, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: ApiVersionsResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.api_keys
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ApiVersion_v3(w, _e)
    w += _S_i.pack(m.throttle_time_ms)
    _known = []
    if m.supported_features != []:
        _t = Writer()
        _v = m.supported_features
        write_uvarint(_t, len(_v) + 1)
        for _e in _v:
            _write_SupportedFeatureKey_v3(_t, _e)
        _known.append((0, _t))
    if m.finalized_features_epoch != -1:
        _t = Writer()
        _t += _S_q.pack(m.finalized_features_epoch)
        _known.append((1, _t))
    if m.finalized_features != []:
        _t = Writer()
        _v = m.finalized_features
        write_uvarint(_t, len(_v) + 1)
        for _e in _v:
            _write_FinalizedFeatureKey_v3(_t, _e)
        _known.append((2, _t))
    if m.zk_migration_ready != False:
        _t = Writer()
        _t += _S_x.pack(m.zk_migration_ready)
        _known.append((3, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


read_v2 = read_v1
write_v2 = write_v1
read_v4 = read_v3
write_v4 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> ApiVersionsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ApiVersionsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ApiVersionsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ApiVersionsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
