# Generated from ListOffsetsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ListOffsetsResponse"
API_KEY = 2
TYPE = "response"
VALID_VERSIONS = (0, 9)
FLEXIBLE_VERSIONS = (6, 9)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_ihqq = _struct.Struct(">ihqq")
_S_ihqqi = _struct.Struct(">ihqqi")


@dataclass(slots=True)
class ListOffsetsPartitionResponse:
    partition_index: int = 0
    error_code: int = 0
    old_style_offsets: list[int] = _field(default_factory=list)
    timestamp: int = -1
    offset: int = -1
    leader_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListOffsetsTopicResponse:
    name: str = ""
    partitions: list[ListOffsetsPartitionResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListOffsetsResponse:
    throttle_time_ms: int = 0
    topics: list[ListOffsetsTopicResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ListOffsetsPartitionResponse_v0(r: Reader) -> ListOffsetsPartitionResponse:
    partition_index, error_code = r.unpack(_S_ih)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.OldStyleOffsets is null")
    old_style_offsets = r.fixed_array("q", _n)
    return ListOffsetsPartitionResponse(partition_index=partition_index, error_code=error_code, old_style_offsets=old_style_offsets)


def _write_ListOffsetsPartitionResponse_v0(w: Writer, m: ListOffsetsPartitionResponse) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    _v = m.old_style_offsets
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "q", _v)


def _read_ListOffsetsPartitionResponse_v1(r: Reader) -> ListOffsetsPartitionResponse:
    partition_index, error_code, timestamp, offset = r.unpack(_S_ihqq)
    return ListOffsetsPartitionResponse(partition_index=partition_index, error_code=error_code, timestamp=timestamp, offset=offset)


def _write_ListOffsetsPartitionResponse_v1(w: Writer, m: ListOffsetsPartitionResponse) -> None:
    w += _S_ihqq.pack(m.partition_index, m.error_code, m.timestamp, m.offset)


def _read_ListOffsetsPartitionResponse_v4(r: Reader) -> ListOffsetsPartitionResponse:
    partition_index, error_code, timestamp, offset, leader_epoch = r.unpack(_S_ihqqi)
    return ListOffsetsPartitionResponse(partition_index=partition_index, error_code=error_code, timestamp=timestamp, offset=offset, leader_epoch=leader_epoch)


def _write_ListOffsetsPartitionResponse_v4(w: Writer, m: ListOffsetsPartitionResponse) -> None:
    w += _S_ihqqi.pack(m.partition_index, m.error_code, m.timestamp, m.offset, m.leader_epoch)


def _read_ListOffsetsPartitionResponse_v6(r: Reader) -> ListOffsetsPartitionResponse:
    partition_index, error_code, timestamp, offset, leader_epoch = r.unpack(_S_ihqqi)
    unknown_tagged_fields = r.tagged_fields()
    return ListOffsetsPartitionResponse(partition_index=partition_index, error_code=error_code, timestamp=timestamp, offset=offset, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_ListOffsetsPartitionResponse_v6(w: Writer, m: ListOffsetsPartitionResponse) -> None:
    w += _S_ihqqi.pack(m.partition_index, m.error_code, m.timestamp, m.offset, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ListOffsetsTopicResponse_v0(r: Reader) -> ListOffsetsTopicResponse:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Partitions is null")
    partitions = [_read_ListOffsetsPartitionResponse_v0(r) for _ in range(_n)]
    return ListOffsetsTopicResponse(name=name, partitions=partitions)


def _write_ListOffsetsTopicResponse_v0(w: Writer, m: ListOffsetsTopicResponse) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsPartitionResponse_v0(w, _e)


def _read_ListOffsetsTopicResponse_v1(r: Reader) -> ListOffsetsTopicResponse:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Partitions is null")
    partitions = [_read_ListOffsetsPartitionResponse_v1(r) for _ in range(_n)]
    return ListOffsetsTopicResponse(name=name, partitions=partitions)


def _write_ListOffsetsTopicResponse_v1(w: Writer, m: ListOffsetsTopicResponse) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsPartitionResponse_v1(w, _e)


def _read_ListOffsetsTopicResponse_v4(r: Reader) -> ListOffsetsTopicResponse:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Partitions is null")
    partitions = [_read_ListOffsetsPartitionResponse_v4(r) for _ in range(_n)]
    return ListOffsetsTopicResponse(name=name, partitions=partitions)


def _write_ListOffsetsTopicResponse_v4(w: Writer, m: ListOffsetsTopicResponse) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsPartitionResponse_v4(w, _e)


def _read_ListOffsetsTopicResponse_v6(r: Reader) -> ListOffsetsTopicResponse:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Partitions is null")
    partitions = [_read_ListOffsetsPartitionResponse_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListOffsetsTopicResponse(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ListOffsetsTopicResponse_v6(w: Writer, m: ListOffsetsTopicResponse) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ListOffsetsPartitionResponse_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ListOffsetsResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Topics is null")
    topics = [_read_ListOffsetsTopicResponse_v0(r) for _ in range(_n)]
    return ListOffsetsResponse(topics=topics)


def write_v0(w: Writer, m: ListOffsetsResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsTopicResponse_v0(w, _e)


def read_v1(r: Reader) -> ListOffsetsResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Topics is null")
    topics = [_read_ListOffsetsTopicResponse_v1(r) for _ in range(_n)]
    return ListOffsetsResponse(topics=topics)


def write_v1(w: Writer, m: ListOffsetsResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsTopicResponse_v1(w, _e)


def read_v2(r: Reader) -> ListOffsetsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Topics is null")
    topics = [_read_ListOffsetsTopicResponse_v1(r) for _ in range(_n)]
    return ListOffsetsResponse(throttle_time_ms=throttle_time_ms, topics=topics)


def write_v2(w: Writer, m: ListOffsetsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsTopicResponse_v1(w, _e)


def read_v4(r: Reader) -> ListOffsetsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Topics is null")
    topics = [_read_ListOffsetsTopicResponse_v4(r) for _ in range(_n)]
    return ListOffsetsResponse(throttle_time_ms=throttle_time_ms, topics=topics)


def write_v4(w: Writer, m: ListOffsetsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsTopicResponse_v4(w, _e)


def read_v6(r: Reader) -> ListOffsetsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsResponse.Topics is null")
    topics = [_read_ListOffsetsTopicResponse_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListOffsetsResponse(throttle_time_ms=throttle_time_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: ListOffsetsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ListOffsetsTopicResponse_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v3 = read_v2
write_v3 = write_v2
read_v5 = read_v4
write_v5 = write_v4
read_v7 = read_v6
write_v7 = write_v6
read_v8 = read_v6
write_v8 = write_v6
read_v9 = read_v6
write_v9 = write_v6

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9}


def read(r: Reader, version: int) -> ListOffsetsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListOffsetsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListOffsetsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListOffsetsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
