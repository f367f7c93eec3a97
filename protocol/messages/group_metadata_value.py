# Generated from GroupMetadataValue.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "GroupMetadataValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (4, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ii = _struct.Struct(">ii")
_S_q = _struct.Struct(">q")


@dataclass(slots=True)
class MemberMetadata:
    member_id: str = ""
    group_instance_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout: int = -1
    session_timeout: int = 0
    subscription: bytes = b""
    assignment: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class GroupMetadataValue:
    protocol_type: str = ""
    generation: int = 0
    protocol: str | None = ""
    leader: str | None = ""
    current_state_timestamp: int = -1
    members: list[MemberMetadata] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_MemberMetadata_v0(r: Reader) -> MemberMetadata:
    member_id = r.string()
    client_id = r.string()
    client_host = r.string()
    session_timeout = r.int32()
    subscription = r.bytes_()
    assignment = r.bytes_()
    return MemberMetadata(member_id=member_id, client_id=client_id, client_host=client_host, session_timeout=session_timeout, subscription=subscription, assignment=assignment)


def _write_MemberMetadata_v0(w: Writer, m: MemberMetadata) -> None:
    write_string(w, m.member_id)
    write_string(w, m.client_id)
    write_string(w, m.client_host)
    w += _S_i.pack(m.session_timeout)
    write_bytes(w, m.subscription)
    write_bytes(w, m.assignment)


def _read_MemberMetadata_v1(r: Reader) -> MemberMetadata:
    member_id = r.string()
    client_id = r.string()
    client_host = r.string()
    rebalance_timeout, session_timeout = r.unpack(_S_ii)
    subscription = r.bytes_()
    assignment = r.bytes_()
    return MemberMetadata(member_id=member_id, client_id=client_id, client_host=client_host, rebalance_timeout=rebalance_timeout, session_timeout=session_timeout, subscription=subscription, assignment=assignment)


def _write_MemberMetadata_v1(w: Writer, m: MemberMetadata) -> None:
    write_string(w, m.member_id)
    write_string(w, m.client_id)
    write_string(w, m.client_host)
    w += _S_ii.pack(m.rebalance_timeout, m.session_timeout)
    write_bytes(w, m.subscription)
    write_bytes(w, m.assignment)


def _read_MemberMetadata_v3(r: Reader) -> MemberMetadata:
    member_id = r.string()
    group_instance_id = r.nullable_string()
    client_id = r.string()
    client_host = r.string()
    rebalance_timeout, session_timeout = r.unpack(_S_ii)
    subscription = r.bytes_()
    assignment = r.bytes_()
    return MemberMetadata(member_id=member_id, group_instance_id=group_instance_id, client_id=client_id, client_host=client_host, rebalance_timeout=rebalance_timeout, session_timeout=session_timeout, subscription=subscription, assignment=assignment)


def _write_MemberMetadata_v3(w: Writer, m: MemberMetadata) -> None:
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)
    write_string(w, m.client_id)
    write_string(w, m.client_host)
    w += _S_ii.pack(m.rebalance_timeout, m.session_timeout)
    write_bytes(w, m.subscription)
    write_bytes(w, m.assignment)


def _read_MemberMetadata_v4(r: Reader) -> MemberMetadata:
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    client_id = r.compact_string()
    client_host = r.compact_string()
    rebalance_timeout, session_timeout = r.unpack(_S_ii)
    subscription = r.compact_bytes()
    assignment = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return MemberMetadata(member_id=member_id, group_instance_id=group_instance_id, client_id=client_id, client_host=client_host, rebalance_timeout=rebalance_timeout, session_timeout=session_timeout, subscription=subscription, assignment=assignment, unknown_tagged_fields=unknown_tagged_fields)


def _write_MemberMetadata_v4(w: Writer, m: MemberMetadata) -> None:
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_compact_string(w, m.client_id)
    write_compact_string(w, m.client_host)
    w += _S_ii.pack(m.rebalance_timeout, m.session_timeout)
    write_compact_bytes(w, m.subscription)
    write_compact_bytes(w, m.assignment)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> GroupMetadataValue:
    protocol_type = r.string()
    generation = r.int32()
    protocol = r.nullable_string()
    leader = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array GroupMetadataValue.members is null")
    members = [_read_MemberMetadata_v0(r) for _ in range(_n)]
    return GroupMetadataValue(protocol_type=protocol_type, generation=generation, protocol=protocol, leader=leader, members=members)


def write_v0(w: Writer, m: GroupMetadataValue) -> None:
    write_string(w, m.protocol_type)
    w += _S_i.pack(m.generation)
    write_nullable_string(w, m.protocol)
    write_nullable_string(w, m.leader)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MemberMetadata_v0(w, _e)


def read_v1(r: Reader) -> GroupMetadataValue:
    protocol_type = r.string()
    generation = r.int32()
    protocol = r.nullable_string()
    leader = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array GroupMetadataValue.members is null")
    members = [_read_MemberMetadata_v1(r) for _ in range(_n)]
    return GroupMetadataValue(protocol_type=protocol_type, generation=generation, protocol=protocol, leader=leader, members=members)


def write_v1(w: Writer, m: GroupMetadataValue) -> None:
    write_string(w, m.protocol_type)
    w += _S_i.pack(m.generation)
    write_nullable_string(w, m.protocol)
    write_nullable_string(w, m.leader)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MemberMetadata_v1(w, _e)


def read_v2(r: Reader) -> GroupMetadataValue:
    protocol_type = r.string()
    generation = r.int32()
    protocol = r.nullable_string()
    leader = r.nullable_string()
    current_state_timestamp = r.int64()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array GroupMetadataValue.members is null")
    members = [_read_MemberMetadata_v1(r) for _ in range(_n)]
    return GroupMetadataValue(protocol_type=protocol_type, generation=generation, protocol=protocol, leader=leader, current_state_timestamp=current_state_timestamp, members=members)


def write_v2(w: Writer, m: GroupMetadataValue) -> None:
    write_string(w, m.protocol_type)
    w += _S_i.pack(m.generation)
    write_nullable_string(w, m.protocol)
    write_nullable_string(w, m.leader)
    w += _S_q.pack(m.current_state_timestamp)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MemberMetadata_v1(w, _e)


def read_v3(r: Reader) -> GroupMetadataValue:
    protocol_type = r.string()
    generation = r.int32()
    protocol = r.nullable_string()
    leader = r.nullable_string()
    current_state_timestamp = r.int64()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array GroupMetadataValue.members is null")
    members = [_read_MemberMetadata_v3(r) for _ in range(_n)]
    return GroupMetadataValue(protocol_type=protocol_type, generation=generation, protocol=protocol, leader=leader, current_state_timestamp=current_state_timestamp, members=members)


def write_v3(w: Writer, m: GroupMetadataValue) -> None:
    write_string(w, m.protocol_type)
    w += _S_i.pack(m.generation)
    write_nullable_string(w, m.protocol)
    write_nullable_string(w, m.leader)
    w += _S_q.pack(m.current_state_timestamp)
    _v = m.members
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MemberMetadata_v3(w, _e)


def read_v4(r: Reader) -> GroupMetadataValue:
    protocol_type = r.compact_string()
    generation = r.int32()
    protocol = r.compact_nullable_string()
    leader = r.compact_nullable_string()
    current_state_timestamp = r.int64()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array GroupMetadataValue.members is null")
    members = [_read_MemberMetadata_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return GroupMetadataValue(protocol_type=protocol_type, generation=generation, protocol=protocol, leader=leader, current_state_timestamp=current_state_timestamp, members=members, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: GroupMetadataValue) -> None:
    write_compact_string(w, m.protocol_type)
    w += _S_i.pack(m.generation)
    write_compact_nullable_string(w, m.protocol)
    write_compact_nullable_string(w, m.leader)
    w += _S_q.pack(m.current_state_timestamp)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MemberMetadata_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> GroupMetadataValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: GroupMetadataValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> GroupMetadataValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: GroupMetadataValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
