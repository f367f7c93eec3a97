# Generated from OffsetFetchRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_array_length,
    write_compact_array_length,
    write_compact_nullable_string,
    write_compact_string,
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "OffsetFetchRequest"
API_KEY = 9
TYPE = "request"
VALID_VERSIONS = (0, 9)
FLEXIBLE_VERSIONS = (6, 9)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class OffsetFetchRequestTopic:
    name: str = ""
    partition_indexes: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetFetchRequestTopics:
    name: str = ""
    partition_indexes: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetFetchRequestGroup:
    group_id: str = ""
    member_id: str | None = None
    member_epoch: int = -1
    topics: list[OffsetFetchRequestTopics] | None = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetFetchRequest:
    group_id: str = ""
    topics: list[OffsetFetchRequestTopic] | None = _field(default_factory=list)
    groups: list[OffsetFetchRequestGroup] = _field(default_factory=list)
    require_stable: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_OffsetFetchRequestTopic_v0(r: Reader) -> OffsetFetchRequestTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchRequest.PartitionIndexes is null")
    partition_indexes = r.fixed_array("i", _n)
    return OffsetFetchRequestTopic(name=name, partition_indexes=partition_indexes)


def _write_OffsetFetchRequestTopic_v0(w: Writer, m: OffsetFetchRequestTopic) -> None:
    write_string(w, m.name)
    _v = m.partition_indexes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_OffsetFetchRequestTopic_v6(r: Reader) -> OffsetFetchRequestTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchRequest.PartitionIndexes is null")
    partition_indexes = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchRequestTopic(name=name, partition_indexes=partition_indexes, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchRequestTopic_v6(w: Writer, m: OffsetFetchRequestTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partition_indexes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetFetchRequestTopics_v8(r: Reader) -> OffsetFetchRequestTopics:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchRequest.PartitionIndexes is null")
    partition_indexes = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchRequestTopics(name=name, partition_indexes=partition_indexes, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchRequestTopics_v8(w: Writer, m: OffsetFetchRequestTopics) -> None:
    write_compact_string(w, m.name)
    _v = m.partition_indexes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetFetchRequestGroup_v8(r: Reader) -> OffsetFetchRequestGroup:
    group_id = r.compact_string()
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_OffsetFetchRequestTopics_v8(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchRequestGroup(group_id=group_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchRequestGroup_v8(w: Writer, m: OffsetFetchRequestGroup) -> None:
    write_compact_string(w, m.group_id)
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_OffsetFetchRequestTopics_v8(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetFetchRequestGroup_v9(r: Reader) -> OffsetFetchRequestGroup:
    group_id = r.compact_string()
    member_id = r.compact_nullable_string()
    member_epoch = r.int32()
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_OffsetFetchRequestTopics_v8(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchRequestGroup(group_id=group_id, member_id=member_id, member_epoch=member_epoch, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchRequestGroup_v9(w: Writer, m: OffsetFetchRequestGroup) -> None:
    write_compact_string(w, m.group_id)
    write_compact_nullable_string(w, m.member_id)
    w += _S_i.pack(m.member_epoch)
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_OffsetFetchRequestTopics_v8(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> OffsetFetchRequest:
    group_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchRequest.Topics is null")
    topics = [_read_OffsetFetchRequestTopic_v0(r) for _ in range(_n)]
    return OffsetFetchRequest(group_id=group_id, topics=topics)


def write_v0(w: Writer, m: OffsetFetchRequest) -> None:
    write_string(w, m.group_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetFetchRequestTopic_v0(w, _e)


def read_v2(r: Reader) -> OffsetFetchRequest:
    group_id = r.string()
    _n = r.array_length()
    topics = None if _n < 0 else [_read_OffsetFetchRequestTopic_v0(r) for _ in range(_n)]
    return OffsetFetchRequest(group_id=group_id, topics=topics)


def write_v2(w: Writer, m: OffsetFetchRequest) -> None:
    write_string(w, m.group_id)
    _v = m.topics
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_OffsetFetchRequestTopic_v0(w, _e)


def read_v6(r: Reader) -> OffsetFetchRequest:
    group_id = r.compact_string()
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_OffsetFetchRequestTopic_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchRequest(group_id=group_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: OffsetFetchRequest) -> None:
    write_compact_string(w, m.group_id)
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_OffsetFetchRequestTopic_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v7(r: Reader) -> OffsetFetchRequest:
    group_id = r.compact_string()
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_OffsetFetchRequestTopic_v6(r) for _ in range(_n)]
    require_stable = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchRequest(group_id=group_id, topics=topics, require_stable=require_stable, unknown_tagged_fields=unknown_tagged_fields)


def write_v7(w: Writer, m: OffsetFetchRequest) -> None:
    write_compact_string(w, m.group_id)
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_OffsetFetchRequestTopic_v6(w, _e)
    w += _S_x.pack(m.require_stable)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v8(r: Reader) -> OffsetFetchRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchRequest.Groups is null")
    groups = [_read_OffsetFetchRequestGroup_v8(r) for _ in range(_n)]
    require_stable = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchRequest(groups=groups, require_stable=require_stable, unknown_tagged_fields=unknown_tagged_fields)


def write_v8(w: Writer, m: OffsetFetchRequest) -> None:
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetFetchRequestGroup_v8(w, _e)
    w += _S_x.pack(m.require_stable)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v9(r: Reader) -> OffsetFetchRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchRequest.Groups is null")
    groups = [_read_OffsetFetchRequestGroup_v9(r) for _ in range(_n)]
    require_stable = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchRequest(groups=groups, require_stable=require_stable, unknown_tagged_fields=unknown_tagged_fields)


def write_v9(w: Writer, m: OffsetFetchRequest) -> None:
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetFetchRequestGroup_v9(w, _e)
    w += _S_x.pack(m.require_stable)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v3 = read_v2
write_v3 = write_v2
read_v4 = read_v2
write_v4 = write_v2
read_v5 = read_v2
write_v5 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9}


def read(r: Reader, version: int) -> OffsetFetchRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetFetchRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetFetchRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetFetchRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
