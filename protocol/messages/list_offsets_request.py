# Generated from ListOffsetsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ListOffsetsRequest"
API_KEY = 2
TYPE = "request"
VALID_VERSIONS = (0, 9)
FLEXIBLE_VERSIONS = (6, 9)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ib = _struct.Struct(">ib")
_S_iiq = _struct.Struct(">iiq")
_S_iq = _struct.Struct(">iq")
_S_iqi = _struct.Struct(">iqi")


@dataclass(slots=True)
class ListOffsetsPartition:
    partition_index: int = 0
    current_leader_epoch: int = -1
    timestamp: int = 0
    max_num_offsets: int = 1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListOffsetsTopic:
    name: str = ""
    partitions: list[ListOffsetsPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListOffsetsRequest:
    replica_id: int = 0
    isolation_level: int = 0
    topics: list[ListOffsetsTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ListOffsetsPartition_v0(r: Reader) -> ListOffsetsPartition:
    partition_index, timestamp, max_num_offsets = r.unpack(_S_iqi)
    return ListOffsetsPartition(partition_index=partition_index, timestamp=timestamp, max_num_offsets=max_num_offsets)


def _write_ListOffsetsPartition_v0(w: Writer, m: ListOffsetsPartition) -> None:
    w += _S_iqi.pack(m.partition_index, m.timestamp, m.max_num_offsets)


def _read_ListOffsetsPartition_v1(r: Reader) -> ListOffsetsPartition:
    partition_index, timestamp = r.unpack(_S_iq)
    return ListOffsetsPartition(partition_index=partition_index, timestamp=timestamp)


def _write_ListOffsetsPartition_v1(w: Writer, m: ListOffsetsPartition) -> None:
    w += _S_iq.pack(m.partition_index, m.timestamp)


def _read_ListOffsetsPartition_v4(r: Reader) -> ListOffsetsPartition:
    partition_index, current_leader_epoch, timestamp = r.unpack(_S_iiq)
    return ListOffsetsPartition(partition_index=partition_index, current_leader_epoch=current_leader_epoch, timestamp=timestamp)


def _write_ListOffsetsPartition_v4(w: Writer, m: ListOffsetsPartition) -> None:
    w += _S_iiq.pack(m.partition_index, m.current_leader_epoch, m.timestamp)


def _read_ListOffsetsPartition_v6(r: Reader) -> ListOffsetsPartition:
    partition_index, current_leader_epoch, timestamp = r.unpack(_S_iiq)
    unknown_tagged_fields = r.tagged_fields()
    return ListOffsetsPartition(partition_index=partition_index, current_leader_epoch=current_leader_epoch, timestamp=timestamp, unknown_tagged_fields=unknown_tagged_fields)


def _write_ListOffsetsPartition_v6(w: Writer, m: ListOffsetsPartition) -> None:
    w += _S_iiq.pack(m.partition_index, m.current_leader_epoch, m.timestamp)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ListOffsetsTopic_v0(r: Reader) -> ListOffsetsTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Partitions is null")
    partitions = [_read_ListOffsetsPartition_v0(r) for _ in range(_n)]
    return ListOffsetsTopic(name=name, partitions=partitions)


def _write_ListOffsetsTopic_v0(w: Writer, m: ListOffsetsTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsPartition_v0(w, _e)


def _read_ListOffsetsTopic_v1(r: Reader) -> ListOffsetsTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Partitions is null")
    partitions = [_read_ListOffsetsPartition_v1(r) for _ in range(_n)]
    return ListOffsetsTopic(name=name, partitions=partitions)


def _write_ListOffsetsTopic_v1(w: Writer, m: ListOffsetsTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsPartition_v1(w, _e)


def _read_ListOffsetsTopic_v4(r: Reader) -> ListOffsetsTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Partitions is null")
    partitions = [_read_ListOffsetsPartition_v4(r) for _ in range(_n)]
    return ListOffsetsTopic(name=name, partitions=partitions)


def _write_ListOffsetsTopic_v4(w: Writer, m: ListOffsetsTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsPartition_v4(w, _e)


def _read_ListOffsetsTopic_v6(r: Reader) -> ListOffsetsTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Partitions is null")
    partitions = [_read_ListOffsetsPartition_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListOffsetsTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ListOffsetsTopic_v6(w: Writer, m: ListOffsetsTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ListOffsetsPartition_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ListOffsetsRequest:
    replica_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Topics is null")
    topics = [_read_ListOffsetsTopic_v0(r) for _ in range(_n)]
    return ListOffsetsRequest(replica_id=replica_id, topics=topics)


def write_v0(w: Writer, m: ListOffsetsRequest) -> None:
    w += _S_i.pack(m.replica_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsTopic_v0(w, _e)


def read_v1(r: Reader) -> ListOffsetsRequest:
    replica_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Topics is null")
    topics = [_read_ListOffsetsTopic_v1(r) for _ in range(_n)]
    return ListOffsetsRequest(replica_id=replica_id, topics=topics)


def write_v1(w: Writer, m: ListOffsetsRequest) -> None:
    w += _S_i.pack(m.replica_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsTopic_v1(w, _e)


def read_v2(r: Reader) -> ListOffsetsRequest:
    replica_id, isolation_level = r.unpack(_S_ib)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Topics is null")
    topics = [_read_ListOffsetsTopic_v1(r) for _ in range(_n)]
    return ListOffsetsRequest(replica_id=replica_id, isolation_level=isolation_level, topics=topics)


def write_v2(w: Writer, m: ListOffsetsRequest) -> None:
    w += _S_ib.pack(m.replica_id, m.isolation_level)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsTopic_v1(w, _e)


def read_v4(r: Reader) -> ListOffsetsRequest:
    replica_id, isolation_level = r.unpack(_S_ib)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Topics is null")
    topics = [_read_ListOffsetsTopic_v4(r) for _ in range(_n)]
    return ListOffsetsRequest(replica_id=replica_id, isolation_level=isolation_level, topics=topics)


def write_v4(w: Writer, m: ListOffsetsRequest) -> None:
    w += _S_ib.pack(m.replica_id, m.isolation_level)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListOffsetsTopic_v4(w, _e)


def read_v6(r: Reader) -> ListOffsetsRequest:
    replica_id, isolation_level = r.unpack(_S_ib)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListOffsetsRequest.Topics is null")
    topics = [_read_ListOffsetsTopic_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListOffsetsRequest(replica_id=replica_id, isolation_level=isolation_level, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: ListOffsetsRequest) -> None:
    w += _S_ib.pack(m.replica_id, m.isolation_level)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ListOffsetsTopic_v6(w, _e)
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


def read(r: Reader, version: int) -> ListOffsetsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListOffsetsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListOffsetsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListOffsetsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
