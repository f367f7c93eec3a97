# Generated from OffsetForLeaderEpochRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "OffsetForLeaderEpochRequest"
API_KEY = 23
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (4, 4)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ii = _struct.Struct(">ii")
_S_iii = _struct.Struct(">iii")


@dataclass(slots=True)
class OffsetForLeaderPartition:
    partition: int = 0
    current_leader_epoch: int = -1
    leader_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetForLeaderTopic:
    topic: str = ""
    partitions: list[OffsetForLeaderPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetForLeaderEpochRequest:
    replica_id: int = -2
    topics: list[OffsetForLeaderTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_OffsetForLeaderPartition_v0(r: Reader) -> OffsetForLeaderPartition:
    partition, leader_epoch = r.unpack(_S_ii)
    return OffsetForLeaderPartition(partition=partition, leader_epoch=leader_epoch)


def _write_OffsetForLeaderPartition_v0(w: Writer, m: OffsetForLeaderPartition) -> None:
    w += _S_ii.pack(m.partition, m.leader_epoch)


def _read_OffsetForLeaderPartition_v2(r: Reader) -> OffsetForLeaderPartition:
    partition, current_leader_epoch, leader_epoch = r.unpack(_S_iii)
    return OffsetForLeaderPartition(partition=partition, current_leader_epoch=current_leader_epoch, leader_epoch=leader_epoch)


def _write_OffsetForLeaderPartition_v2(w: Writer, m: OffsetForLeaderPartition) -> None:
    w += _S_iii.pack(m.partition, m.current_leader_epoch, m.leader_epoch)


def _read_OffsetForLeaderPartition_v4(r: Reader) -> OffsetForLeaderPartition:
    partition, current_leader_epoch, leader_epoch = r.unpack(_S_iii)
    unknown_tagged_fields = r.tagged_fields()
    return OffsetForLeaderPartition(partition=partition, current_leader_epoch=current_leader_epoch, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetForLeaderPartition_v4(w: Writer, m: OffsetForLeaderPartition) -> None:
    w += _S_iii.pack(m.partition, m.current_leader_epoch, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetForLeaderTopic_v0(r: Reader) -> OffsetForLeaderTopic:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochRequest.Partitions is null")
    partitions = [_read_OffsetForLeaderPartition_v0(r) for _ in range(_n)]
    return OffsetForLeaderTopic(topic=topic, partitions=partitions)


def _write_OffsetForLeaderTopic_v0(w: Writer, m: OffsetForLeaderTopic) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetForLeaderPartition_v0(w, _e)


def _read_OffsetForLeaderTopic_v2(r: Reader) -> OffsetForLeaderTopic:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochRequest.Partitions is null")
    partitions = [_read_OffsetForLeaderPartition_v2(r) for _ in range(_n)]
    return OffsetForLeaderTopic(topic=topic, partitions=partitions)


def _write_OffsetForLeaderTopic_v2(w: Writer, m: OffsetForLeaderTopic) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetForLeaderPartition_v2(w, _e)


def _read_OffsetForLeaderTopic_v4(r: Reader) -> OffsetForLeaderTopic:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochRequest.Partitions is null")
    partitions = [_read_OffsetForLeaderPartition_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetForLeaderTopic(topic=topic, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetForLeaderTopic_v4(w: Writer, m: OffsetForLeaderTopic) -> None:
    write_compact_string(w, m.topic)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetForLeaderPartition_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> OffsetForLeaderEpochRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochRequest.Topics is null")
    topics = [_read_OffsetForLeaderTopic_v0(r) for _ in range(_n)]
    return OffsetForLeaderEpochRequest(topics=topics)


def write_v0(w: Writer, m: OffsetForLeaderEpochRequest) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetForLeaderTopic_v0(w, _e)


def read_v2(r: Reader) -> OffsetForLeaderEpochRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochRequest.Topics is null")
    topics = [_read_OffsetForLeaderTopic_v2(r) for _ in range(_n)]
    return OffsetForLeaderEpochRequest(topics=topics)


def write_v2(w: Writer, m: OffsetForLeaderEpochRequest) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetForLeaderTopic_v2(w, _e)


def read_v3(r: Reader) -> OffsetForLeaderEpochRequest:
    replica_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochRequest.Topics is null")
    topics = [_read_OffsetForLeaderTopic_v2(r) for _ in range(_n)]
    return OffsetForLeaderEpochRequest(replica_id=replica_id, topics=topics)


def write_v3(w: Writer, m: OffsetForLeaderEpochRequest) -> None:
    w += _S_i.pack(m.replica_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetForLeaderTopic_v2(w, _e)


def read_v4(r: Reader) -> OffsetForLeaderEpochRequest:
    replica_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochRequest.Topics is null")
    topics = [_read_OffsetForLeaderTopic_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetForLeaderEpochRequest(replica_id=replica_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: OffsetForLeaderEpochRequest) -> None:
    w += _S_i.pack(m.replica_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetForLeaderTopic_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> OffsetForLeaderEpochRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetForLeaderEpochRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetForLeaderEpochRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetForLeaderEpochRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
