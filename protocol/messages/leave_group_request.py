# Generated from LeaveGroupRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "LeaveGroupRequest"
API_KEY = 13
TYPE = "request"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (4, 5)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class MemberIdentity:
    member_id: str = ""
    group_instance_id: str | None = None
    reason: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaveGroupRequest:
    group_id: str = ""
    member_id: str = ""
    members: list[MemberIdentity] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_MemberIdentity_v3(r: Reader) -> MemberIdentity:
    member_id = r.string()
    group_instance_id = r.nullable_string()
    return MemberIdentity(member_id=member_id, group_instance_id=group_instance_id)


def _write_MemberIdentity_v3(w: Writer, m: MemberIdentity) -> None:
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)


def _read_MemberIdentity_v4(r: Reader) -> MemberIdentity:
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return MemberIdentity(member_id=member_id, group_instance_id=group_instance_id, unknown_tagged_fields=unknown_tagged_fields)


def _write_MemberIdentity_v4(w: Writer, m: MemberIdentity) -> None:
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_MemberIdentity_v5(r: Reader) -> MemberIdentity:
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    reason = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return MemberIdentity(member_id=member_id, group_instance_id=group_instance_id, reason=reason, unknown_tagged_fields=unknown_tagged_fields)


def _write_MemberIdentity_v5(w: Writer, m: MemberIdentity) -> None:
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_compact_nullable_string(w, m.reason)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> LeaveGroupRequest:
    group_id = r.string()
    member_id = r.string()
    return LeaveGroupRequest(group_id=group_id, member_id=member_id)


def write_v0(w: Writer, m: LeaveGroupRequest) -> None:
    write_string(w, m.group_id)
    write_string(w, m.member_id)


def read_v3(r: Reader) -> LeaveGroupRequest:
    group_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaveGroupRequest.Members is null")
    members = [_read_MemberIdentity_v3(r) for _ in range(_n)]
    return LeaveGroupRequest(group_id=group_id, members=members)


def write_v3(w: Writer, m: LeaveGroupRequest) -> None:
    write_string(w, m.group_id)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MemberIdentity_v3(w, _e)


def read_v4(r: Reader) -> LeaveGroupRequest:
    group_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaveGroupRequest.Members is null")
    members = [_read_MemberIdentity_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaveGroupRequest(group_id=group_id, members=members, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: LeaveGroupRequest) -> None:
    write_compact_string(w, m.group_id)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MemberIdentity_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v5(r: Reader) -> LeaveGroupRequest:
    group_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaveGroupRequest.Members is null")
    members = [_read_MemberIdentity_v5(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaveGroupRequest(group_id=group_id, members=members, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: LeaveGroupRequest) -> None:
    write_compact_string(w, m.group_id)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MemberIdentity_v5(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> LeaveGroupRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: LeaveGroupRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> LeaveGroupRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: LeaveGroupRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
