# Generated from UpdateFeaturesRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "UpdateFeaturesRequest"
API_KEY = 57
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_hb = _struct.Struct(">hb")
_S_hx = _struct.Struct(">h?")
_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class FeatureUpdateKey:
    feature: str = ""
    max_version_level: int = 0
    allow_downgrade: bool = False
    upgrade_type: int = 1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class UpdateFeaturesRequest:
    timeout_ms: int = 60000
    feature_updates: list[FeatureUpdateKey] = _field(default_factory=list)
    validate_only: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_FeatureUpdateKey_v0(r: Reader) -> FeatureUpdateKey:
    feature = r.compact_string()
    max_version_level, allow_downgrade = r.unpack(_S_hx)
    unknown_tagged_fields = r.tagged_fields()
    return FeatureUpdateKey(feature=feature, max_version_level=max_version_level, allow_downgrade=allow_downgrade, unknown_tagged_fields=unknown_tagged_fields)


def _write_FeatureUpdateKey_v0(w: Writer, m: FeatureUpdateKey) -> None:
    write_compact_string(w, m.feature)
    w += _S_hx.pack(m.max_version_level, m.allow_downgrade)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FeatureUpdateKey_v1(r: Reader) -> FeatureUpdateKey:
    feature = r.compact_string()
    max_version_level, upgrade_type = r.unpack(_S_hb)
    unknown_tagged_fields = r.tagged_fields()
    return FeatureUpdateKey(feature=feature, max_version_level=max_version_level, upgrade_type=upgrade_type, unknown_tagged_fields=unknown_tagged_fields)


def _write_FeatureUpdateKey_v1(w: Writer, m: FeatureUpdateKey) -> None:
    write_compact_string(w, m.feature)
    w += _S_hb.pack(m.max_version_level, m.upgrade_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> UpdateFeaturesRequest:
    timeout_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateFeaturesRequest.FeatureUpdates is null")
    feature_updates = [_read_FeatureUpdateKey_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return UpdateFeaturesRequest(timeout_ms=timeout_ms, feature_updates=feature_updates, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: UpdateFeaturesRequest) -> None:
    w += _S_i.pack(m.timeout_ms)
    _v = m.feature_updates
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FeatureUpdateKey_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> UpdateFeaturesRequest:
    timeout_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateFeaturesRequest.FeatureUpdates is null")
    feature_updates = [_read_FeatureUpdateKey_v1(r) for _ in range(_n)]
    validate_only = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return UpdateFeaturesRequest(timeout_ms=timeout_ms, feature_updates=feature_updates, validate_only=validate_only, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: UpdateFeaturesRequest) -> None:
    w += _S_i.pack(m.timeout_ms)
    _v = m.feature_updates
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FeatureUpdateKey_v1(w, _e)
    w += _S_x.pack(m.validate_only)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> UpdateFeaturesRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: UpdateFeaturesRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> UpdateFeaturesRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: UpdateFeaturesRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
