# Generated from BeginQuorumEpochRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "BeginQuorumEpochRequest"
API_KEY = 53
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ("controller",)
LATEST_VERSION_UNSTABLE = False

_S_H = _struct.Struct(">H")
_S_i = _struct.Struct(">i")
_S_ii = _struct.Struct(">ii")
_S_iii = _struct.Struct(">iii")


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    voter_directory_id: uuid.UUID = ZERO_UUID
    leader_id: int = 0
    leader_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicData:
    topic_name: str = ""
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderEndpoint:
    name: str = ""
    host: str = ""
    port: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class BeginQuorumEpochRequest:
    cluster_id: str | None = None
    voter_id: int = -1
    topics: list[TopicData] = _field(default_factory=list)
    leader_endpoints: list[LeaderEndpoint] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index, leader_id, leader_epoch = r.unpack(_S_iii)
    return PartitionData(partition_index=partition_index, leader_id=leader_id, leader_epoch=leader_epoch)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_iii.pack(m.partition_index, m.leader_id, m.leader_epoch)


def _read_PartitionData_v1(r: Reader) -> PartitionData:
    partition_index = r.int32()
    voter_directory_id = r.uuid()
    leader_id, leader_epoch = r.unpack(_S_ii)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, voter_directory_id=voter_directory_id, leader_id=leader_id, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v1(w: Writer, m: PartitionData) -> None:
    w += _S_i.pack(m.partition_index)
    w += m.voter_directory_id.bytes
    w += _S_ii.pack(m.leader_id, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v0(r: Reader) -> TopicData:
    topic_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BeginQuorumEpochRequest.Partitions is null")
    partitions = [_read_PartitionData_v0(r) for _ in range(_n)]
    return TopicData(topic_name=topic_name, partitions=partitions)


def _write_TopicData_v0(w: Writer, m: TopicData) -> None:
    write_string(w, m.topic_name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionData_v0(w, _e)


def _read_TopicData_v1(r: Reader) -> TopicData:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BeginQuorumEpochRequest.Partitions is null")
    partitions = [_read_PartitionData_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicData(topic_name=topic_name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicData_v1(w: Writer, m: TopicData) -> None:
    write_compact_string(w, m.topic_name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderEndpoint_v1(r: Reader) -> LeaderEndpoint:
    name = r.compact_string()
    host = r.compact_string()
    port = r.uint16()
    unknown_tagged_fields = r.tagged_fields()
    return LeaderEndpoint(name=name, host=host, port=port, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderEndpoint_v1(w: Writer, m: LeaderEndpoint) -> None:
    write_compact_string(w, m.name)
    write_compact_string(w, m.host)
    w += _S_H.pack(m.port)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> BeginQuorumEpochRequest:
    cluster_id = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BeginQuorumEpochRequest.Topics is null")
    topics = [_read_TopicData_v0(r) for _ in range(_n)]
    return BeginQuorumEpochRequest(cluster_id=cluster_id, topics=topics)


def write_v0(w: Writer, m: BeginQuorumEpochRequest) -> None:
    write_nullable_string(w, m.cluster_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicData_v0(w, _e)


def read_v1(r: Reader) -> BeginQuorumEpochRequest:
    cluster_id = r.compact_nullable_string()
    voter_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BeginQuorumEpochRequest.Topics is null")
    topics = [_read_TopicData_v1(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BeginQuorumEpochRequest.LeaderEndpoints is null")
    leader_endpoints = [_read_LeaderEndpoint_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return BeginQuorumEpochRequest(cluster_id=cluster_id, voter_id=voter_id, topics=topics, leader_endpoints=leader_endpoints, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: BeginQuorumEpochRequest) -> None:
    write_compact_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.voter_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v1(w, _e)
    _v = m.leader_endpoints
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderEndpoint_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> BeginQuorumEpochRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: BeginQuorumEpochRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> BeginQuorumEpochRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: BeginQuorumEpochRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
