# Generated from UpdateRaftVoterResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
)

NAME = "UpdateRaftVoterResponse"
API_KEY = 82
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_ii = _struct.Struct(">ii")


@dataclass(slots=True)
class CurrentLeader:
    leader_id: int = -1
    leader_epoch: int = -1
    host: str = ""
    port: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class UpdateRaftVoterResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    current_leader: CurrentLeader = _field(default_factory=CurrentLeader)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_CurrentLeader_v0(r: Reader) -> CurrentLeader:
    leader_id, leader_epoch = r.unpack(_S_ii)
    host = r.compact_string()
    port = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return CurrentLeader(leader_id=leader_id, leader_epoch=leader_epoch, host=host, port=port, unknown_tagged_fields=unknown_tagged_fields)


def _write_CurrentLeader_v0(w: Writer, m: CurrentLeader) -> None:
    w += _S_ii.pack(m.leader_id, m.leader_epoch)
    write_compact_string(w, m.host)
    w += _S_i.pack(m.port)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> UpdateRaftVoterResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    current_leader = CurrentLeader()
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            current_leader = _read_CurrentLeader_v0(r)
            if r.pos != _end:
                raise ProtocolError("tagged field UpdateRaftVoterResponse.CurrentLeader does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return UpdateRaftVoterResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, current_leader=current_leader, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: UpdateRaftVoterResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _known = []
    if m.current_leader != CurrentLeader():
        _t = Writer()
        _write_CurrentLeader_v0(_t, m.current_leader)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> UpdateRaftVoterResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: UpdateRaftVoterResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> UpdateRaftVoterResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: UpdateRaftVoterResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
