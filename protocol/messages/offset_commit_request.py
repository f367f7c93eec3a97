# Generated from OffsetCommitRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "OffsetCommitRequest"
API_KEY = 8
TYPE = "request"
VALID_VERSIONS = (0, 9)
FLEXIBLE_VERSIONS = (8, 9)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iq = _struct.Struct(">iq")
_S_iqi = _struct.Struct(">iqi")
_S_iqq = _struct.Struct(">iqq")
_S_q = _struct.Struct(">q")


@dataclass(slots=True)
class OffsetCommitRequestPartition:
    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    commit_timestamp: int = -1
    committed_metadata: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetCommitRequestTopic:
    name: str = ""
    partitions: list[OffsetCommitRequestPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetCommitRequest:
    group_id: str = ""
    generation_id_or_member_epoch: int = -1
    member_id: str = ""
    group_instance_id: str | None = None
    retention_time_ms: int = -1
    topics: list[OffsetCommitRequestTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_OffsetCommitRequestPartition_v0(r: Reader) -> OffsetCommitRequestPartition:
    partition_index, committed_offset = r.unpack(_S_iq)
    committed_metadata = r.nullable_string()
    return OffsetCommitRequestPartition(partition_index=partition_index, committed_offset=committed_offset, committed_metadata=committed_metadata)


def _write_OffsetCommitRequestPartition_v0(w: Writer, m: OffsetCommitRequestPartition) -> None:
    w += _S_iq.pack(m.partition_index, m.committed_offset)
    write_nullable_string(w, m.committed_metadata)


def _read_OffsetCommitRequestPartition_v1(r: Reader) -> OffsetCommitRequestPartition:
    partition_index, committed_offset, commit_timestamp = r.unpack(_S_iqq)
    committed_metadata = r.nullable_string()
    return OffsetCommitRequestPartition(partition_index=partition_index, committed_offset=committed_offset, commit_timestamp=commit_timestamp, committed_metadata=committed_metadata)


def _write_OffsetCommitRequestPartition_v1(w: Writer, m: OffsetCommitRequestPartition) -> None:
    w += _S_iqq.pack(m.partition_index, m.committed_offset, m.commit_timestamp)
    write_nullable_string(w, m.committed_metadata)


def _read_OffsetCommitRequestPartition_v6(r: Reader) -> OffsetCommitRequestPartition:
    partition_index, committed_offset, committed_leader_epoch = r.unpack(_S_iqi)
    committed_metadata = r.nullable_string()
    return OffsetCommitRequestPartition(partition_index=partition_index, committed_offset=committed_offset, committed_leader_epoch=committed_leader_epoch, committed_metadata=committed_metadata)


def _write_OffsetCommitRequestPartition_v6(w: Writer, m: OffsetCommitRequestPartition) -> None:
    w += _S_iqi.pack(m.partition_index, m.committed_offset, m.committed_leader_epoch)
    write_nullable_string(w, m.committed_metadata)


def _read_OffsetCommitRequestPartition_v8(r: Reader) -> OffsetCommitRequestPartition:
    partition_index, committed_offset, committed_leader_epoch = r.unpack(_S_iqi)
    committed_metadata = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetCommitRequestPartition(partition_index=partition_index, committed_offset=committed_offset, committed_leader_epoch=committed_leader_epoch, committed_metadata=committed_metadata, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetCommitRequestPartition_v8(w: Writer, m: OffsetCommitRequestPartition) -> None:
    w += _S_iqi.pack(m.partition_index, m.committed_offset, m.committed_leader_epoch)
    write_compact_nullable_string(w, m.committed_metadata)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetCommitRequestTopic_v0(r: Reader) -> OffsetCommitRequestTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Partitions is null")
    partitions = [_read_OffsetCommitRequestPartition_v0(r) for _ in range(_n)]
    return OffsetCommitRequestTopic(name=name, partitions=partitions)


def _write_OffsetCommitRequestTopic_v0(w: Writer, m: OffsetCommitRequestTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestPartition_v0(w, _e)


def _read_OffsetCommitRequestTopic_v1(r: Reader) -> OffsetCommitRequestTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Partitions is null")
    partitions = [_read_OffsetCommitRequestPartition_v1(r) for _ in range(_n)]
    return OffsetCommitRequestTopic(name=name, partitions=partitions)


def _write_OffsetCommitRequestTopic_v1(w: Writer, m: OffsetCommitRequestTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestPartition_v1(w, _e)


def _read_OffsetCommitRequestTopic_v6(r: Reader) -> OffsetCommitRequestTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Partitions is null")
    partitions = [_read_OffsetCommitRequestPartition_v6(r) for _ in range(_n)]
    return OffsetCommitRequestTopic(name=name, partitions=partitions)


def _write_OffsetCommitRequestTopic_v6(w: Writer, m: OffsetCommitRequestTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestPartition_v6(w, _e)


def _read_OffsetCommitRequestTopic_v8(r: Reader) -> OffsetCommitRequestTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Partitions is null")
    partitions = [_read_OffsetCommitRequestPartition_v8(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetCommitRequestTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetCommitRequestTopic_v8(w: Writer, m: OffsetCommitRequestTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetCommitRequestPartition_v8(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> OffsetCommitRequest:
    group_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Topics is null")
    topics = [_read_OffsetCommitRequestTopic_v0(r) for _ in range(_n)]
    return OffsetCommitRequest(group_id=group_id, topics=topics)


def write_v0(w: Writer, m: OffsetCommitRequest) -> None:
    write_string(w, m.group_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestTopic_v0(w, _e)


def read_v1(r: Reader) -> OffsetCommitRequest:
    group_id = r.string()
    generation_id_or_member_epoch = r.int32()
    member_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Topics is null")
    topics = [_read_OffsetCommitRequestTopic_v1(r) for _ in range(_n)]
    return OffsetCommitRequest(group_id=group_id, generation_id_or_member_epoch=generation_id_or_member_epoch, member_id=member_id, topics=topics)


def write_v1(w: Writer, m: OffsetCommitRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id_or_member_epoch)
    write_string(w, m.member_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestTopic_v1(w, _e)


def read_v2(r: Reader) -> OffsetCommitRequest:
    group_id = r.string()
    generation_id_or_member_epoch = r.int32()
    member_id = r.string()
    retention_time_ms = r.int64()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Topics is null")
    topics = [_read_OffsetCommitRequestTopic_v0(r) for _ in range(_n)]
    return OffsetCommitRequest(group_id=group_id, generation_id_or_member_epoch=generation_id_or_member_epoch, member_id=member_id, retention_time_ms=retention_time_ms, topics=topics)


def write_v2(w: Writer, m: OffsetCommitRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id_or_member_epoch)
    write_string(w, m.member_id)
    w += _S_q.pack(m.retention_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestTopic_v0(w, _e)


def read_v5(r: Reader) -> OffsetCommitRequest:
    group_id = r.string()
    generation_id_or_member_epoch = r.int32()
    member_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Topics is null")
    topics = [_read_OffsetCommitRequestTopic_v0(r) for _ in range(_n)]
    return OffsetCommitRequest(group_id=group_id, generation_id_or_member_epoch=generation_id_or_member_epoch, member_id=member_id, topics=topics)


def write_v5(w: Writer, m: OffsetCommitRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id_or_member_epoch)
    write_string(w, m.member_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestTopic_v0(w, _e)


def read_v6(r: Reader) -> OffsetCommitRequest:
    group_id = r.string()
    generation_id_or_member_epoch = r.int32()
    member_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Topics is null")
    topics = [_read_OffsetCommitRequestTopic_v6(r) for _ in range(_n)]
    return OffsetCommitRequest(group_id=group_id, generation_id_or_member_epoch=generation_id_or_member_epoch, member_id=member_id, topics=topics)


def write_v6(w: Writer, m: OffsetCommitRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id_or_member_epoch)
    write_string(w, m.member_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestTopic_v6(w, _e)


def read_v7(r: Reader) -> OffsetCommitRequest:
    group_id = r.string()
    generation_id_or_member_epoch = r.int32()
    member_id = r.string()
    group_instance_id = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Topics is null")
    topics = [_read_OffsetCommitRequestTopic_v6(r) for _ in range(_n)]
    return OffsetCommitRequest(group_id=group_id, generation_id_or_member_epoch=generation_id_or_member_epoch, member_id=member_id, group_instance_id=group_instance_id, topics=topics)


def write_v7(w: Writer, m: OffsetCommitRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id_or_member_epoch)
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitRequestTopic_v6(w, _e)


def read_v8(r: Reader) -> OffsetCommitRequest:
    group_id = r.compact_string()
    generation_id_or_member_epoch = r.int32()
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitRequest.Topics is null")
    topics = [_read_OffsetCommitRequestTopic_v8(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetCommitRequest(group_id=group_id, generation_id_or_member_epoch=generation_id_or_member_epoch, member_id=member_id, group_instance_id=group_instance_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v8(w: Writer, m: OffsetCommitRequest) -> None:
    write_compact_string(w, m.group_id)
    w += _S_i.pack(m.generation_id_or_member_epoch)
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetCommitRequestTopic_v8(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v3 = read_v2
write_v3 = write_v2
read_v4 = read_v2
write_v4 = write_v2
read_v9 = read_v8
write_v9 = write_v8

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9}


def read(r: Reader, version: int) -> OffsetCommitRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetCommitRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetCommitRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetCommitRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
