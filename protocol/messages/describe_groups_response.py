# Generated from DescribeGroupsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DescribeGroupsResponse"
API_KEY = 15
TYPE = "response"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (5, 5)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class DescribedGroupMember:
    member_id: str = ""
    group_instance_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    member_metadata: bytes = b""
    member_assignment: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribedGroup:
    error_code: int = 0
    group_id: str = ""
    group_state: str = ""
    protocol_type: str = ""
    protocol_data: str = ""
    members: list[DescribedGroupMember] = _field(default_factory=list)
    authorized_operations: int = -2147483648
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeGroupsResponse:
    throttle_time_ms: int = 0
    groups: list[DescribedGroup] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribedGroupMember_v0(r: Reader) -> DescribedGroupMember:
    member_id = r.string()
    client_id = r.string()
    client_host = r.string()
    member_metadata = r.bytes_()
    member_assignment = r.bytes_()
    return DescribedGroupMember(member_id=member_id, client_id=client_id, client_host=client_host, member_metadata=member_metadata, member_assignment=member_assignment)


def _write_DescribedGroupMember_v0(w: Writer, m: DescribedGroupMember) -> None:
    write_string(w, m.member_id)
    write_string(w, m.client_id)
    write_string(w, m.client_host)
    write_bytes(w, m.member_metadata)
    write_bytes(w, m.member_assignment)


def _read_DescribedGroupMember_v4(r: Reader) -> DescribedGroupMember:
    member_id = r.string()
    group_instance_id = r.nullable_string()
    client_id = r.string()
    client_host = r.string()
    member_metadata = r.bytes_()
    member_assignment = r.bytes_()
    return DescribedGroupMember(member_id=member_id, group_instance_id=group_instance_id, client_id=client_id, client_host=client_host, member_metadata=member_metadata, member_assignment=member_assignment)


def _write_DescribedGroupMember_v4(w: Writer, m: DescribedGroupMember) -> None:
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)
    write_string(w, m.client_id)
    write_string(w, m.client_host)
    write_bytes(w, m.member_metadata)
    write_bytes(w, m.member_assignment)


def _read_DescribedGroupMember_v5(r: Reader) -> DescribedGroupMember:
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    client_id = r.compact_string()
    client_host = r.compact_string()
    member_metadata = r.compact_bytes()
    member_assignment = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return DescribedGroupMember(member_id=member_id, group_instance_id=group_instance_id, client_id=client_id, client_host=client_host, member_metadata=member_metadata, member_assignment=member_assignment, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribedGroupMember_v5(w: Writer, m: DescribedGroupMember) -> None:
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_compact_string(w, m.client_id)
    write_compact_string(w, m.client_host)
    write_compact_bytes(w, m.member_metadata)
    write_compact_bytes(w, m.member_assignment)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribedGroup_v0(r: Reader) -> DescribedGroup:
    error_code = r.int16()
    group_id = r.string()
    group_state = r.string()
    protocol_type = r.string()
    protocol_data = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Members is null")
    members = [_read_DescribedGroupMember_v0(r) for _ in range(_n)]
    return DescribedGroup(error_code=error_code, group_id=group_id, group_state=group_state, protocol_type=protocol_type, protocol_data=protocol_data, members=members)


def _write_DescribedGroup_v0(w: Writer, m: DescribedGroup) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.group_id)
    write_string(w, m.group_state)
    write_string(w, m.protocol_type)
    write_string(w, m.protocol_data)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedGroupMember_v0(w, _e)


def _read_DescribedGroup_v3(r: Reader) -> DescribedGroup:
    error_code = r.int16()
    group_id = r.string()
    group_state = r.string()
    protocol_type = r.string()
    protocol_data = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Members is null")
    members = [_read_DescribedGroupMember_v0(r) for _ in range(_n)]
    authorized_operations = r.int32()
    return DescribedGroup(error_code=error_code, group_id=group_id, group_state=group_state, protocol_type=protocol_type, protocol_data=protocol_data, members=members, authorized_operations=authorized_operations)


def _write_DescribedGroup_v3(w: Writer, m: DescribedGroup) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.group_id)
    write_string(w, m.group_state)
    write_string(w, m.protocol_type)
    write_string(w, m.protocol_data)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedGroupMember_v0(w, _e)
    w += _S_i.pack(m.authorized_operations)


def _read_DescribedGroup_v4(r: Reader) -> DescribedGroup:
    error_code = r.int16()
    group_id = r.string()
    group_state = r.string()
    protocol_type = r.string()
    protocol_data = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Members is null")
    members = [_read_DescribedGroupMember_v4(r) for _ in range(_n)]
    authorized_operations = r.int32()
    return DescribedGroup(error_code=error_code, group_id=group_id, group_state=group_state, protocol_type=protocol_type, protocol_data=protocol_data, members=members, authorized_operations=authorized_operations)


def _write_DescribedGroup_v4(w: Writer, m: DescribedGroup) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.group_id)
    write_string(w, m.group_state)
    write_string(w, m.protocol_type)
    write_string(w, m.protocol_data)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedGroupMember_v4(w, _e)
    w += _S_i.pack(m.authorized_operations)


def _read_DescribedGroup_v5(r: Reader) -> DescribedGroup:
    error_code = r.int16()
    group_id = r.compact_string()
    group_state = r.compact_string()
    protocol_type = r.compact_string()
    protocol_data = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Members is null")
    members = [_read_DescribedGroupMember_v5(r) for _ in range(_n)]
    authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DescribedGroup(error_code=error_code, group_id=group_id, group_state=group_state, protocol_type=protocol_type, protocol_data=protocol_data, members=members, authorized_operations=authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribedGroup_v5(w: Writer, m: DescribedGroup) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_string(w, m.group_id)
    write_compact_string(w, m.group_state)
    write_compact_string(w, m.protocol_type)
    write_compact_string(w, m.protocol_data)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribedGroupMember_v5(w, _e)
    w += _S_i.pack(m.authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeGroupsResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Groups is null")
    groups = [_read_DescribedGroup_v0(r) for _ in range(_n)]
    return DescribeGroupsResponse(groups=groups)


def write_v0(w: Writer, m: DescribeGroupsResponse) -> None:
    _v = m.groups
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedGroup_v0(w, _e)


def read_v1(r: Reader) -> DescribeGroupsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Groups is null")
    groups = [_read_DescribedGroup_v0(r) for _ in range(_n)]
    return DescribeGroupsResponse(throttle_time_ms=throttle_time_ms, groups=groups)


def write_v1(w: Writer, m: DescribeGroupsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.groups
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedGroup_v0(w, _e)


def read_v3(r: Reader) -> DescribeGroupsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Groups is null")
    groups = [_read_DescribedGroup_v3(r) for _ in range(_n)]
    return DescribeGroupsResponse(throttle_time_ms=throttle_time_ms, groups=groups)


def write_v3(w: Writer, m: DescribeGroupsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.groups
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedGroup_v3(w, _e)


def read_v4(r: Reader) -> DescribeGroupsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Groups is null")
    groups = [_read_DescribedGroup_v4(r) for _ in range(_n)]
    return DescribeGroupsResponse(throttle_time_ms=throttle_time_ms, groups=groups)


def write_v4(w: Writer, m: DescribeGroupsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.groups
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribedGroup_v4(w, _e)


def read_v5(r: Reader) -> DescribeGroupsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsResponse.Groups is null")
    groups = [_read_DescribedGroup_v5(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeGroupsResponse(throttle_time_ms=throttle_time_ms, groups=groups, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: DescribeGroupsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribedGroup_v5(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> DescribeGroupsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeGroupsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeGroupsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeGroupsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
