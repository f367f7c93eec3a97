# Generated from EndQuorumEpochRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "EndQuorumEpochRequest"
API_KEY = 54
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ("controller",)
LATEST_VERSION_UNSTABLE = False

_S_H = _struct.Struct(">H")
_S_i = _struct.Struct(">i")
_S_iii = _struct.Struct(">iii")


@dataclass(slots=True)
class ReplicaInfo:
    candidate_id: int = 0
    candidate_directory_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    leader_id: int = 0
    leader_epoch: int = 0
    preferred_successors: list[int] = _field(default_factory=list)
    preferred_candidates: list[ReplicaInfo] = _field(default_factory=list)
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
class EndQuorumEpochRequest:
    cluster_id: str | None = None
    topics: list[TopicData] = _field(default_factory=list)
    leader_endpoints: list[LeaderEndpoint] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ReplicaInfo_v1(r: Reader) -> ReplicaInfo:
    candidate_id = r.int32()
    candidate_directory_id = r.uuid()
    unknown_tagged_fields = r.tagged_fields()
    return ReplicaInfo(candidate_id=candidate_id, candidate_directory_id=candidate_directory_id, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReplicaInfo_v1(w: Writer, m: ReplicaInfo) -> None:
    w += _S_i.pack(m.candidate_id)
    w += m.candidate_directory_id.bytes
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index, leader_id, leader_epoch = r.unpack(_S_iii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array EndQuorumEpochRequest.PreferredSuccessors is null")
    preferred_successors = r.fixed_array("i", _n)
    return PartitionData(partition_index=partition_index, leader_id=leader_id, leader_epoch=leader_epoch, preferred_successors=preferred_successors)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_iii.pack(m.partition_index, m.leader_id, m.leader_epoch)
    _v = m.preferred_successors
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_PartitionData_v1(r: Reader) -> PartitionData:
    partition_index, leader_id, leader_epoch = r.unpack(_S_iii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array EndQuorumEpochRequest.PreferredCandidates is null")
    preferred_candidates = [_read_ReplicaInfo_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, leader_id=leader_id, leader_epoch=leader_epoch, preferred_candidates=preferred_candidates, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v1(w: Writer, m: PartitionData) -> None:
    w += _S_iii.pack(m.partition_index, m.leader_id, m.leader_epoch)
    _v = m.preferred_candidates
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReplicaInfo_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v0(r: Reader) -> TopicData:
    topic_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array EndQuorumEpochRequest.Partitions is null")
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
        raise ProtocolError("non-nullable array EndQuorumEpochRequest.Partitions is null")
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


def read_v0(r: Reader) -> EndQuorumEpochRequest:
    cluster_id = r.nullable_string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array EndQuorumEpochRequest.Topics is null")
    topics = [_read_TopicData_v0(r) for _ in range(_n)]
    return EndQuorumEpochRequest(cluster_id=cluster_id, topics=topics)


def write_v0(w: Writer, m: EndQuorumEpochRequest) -> None:
    write_nullable_string(w, m.cluster_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicData_v0(w, _e)


def read_v1(r: Reader) -> EndQuorumEpochRequest:
    cluster_id = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array EndQuorumEpochRequest.Topics is null")
    topics = [_read_TopicData_v1(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array EndQuorumEpochRequest.LeaderEndpoints is null")
    leader_endpoints = [_read_LeaderEndpoint_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return EndQuorumEpochRequest(cluster_id=cluster_id, topics=topics, leader_endpoints=leader_endpoints, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: EndQuorumEpochRequest) -> None:
    write_compact_nullable_string(w, m.cluster_id)
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


def read(r: Reader, version: int) -> EndQuorumEpochRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: EndQuorumEpochRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> EndQuorumEpochRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: EndQuorumEpochRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
