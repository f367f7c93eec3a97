# Generated from LeaveGroupResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "LeaveGroupResponse"
API_KEY = 13
TYPE = "response"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (4, 5)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class MemberResponse:
    member_id: str = ""
    group_instance_id: str | None = ""
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaveGroupResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    members: list[MemberResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_MemberResponse_v3(r: Reader) -> MemberResponse:
    member_id = r.string()
    group_instance_id = r.nullable_string()
    error_code = r.int16()
    return MemberResponse(member_id=member_id, group_instance_id=group_instance_id, error_code=error_code)


def _write_MemberResponse_v3(w: Writer, m: MemberResponse) -> None:
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)
    w += _S_h.pack(m.error_code)


def _read_MemberResponse_v4(r: Reader) -> MemberResponse:
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return MemberResponse(member_id=member_id, group_instance_id=group_instance_id, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_MemberResponse_v4(w: Writer, m: MemberResponse) -> None:
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> LeaveGroupResponse:
    error_code = r.int16()
    return LeaveGroupResponse(error_code=error_code)


def write_v0(w: Writer, m: LeaveGroupResponse) -> None:
    w += _S_h.pack(m.error_code)


def read_v1(r: Reader) -> LeaveGroupResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    return LeaveGroupResponse(throttle_time_ms=throttle_time_ms, error_code=error_code)


def write_v1(w: Writer, m: LeaveGroupResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)


def read_v3(r: Reader) -> LeaveGroupResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaveGroupResponse.Members is null")
    members = [_read_MemberResponse_v3(r) for _ in range(_n)]
    return LeaveGroupResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, members=members)


def write_v3(w: Writer, m: LeaveGroupResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MemberResponse_v3(w, _e)


def read_v4(r: Reader) -> LeaveGroupResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaveGroupResponse.Members is null")
    members = [_read_MemberResponse_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaveGroupResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, members=members, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: LeaveGroupResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MemberResponse_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1
read_v5 = read_v4
write_v5 = write_v4

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> LeaveGroupResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: LeaveGroupResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> LeaveGroupResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: LeaveGroupResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
