# Generated from LeaderChangeMessage.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "LeaderChangeMessage"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_hi = _struct.Struct(">hi")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class Voter:
    voter_id: int = 0
    voter_directory_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderChangeMessage:
    version: int = 0
    leader_id: int = 0
    voters: list[Voter] = _field(default_factory=list)
    granting_voters: list[Voter] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_Voter_v0(r: Reader) -> Voter:
    voter_id = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return Voter(voter_id=voter_id, unknown_tagged_fields=unknown_tagged_fields)


def _write_Voter_v0(w: Writer, m: Voter) -> None:
    w += _S_i.pack(m.voter_id)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Voter_v1(r: Reader) -> Voter:
    voter_id = r.int32()
    voter_directory_id = r.uuid()
    unknown_tagged_fields = r.tagged_fields()
    return Voter(voter_id=voter_id, voter_directory_id=voter_directory_id, unknown_tagged_fields=unknown_tagged_fields)


def _write_Voter_v1(w: Writer, m: Voter) -> None:
    w += _S_i.pack(m.voter_id)
    w += m.voter_directory_id.bytes
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> LeaderChangeMessage:
    version, leader_id = r.unpack(_S_hi)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderChangeMessage.Voters is null")
    voters = [_read_Voter_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderChangeMessage.GrantingVoters is null")
    granting_voters = [_read_Voter_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderChangeMessage(version=version, leader_id=leader_id, voters=voters, granting_voters=granting_voters, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: LeaderChangeMessage) -> None:
    w += _S_hi.pack(m.version, m.leader_id)
    _v = m.voters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Voter_v0(w, _e)
    _v = m.granting_voters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Voter_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> LeaderChangeMessage:
    version, leader_id = r.unpack(_S_hi)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderChangeMessage.Voters is null")
    voters = [_read_Voter_v1(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderChangeMessage.GrantingVoters is null")
    granting_voters = [_read_Voter_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderChangeMessage(version=version, leader_id=leader_id, voters=voters, granting_voters=granting_voters, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: LeaderChangeMessage) -> None:
    w += _S_hi.pack(m.version, m.leader_id)
    _v = m.voters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Voter_v1(w, _e)
    _v = m.granting_voters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Voter_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> LeaderChangeMessage:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: LeaderChangeMessage, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> LeaderChangeMessage:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: LeaderChangeMessage, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
