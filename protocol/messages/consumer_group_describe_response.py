# Generated from ConsumerGroupDescribeResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ConsumerGroupDescribeResponse"
API_KEY = 69
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ii = _struct.Struct(">ii")


@dataclass(slots=True)
class TopicPartitions:
    topic_id: uuid.UUID = ZERO_UUID
    topic_name: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Assignment:
    topic_partitions: list[TopicPartitions] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Member:
    member_id: str = ""
    instance_id: str | None = None
    rack_id: str | None = None
    member_epoch: int = 0
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: list[str] = _field(default_factory=list)
    subscribed_topic_regex: str | None = None
    assignment: Assignment = _field(default_factory=Assignment)
    target_assignment: Assignment = _field(default_factory=Assignment)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribedGroup:
    error_code: int = 0
    error_message: str | None = None
    group_id: str = ""
    group_state: str = ""
    group_epoch: int = 0
    assignment_epoch: int = 0
    assignor_name: str = ""
    members: list[Member] = _field(default_factory=list)
    authorized_operations: int = -2147483648
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerGroupDescribeResponse:
    throttle_time_ms: int = 0
    groups: list[DescribedGroup] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartitions_v0(r: Reader) -> TopicPartitions:
    topic_id = r.uuid()
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupDescribeResponse.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return TopicPartitions(topic_id=topic_id, topic_name=topic_name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicPartitions_v0(w: Writer, m: TopicPartitions) -> None:
    w += m.topic_id.bytes
    write_compact_string(w, m.topic_name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Assignment_v0(r: Reader) -> Assignment:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupDescribeResponse.TopicPartitions is null")
    topic_partitions = [_read_TopicPartitions_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return Assignment(topic_partitions=topic_partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_Assignment_v0(w: Writer, m: Assignment) -> None:
    _v = m.topic_partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicPartitions_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Member_v0(r: Reader) -> Member:
    member_id = r.compact_string()
    instance_id = r.compact_nullable_string()
    rack_id = r.compact_nullable_string()
    member_epoch = r.int32()
    client_id = r.compact_string()
    client_host = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupDescribeResponse.SubscribedTopicNames is null")
    subscribed_topic_names = [r.compact_string() for _ in range(_n)]
    subscribed_topic_regex = r.compact_nullable_string()
    assignment = _read_Assignment_v0(r)
    target_assignment = _read_Assignment_v0(r)
    unknown_tagged_fields = r.tagged_fields()
    return Member(member_id=member_id, instance_id=instance_id, rack_id=rack_id, member_epoch=member_epoch, client_id=client_id, client_host=client_host, subscribed_topic_names=subscribed_topic_names, subscribed_topic_regex=subscribed_topic_regex, assignment=assignment, target_assignment=target_assignment, unknown_tagged_fields=unknown_tagged_fields)


def _write_Member_v0(w: Writer, m: Member) -> None:
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.instance_id)
    write_compact_nullable_string(w, m.rack_id)
    w += _S_i.pack(m.member_epoch)
    write_compact_string(w, m.client_id)
    write_compact_string(w, m.client_host)
    _v = m.subscribed_topic_names
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_compact_nullable_string(w, m.subscribed_topic_regex)
    _write_Assignment_v0(w, m.assignment)
    _write_Assignment_v0(w, m.target_assignment)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribedGroup_v0(r: Reader) -> DescribedGroup:
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    group_id = r.compact_string()
    group_state = r.compact_string()
    group_epoch, assignment_epoch = r.unpack(_S_ii)
    assignor_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupDescribeResponse.Members is null")
    members = [_read_Member_v0(r) for _ in range(_n)]
    authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DescribedGroup(error_code=error_code, error_message=error_message, group_id=group_id, group_state=group_state, group_epoch=group_epoch, assignment_epoch=assignment_epoch, assignor_name=assignor_name, members=members, authorized_operations=authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribedGroup_v0(w: Writer, m: DescribedGroup) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_compact_string(w, m.group_id)
    write_compact_string(w, m.group_state)
    w += _S_ii.pack(m.group_epoch, m.assignment_epoch)
    write_compact_string(w, m.assignor_name)
    _v = m.members
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Member_v0(w, _e)
    w += _S_i.pack(m.authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ConsumerGroupDescribeResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupDescribeResponse.Groups is null")
    groups = [_read_DescribedGroup_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ConsumerGroupDescribeResponse(throttle_time_ms=throttle_time_ms, groups=groups, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ConsumerGroupDescribeResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribedGroup_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ConsumerGroupDescribeResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupDescribeResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupDescribeResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupDescribeResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
