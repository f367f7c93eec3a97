# Generated from AddRaftVoterRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_nullable_string,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "AddRaftVoterRequest"
API_KEY = 80
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("controller", "broker")
LATEST_VERSION_UNSTABLE = False

_S_H = _struct.Struct(">H")
_S_ii = _struct.Struct(">ii")


@dataclass(slots=True)
class Listener:
    name: str = ""
    host: str = ""
    port: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AddRaftVoterRequest:
    cluster_id: str | None = ""
    timeout_ms: int = 0
    voter_id: int = 0
    voter_directory_id: uuid.UUID = ZERO_UUID
    listeners: list[Listener] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_Listener_v0(r: Reader) -> Listener:
    name = r.compact_string()
    host = r.compact_string()
    port = r.uint16()
    unknown_tagged_fields = r.tagged_fields()
    return Listener(name=name, host=host, port=port, unknown_tagged_fields=unknown_tagged_fields)


def _write_Listener_v0(w: Writer, m: Listener) -> None:
    write_compact_string(w, m.name)
    write_compact_string(w, m.host)
    w += _S_H.pack(m.port)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AddRaftVoterRequest:
    cluster_id = r.compact_nullable_string()
    timeout_ms, voter_id = r.unpack(_S_ii)
    voter_directory_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddRaftVoterRequest.Listeners is null")
    listeners = [_read_Listener_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AddRaftVoterRequest(cluster_id=cluster_id, timeout_ms=timeout_ms, voter_id=voter_id, voter_directory_id=voter_directory_id, listeners=listeners, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AddRaftVoterRequest) -> None:
    write_compact_nullable_string(w, m.cluster_id)
    w += _S_ii.pack(m.timeout_ms, m.voter_id)
    w += m.voter_directory_id.bytes
    _v = m.listeners
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Listener_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> AddRaftVoterRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AddRaftVoterRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AddRaftVoterRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AddRaftVoterRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
