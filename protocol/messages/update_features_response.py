# Generated from UpdateFeaturesResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "UpdateFeaturesResponse"
API_KEY = 57
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class UpdatableFeatureResult:
    feature: str = ""
    error_code: int = 0
    error_message: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class UpdateFeaturesResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    results: list[UpdatableFeatureResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_UpdatableFeatureResult_v0(r: Reader) -> UpdatableFeatureResult:
    feature = r.compact_string()
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return UpdatableFeatureResult(feature=feature, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_UpdatableFeatureResult_v0(w: Writer, m: UpdatableFeatureResult) -> None:
    write_compact_string(w, m.feature)
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> UpdateFeaturesResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateFeaturesResponse.Results is null")
    results = [_read_UpdatableFeatureResult_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return UpdateFeaturesResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: UpdateFeaturesResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdatableFeatureResult_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> UpdateFeaturesResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: UpdateFeaturesResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> UpdateFeaturesResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: UpdateFeaturesResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
