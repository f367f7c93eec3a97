# Generated from OffsetFetchResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "OffsetFetchResponse"
API_KEY = 9
TYPE = "response"
VALID_VERSIONS = (0, 9)
FLEXIBLE_VERSIONS = (6, 9)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_iq = _struct.Struct(">iq")
_S_iqi = _struct.Struct(">iqi")


@dataclass(slots=True)
class OffsetFetchResponsePartition:
    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    metadata: str | None = ""
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetFetchResponseTopic:
    name: str = ""
    partitions: list[OffsetFetchResponsePartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetFetchResponsePartitions:
    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    metadata: str | None = ""
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetFetchResponseTopics:
    name: str = ""
    partitions: list[OffsetFetchResponsePartitions] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetFetchResponseGroup:
    group_id: str = ""
    topics: list[OffsetFetchResponseTopics] = _field(default_factory=list)
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetFetchResponse:
    throttle_time_ms: int = 0
    topics: list[OffsetFetchResponseTopic] = _field(default_factory=list)
    error_code: int = 0
    groups: list[OffsetFetchResponseGroup] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_OffsetFetchResponsePartition_v0(r: Reader) -> OffsetFetchResponsePartition:
    partition_index, committed_offset = r.unpack(_S_iq)
    metadata = r.nullable_string()
    error_code = r.int16()
    return OffsetFetchResponsePartition(partition_index=partition_index, committed_offset=committed_offset, metadata=metadata, error_code=error_code)


def _write_OffsetFetchResponsePartition_v0(w: Writer, m: OffsetFetchResponsePartition) -> None:
    w += _S_iq.pack(m.partition_index, m.committed_offset)
    write_nullable_string(w, m.metadata)
    w += _S_h.pack(m.error_code)


def _read_OffsetFetchResponsePartition_v5(r: Reader) -> OffsetFetchResponsePartition:
    partition_index, committed_offset, committed_leader_epoch = r.unpack(_S_iqi)
    metadata = r.nullable_string()
    error_code = r.int16()
    return OffsetFetchResponsePartition(partition_index=partition_index, committed_offset=committed_offset, committed_leader_epoch=committed_leader_epoch, metadata=metadata, error_code=error_code)


def _write_OffsetFetchResponsePartition_v5(w: Writer, m: OffsetFetchResponsePartition) -> None:
    w += _S_iqi.pack(m.partition_index, m.committed_offset, m.committed_leader_epoch)
    write_nullable_string(w, m.metadata)
    w += _S_h.pack(m.error_code)


def _read_OffsetFetchResponsePartition_v6(r: Reader) -> OffsetFetchResponsePartition:
    partition_index, committed_offset, committed_leader_epoch = r.unpack(_S_iqi)
    metadata = r.compact_nullable_string()
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchResponsePartition(partition_index=partition_index, committed_offset=committed_offset, committed_leader_epoch=committed_leader_epoch, metadata=metadata, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchResponsePartition_v6(w: Writer, m: OffsetFetchResponsePartition) -> None:
    w += _S_iqi.pack(m.partition_index, m.committed_offset, m.committed_leader_epoch)
    write_compact_nullable_string(w, m.metadata)
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetFetchResponseTopic_v0(r: Reader) -> OffsetFetchResponseTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Partitions is null")
    partitions = [_read_OffsetFetchResponsePartition_v0(r) for _ in range(_n)]
    return OffsetFetchResponseTopic(name=name, partitions=partitions)


def _write_OffsetFetchResponseTopic_v0(w: Writer, m: OffsetFetchResponseTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetFetchResponsePartition_v0(w, _e)


def _read_OffsetFetchResponseTopic_v5(r: Reader) -> OffsetFetchResponseTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Partitions is null")
    partitions = [_read_OffsetFetchResponsePartition_v5(r) for _ in range(_n)]
    return OffsetFetchResponseTopic(name=name, partitions=partitions)


def _write_OffsetFetchResponseTopic_v5(w: Writer, m: OffsetFetchResponseTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetFetchResponsePartition_v5(w, _e)


def _read_OffsetFetchResponseTopic_v6(r: Reader) -> OffsetFetchResponseTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Partitions is null")
    partitions = [_read_OffsetFetchResponsePartition_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchResponseTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchResponseTopic_v6(w: Writer, m: OffsetFetchResponseTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetFetchResponsePartition_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetFetchResponsePartitions_v8(r: Reader) -> OffsetFetchResponsePartitions:
    partition_index, committed_offset, committed_leader_epoch = r.unpack(_S_iqi)
    metadata = r.compact_nullable_string()
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchResponsePartitions(partition_index=partition_index, committed_offset=committed_offset, committed_leader_epoch=committed_leader_epoch, metadata=metadata, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchResponsePartitions_v8(w: Writer, m: OffsetFetchResponsePartitions) -> None:
    w += _S_iqi.pack(m.partition_index, m.committed_offset, m.committed_leader_epoch)
    write_compact_nullable_string(w, m.metadata)
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetFetchResponseTopics_v8(r: Reader) -> OffsetFetchResponseTopics:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Partitions is null")
    partitions = [_read_OffsetFetchResponsePartitions_v8(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchResponseTopics(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchResponseTopics_v8(w: Writer, m: OffsetFetchResponseTopics) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetFetchResponsePartitions_v8(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetFetchResponseGroup_v8(r: Reader) -> OffsetFetchResponseGroup:
    group_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Topics is null")
    topics = [_read_OffsetFetchResponseTopics_v8(r) for _ in range(_n)]
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchResponseGroup(group_id=group_id, topics=topics, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetFetchResponseGroup_v8(w: Writer, m: OffsetFetchResponseGroup) -> None:
    write_compact_string(w, m.group_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetFetchResponseTopics_v8(w, _e)
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> OffsetFetchResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Topics is null")
    topics = [_read_OffsetFetchResponseTopic_v0(r) for _ in range(_n)]
    return OffsetFetchResponse(topics=topics)


def write_v0(w: Writer, m: OffsetFetchResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetFetchResponseTopic_v0(w, _e)


def read_v2(r: Reader) -> OffsetFetchResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Topics is null")
    topics = [_read_OffsetFetchResponseTopic_v0(r) for _ in range(_n)]
    error_code = r.int16()
    return OffsetFetchResponse(topics=topics, error_code=error_code)


def write_v2(w: Writer, m: OffsetFetchResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetFetchResponseTopic_v0(w, _e)
    w += _S_h.pack(m.error_code)


def read_v3(r: Reader) -> OffsetFetchResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Topics is null")
    topics = [_read_OffsetFetchResponseTopic_v0(r) for _ in range(_n)]
    error_code = r.int16()
    return OffsetFetchResponse(throttle_time_ms=throttle_time_ms, topics=topics, error_code=error_code)


def write_v3(w: Writer, m: OffsetFetchResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetFetchResponseTopic_v0(w, _e)
    w += _S_h.pack(m.error_code)


def read_v5(r: Reader) -> OffsetFetchResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Topics is null")
    topics = [_read_OffsetFetchResponseTopic_v5(r) for _ in range(_n)]
    error_code = r.int16()
    return OffsetFetchResponse(throttle_time_ms=throttle_time_ms, topics=topics, error_code=error_code)


def write_v5(w: Writer, m: OffsetFetchResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetFetchResponseTopic_v5(w, _e)
    w += _S_h.pack(m.error_code)


def read_v6(r: Reader) -> OffsetFetchResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Topics is null")
    topics = [_read_OffsetFetchResponseTopic_v6(r) for _ in range(_n)]
    error_code = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchResponse(throttle_time_ms=throttle_time_ms, topics=topics, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: OffsetFetchResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetFetchResponseTopic_v6(w, _e)
    w += _S_h.pack(m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v8(r: Reader) -> OffsetFetchResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetFetchResponse.Groups is null")
    groups = [_read_OffsetFetchResponseGroup_v8(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetFetchResponse(throttle_time_ms=throttle_time_ms, groups=groups, unknown_tagged_fields=unknown_tagged_fields)


def write_v8(w: Writer, m: OffsetFetchResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetFetchResponseGroup_v8(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v4 = read_v3
write_v4 = write_v3
read_v7 = read_v6
write_v7 = write_v6
read_v9 = read_v8
write_v9 = write_v8

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9}


def read(r: Reader, version: int) -> OffsetFetchResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetFetchResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetFetchResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetFetchResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
