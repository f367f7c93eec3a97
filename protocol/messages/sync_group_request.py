# Generated from SyncGroupRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "SyncGroupRequest"
API_KEY = 14
TYPE = "request"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (4, 5)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class SyncGroupRequestAssignment:
    member_id: str = ""
    assignment: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class SyncGroupRequest:
    group_id: str = ""
    generation_id: int = 0
    member_id: str = ""
    group_instance_id: str | None = None
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignments: list[SyncGroupRequestAssignment] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_SyncGroupRequestAssignment_v0(r: Reader) -> SyncGroupRequestAssignment:
    member_id = r.string()
    assignment = r.bytes_()
    return SyncGroupRequestAssignment(member_id=member_id, assignment=assignment)


def _write_SyncGroupRequestAssignment_v0(w: Writer, m: SyncGroupRequestAssignment) -> None:
    write_string(w, m.member_id)
    write_bytes(w, m.assignment)


def _read_SyncGroupRequestAssignment_v4(r: Reader) -> SyncGroupRequestAssignment:
    member_id = r.compact_string()
    assignment = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return SyncGroupRequestAssignment(member_id=member_id, assignment=assignment, unknown_tagged_fields=unknown_tagged_fields)


def _write_SyncGroupRequestAssignment_v4(w: Writer, m: SyncGroupRequestAssignment) -> None:
    write_compact_string(w, m.member_id)
    write_compact_bytes(w, m.assignment)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> SyncGroupRequest:
    group_id = r.string()
    generation_id = r.int32()
    member_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array SyncGroupRequest.Assignments is null")
    assignments = [_read_SyncGroupRequestAssignment_v0(r) for _ in range(_n)]
    return SyncGroupRequest(group_id=group_id, generation_id=generation_id, member_id=member_id, assignments=assignments)


def write_v0(w: Writer, m: SyncGroupRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id)
    write_string(w, m.member_id)
    _v = m.assignments
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_SyncGroupRequestAssignment_v0(w, _e)


def read_v3(r: Reader) -> SyncGroupRequest:
    group_id = r.string()
    generation_id = r.int32()
    member_id = r.string()
    group_instance_id = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array SyncGroupRequest.Assignments is null")
    assignments = [_read_SyncGroupRequestAssignment_v0(r) for _ in range(_n)]
    return SyncGroupRequest(group_id=group_id, generation_id=generation_id, member_id=member_id, group_instance_id=group_instance_id, assignments=assignments)


def write_v3(w: Writer, m: SyncGroupRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id)
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)
    _v = m.assignments
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_SyncGroupRequestAssignment_v0(w, _e)


def read_v4(r: Reader) -> SyncGroupRequest:
    group_id = r.compact_string()
    generation_id = r.int32()
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array SyncGroupRequest.Assignments is null")
    assignments = [_read_SyncGroupRequestAssignment_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return SyncGroupRequest(group_id=group_id, generation_id=generation_id, member_id=member_id, group_instance_id=group_instance_id, assignments=assignments, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: SyncGroupRequest) -> None:
    write_compact_string(w, m.group_id)
    w += _S_i.pack(m.generation_id)
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    _v = m.assignments
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_SyncGroupRequestAssignment_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v5(r: Reader) -> SyncGroupRequest:
    group_id = r.compact_string()
    generation_id = r.int32()
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    protocol_type = r.compact_nullable_string()
    protocol_name = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array SyncGroupRequest.Assignments is null")
    assignments = [_read_SyncGroupRequestAssignment_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return SyncGroupRequest(group_id=group_id, generation_id=generation_id, member_id=member_id, group_instance_id=group_instance_id, protocol_type=protocol_type, protocol_name=protocol_name, assignments=assignments, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: SyncGroupRequest) -> None:
    write_compact_string(w, m.group_id)
    w += _S_i.pack(m.generation_id)
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_compact_nullable_string(w, m.protocol_type)
    write_compact_nullable_string(w, m.protocol_name)
    _v = m.assignments
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_SyncGroupRequestAssignment_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> SyncGroupRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: SyncGroupRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> SyncGroupRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: SyncGroupRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
