# Generated from JoinGroupResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_bytes,
    write_compact_bytes,
    write_compact_nullable_string,
    write_compact_string,
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "JoinGroupResponse"
API_KEY = 11
TYPE = "response"
VALID_VERSIONS = (0, 9)
FLEXIBLE_VERSIONS = (6, 9)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_hi = _struct.Struct(">hi")
_S_i = _struct.Struct(">i")
_S_ihi = _struct.Struct(">ihi")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class JoinGroupResponseMember:
    member_id: str = ""
    group_instance_id: str | None = None
    metadata: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class JoinGroupResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = ""
    leader: str = ""
    skip_assignment: bool = False
    member_id: str = ""
    members: list[JoinGroupResponseMember] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_JoinGroupResponseMember_v0(r: Reader) -> JoinGroupResponseMember:
    member_id = r.string()
    metadata = r.bytes_()
    return JoinGroupResponseMember(member_id=member_id, metadata=metadata)


def _write_JoinGroupResponseMember_v0(w: Writer, m: JoinGroupResponseMember) -> None:
    write_string(w, m.member_id)
    write_bytes(w, m.metadata)


def _read_JoinGroupResponseMember_v5(r: Reader) -> JoinGroupResponseMember:
    member_id = r.string()
    group_instance_id = r.nullable_string()
    metadata = r.bytes_()
    return JoinGroupResponseMember(member_id=member_id, group_instance_id=group_instance_id, metadata=metadata)


def _write_JoinGroupResponseMember_v5(w: Writer, m: JoinGroupResponseMember) -> None:
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)
    write_bytes(w, m.metadata)


def _read_JoinGroupResponseMember_v6(r: Reader) -> JoinGroupResponseMember:
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    metadata = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return JoinGroupResponseMember(member_id=member_id, group_instance_id=group_instance_id, metadata=metadata, unknown_tagged_fields=unknown_tagged_fields)


def _write_JoinGroupResponseMember_v6(w: Writer, m: JoinGroupResponseMember) -> None:
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_compact_bytes(w, m.metadata)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> JoinGroupResponse:
    error_code, generation_id = r.unpack(_S_hi)
    protocol_name = r.string()
    leader = r.string()
    member_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupResponse.Members is null")
    members = [_read_JoinGroupResponseMember_v0(r) for _ in range(_n)]
    return JoinGroupResponse(error_code=error_code, generation_id=generation_id, protocol_name=protocol_name, leader=leader, member_id=member_id, members=members)


def write_v0(w: Writer, m: JoinGroupResponse) -> None:
    w += _S_hi.pack(m.error_code, m.generation_id)
    write_string(w, m.protocol_name)
    write_string(w, m.leader)
    write_string(w, m.member_id)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_JoinGroupResponseMember_v0(w, _e)


def read_v2(r: Reader) -> JoinGroupResponse:
    throttle_time_ms, error_code, generation_id = r.unpack(_S_ihi)
    protocol_name = r.string()
    leader = r.string()
    member_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupResponse.Members is null")
    members = [_read_JoinGroupResponseMember_v0(r) for _ in range(_n)]
    return JoinGroupResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, generation_id=generation_id, protocol_name=protocol_name, leader=leader, member_id=member_id, members=members)


def write_v2(w: Writer, m: JoinGroupResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.generation_id)
    write_string(w, m.protocol_name)
    write_string(w, m.leader)
    write_string(w, m.member_id)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_JoinGroupResponseMember_v0(w, _e)


def read_v5(r: Reader) -> JoinGroupResponse:
    throttle_time_ms, error_code, generation_id = r.unpack(_S_ihi)
    protocol_name = r.string()
    leader = r.string()
    member_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupResponse.Members is null")
    members = [_read_JoinGroupResponseMember_v5(r) for _ in range(_n)]
    return JoinGroupResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, generation_id=generation_id, protocol_name=protocol_name, leader=leader, member_id=member_id, members=members)


def write_v5(w: Writer, m: JoinGroupResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.generation_id)
    write_string(w, m.protocol_name)
    write_string(w, m.leader)
    write_string(w, m.member_id)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_JoinGroupResponseMember_v5(w, _e)


def read_v6(r: Reader) -> JoinGroupResponse:
    throttle_time_ms, error_code, generation_id = r.unpack(_S_ihi)
    protocol_name = r.compact_string()
    leader = r.compact_string()
    member_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupResponse.Members is null")
    members = [_read_JoinGroupResponseMember_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return JoinGroupResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, generation_id=generation_id, protocol_name=protocol_name, leader=leader, member_id=member_id, members=members, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: JoinGroupResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.generation_id)
    write_compact_string(w, m.protocol_name)
    write_compact_string(w, m.leader)
    write_compact_string(w, m.member_id)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_JoinGroupResponseMember_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v7(r: Reader) -> JoinGroupResponse:
    throttle_time_ms, error_code, generation_id = r.unpack(_S_ihi)
    protocol_type = r.compact_nullable_string()
    protocol_name = r.compact_nullable_string()
    leader = r.compact_string()
    member_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupResponse.Members is null")
    members = [_read_JoinGroupResponseMember_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return JoinGroupResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, generation_id=generation_id, protocol_type=protocol_type, protocol_name=protocol_name, leader=leader, member_id=member_id, members=members, unknown_tagged_fields=unknown_tagged_fields)


def write_v7(w: Writer, m: JoinGroupResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.generation_id)
    write_compact_nullable_string(w, m.protocol_type)
    write_compact_nullable_string(w, m.protocol_name)
    write_compact_string(w, m.leader)
    write_compact_string(w, m.member_id)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_JoinGroupResponseMember_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v9(r: Reader) -> JoinGroupResponse:
    throttle_time_ms, error_code, generation_id = r.unpack(_S_ihi)
    protocol_type = r.compact_nullable_string()
    protocol_name = r.compact_nullable_string()
    leader = r.compact_string()
    skip_assignment = r.boolean()
    member_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupResponse.Members is null")
    members = [_read_JoinGroupResponseMember_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return JoinGroupResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, generation_id=generation_id, protocol_type=protocol_type, protocol_name=protocol_name, leader=leader, skip_assignment=skip_assignment, member_id=member_id, members=members, unknown_tagged_fields=unknown_tagged_fields)


def write_v9(w: Writer, m: JoinGroupResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.generation_id)
    write_compact_nullable_string(w, m.protocol_type)
    write_compact_nullable_string(w, m.protocol_name)
    write_compact_string(w, m.leader)
    w += _S_x.pack(m.skip_assignment)
    write_compact_string(w, m.member_id)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_JoinGroupResponseMember_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v3 = read_v2
write_v3 = write_v2
read_v4 = read_v2
write_v4 = write_v2
read_v8 = read_v7
write_v8 = write_v7

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9}


def read(r: Reader, version: int) -> JoinGroupResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: JoinGroupResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> JoinGroupResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: JoinGroupResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
