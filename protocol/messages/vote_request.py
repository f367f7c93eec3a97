# Generated from VoteRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "VoteRequest"
API_KEY = 52
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ("controller",)
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iii = _struct.Struct(">iii")
_S_iiiiq = _struct.Struct(">iiiiq")
_S_iq = _struct.Struct(">iq")


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    candidate_epoch: int = 0
    candidate_id: int = 0
    candidate_directory_id: uuid.UUID = ZERO_UUID
    voter_directory_id: uuid.UUID = ZERO_UUID
    last_offset_epoch: int = 0
    last_offset: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicData:
    topic_name: str = ""
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class VoteRequest:
    cluster_id: str | None = None
    voter_id: int = -1
    topics: list[TopicData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index, candidate_epoch, candidate_id, last_offset_epoch, last_offset = r.unpack(_S_iiiiq)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, candidate_epoch=candidate_epoch, candidate_id=candidate_id, last_offset_epoch=last_offset_epoch, last_offset=last_offset, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_iiiiq.pack(m.partition_index, m.candidate_epoch, m.candidate_id, m.last_offset_epoch, m.last_offset)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v1(r: Reader) -> PartitionData:
    partition_index, candidate_epoch, candidate_id = r.unpack(_S_iii)
    candidate_directory_id = r.uuid()
    voter_directory_id = r.uuid()
    last_offset_epoch, last_offset = r.unpack(_S_iq)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, candidate_epoch=candidate_epoch, candidate_id=candidate_id, candidate_directory_id=candidate_directory_id, voter_directory_id=voter_directory_id, last_offset_epoch=last_offset_epoch, last_offset=last_offset, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v1(w: Writer, m: PartitionData) -> None:
    w += _S_iii.pack(m.partition_index, m.candidate_epoch, m.candidate_id)
    w += m.candidate_directory_id.bytes
    w += m.voter_directory_id.bytes
    w += _S_iq.pack(m.last_offset_epoch, m.last_offset)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v0(r: Reader) -> TopicData:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array VoteRequest.Partitions is null")
    partitions = [_read_PartitionData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicData(topic_name=topic_name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicData_v0(w: Writer, m: TopicData) -> None:
    write_compact_string(w, m.topic_name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v1(r: Reader) -> TopicData:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array VoteRequest.Partitions is null")
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


def read_v0(r: Reader) -> VoteRequest:
    cluster_id = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array VoteRequest.Topics is null")
    topics = [_read_TopicData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return VoteRequest(cluster_id=cluster_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: VoteRequest) -> None:
    write_compact_nullable_string(w, m.cluster_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> VoteRequest:
    cluster_id = r.compact_nullable_string()
    voter_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array VoteRequest.Topics is null")
    topics = [_read_TopicData_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return VoteRequest(cluster_id=cluster_id, voter_id=voter_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: VoteRequest) -> None:
    write_compact_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.voter_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> VoteRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: VoteRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> VoteRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: VoteRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
