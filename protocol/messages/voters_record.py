# Generated from VotersRecord.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "VotersRecord"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_H = _struct.Struct(">H")
_S_h = _struct.Struct(">h")
_S_hh = _struct.Struct(">hh")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class Endpoint:
    name: str = ""
    host: str = ""
    port: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class KRaftVersionFeature:
    min_supported_version: int = 0
    max_supported_version: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Voter:
    voter_id: int = 0
    voter_directory_id: uuid.UUID = ZERO_UUID
    endpoints: list[Endpoint] = _field(default_factory=list)
    kraft_version_feature: KRaftVersionFeature = _field(default_factory=KRaftVersionFeature)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class VotersRecord:
    version: int = 0
    voters: list[Voter] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_Endpoint_v0(r: Reader) -> Endpoint:
    name = r.compact_string()
    host = r.compact_string()
    port = r.uint16()
    unknown_tagged_fields = r.tagged_fields()
    return Endpoint(name=name, host=host, port=port, unknown_tagged_fields=unknown_tagged_fields)


def _write_Endpoint_v0(w: Writer, m: Endpoint) -> None:
    write_compact_string(w, m.name)
    write_compact_string(w, m.host)
    w += _S_H.pack(m.port)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_KRaftVersionFeature_v0(r: Reader) -> KRaftVersionFeature:
    min_supported_version, max_supported_version = r.unpack(_S_hh)
    unknown_tagged_fields = r.tagged_fields()
    return KRaftVersionFeature(min_supported_version=min_supported_version, max_supported_version=max_supported_version, unknown_tagged_fields=unknown_tagged_fields)


def _write_KRaftVersionFeature_v0(w: Writer, m: KRaftVersionFeature) -> None:
    w += _S_hh.pack(m.min_supported_version, m.max_supported_version)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Voter_v0(r: Reader) -> Voter:
    voter_id = r.int32()
    voter_directory_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array VotersRecord.Endpoints is null")
    endpoints = [_read_Endpoint_v0(r) for _ in range(_n)]
    kraft_version_feature = _read_KRaftVersionFeature_v0(r)
    unknown_tagged_fields = r.tagged_fields()
    return Voter(voter_id=voter_id, voter_directory_id=voter_directory_id, endpoints=endpoints, kraft_version_feature=kraft_version_feature, unknown_tagged_fields=unknown_tagged_fields)


def _write_Voter_v0(w: Writer, m: Voter) -> None:
    w += _S_i.pack(m.voter_id)
    w += m.voter_directory_id.bytes
    _v = m.endpoints
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Endpoint_v0(w, _e)
    _write_KRaftVersionFeature_v0(w, m.kraft_version_feature)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> VotersRecord:
    version = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array VotersRecord.Voters is null")
    voters = [_read_Voter_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return VotersRecord(version=version, voters=voters, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: VotersRecord) -> None:
    w += _S_h.pack(m.version)
    _v = m.voters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Voter_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> VotersRecord:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: VotersRecord, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> VotersRecord:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: VotersRecord, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
