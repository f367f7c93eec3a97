# Generated from AssignReplicasToDirsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "AssignReplicasToDirsRequest"
API_KEY = 73
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("controller",)
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iq = _struct.Struct(">iq")


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicData:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DirectoryData:
    id: uuid.UUID = ZERO_UUID
    topics: list[TopicData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AssignReplicasToDirsRequest:
    broker_id: int = 0
    broker_epoch: int = -1
    directories: list[DirectoryData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_i.pack(m.partition_index)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v0(r: Reader) -> TopicData:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AssignReplicasToDirsRequest.Partitions is null")
    partitions = [_read_PartitionData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicData(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicData_v0(w: Writer, m: TopicData) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DirectoryData_v0(r: Reader) -> DirectoryData:
    id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AssignReplicasToDirsRequest.Topics is null")
    topics = [_read_TopicData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DirectoryData(id=id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def _write_DirectoryData_v0(w: Writer, m: DirectoryData) -> None:
    w += m.id.bytes
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AssignReplicasToDirsRequest:
    broker_id, broker_epoch = r.unpack(_S_iq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AssignReplicasToDirsRequest.Directories is null")
    directories = [_read_DirectoryData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AssignReplicasToDirsRequest(broker_id=broker_id, broker_epoch=broker_epoch, directories=directories, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AssignReplicasToDirsRequest) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)
    _v = m.directories
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DirectoryData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> AssignReplicasToDirsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AssignReplicasToDirsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AssignReplicasToDirsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AssignReplicasToDirsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
