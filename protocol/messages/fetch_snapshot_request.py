# Generated from FetchSnapshotRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "FetchSnapshotRequest"
API_KEY = 59
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ("controller",)
LATEST_VERSION_UNSTABLE = False

_S_ii = _struct.Struct(">ii")
_S_q = _struct.Struct(">q")
_S_qi = _struct.Struct(">qi")


@dataclass(slots=True)
class SnapshotId:
    end_offset: int = 0
    epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionSnapshot:
    partition: int = 0
    current_leader_epoch: int = 0
    snapshot_id: SnapshotId = _field(default_factory=SnapshotId)
    position: int = 0
    replica_directory_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicSnapshot:
    name: str = ""
    partitions: list[PartitionSnapshot] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchSnapshotRequest:
    cluster_id: str | None = None
    replica_id: int = -1
    max_bytes: int = 2147483647
    topics: list[TopicSnapshot] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_SnapshotId_v0(r: Reader) -> SnapshotId:
    end_offset, epoch = r.unpack(_S_qi)
    unknown_tagged_fields = r.tagged_fields()
    return SnapshotId(end_offset=end_offset, epoch=epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_SnapshotId_v0(w: Writer, m: SnapshotId) -> None:
    w += _S_qi.pack(m.end_offset, m.epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionSnapshot_v0(r: Reader) -> PartitionSnapshot:
    partition, current_leader_epoch = r.unpack(_S_ii)
    snapshot_id = _read_SnapshotId_v0(r)
    position = r.int64()
    unknown_tagged_fields = r.tagged_fields()
    return PartitionSnapshot(partition=partition, current_leader_epoch=current_leader_epoch, snapshot_id=snapshot_id, position=position, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionSnapshot_v0(w: Writer, m: PartitionSnapshot) -> None:
    w += _S_ii.pack(m.partition, m.current_leader_epoch)
    _write_SnapshotId_v0(w, m.snapshot_id)
    w += _S_q.pack(m.position)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionSnapshot_v1(r: Reader) -> PartitionSnapshot:
    partition, current_leader_epoch = r.unpack(_S_ii)
    snapshot_id = _read_SnapshotId_v0(r)
    position = r.int64()
    replica_directory_id = ZERO_UUID
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            replica_directory_id = r.uuid()
            if r.pos != _end:
                raise ProtocolError("tagged field FetchSnapshotRequest.ReplicaDirectoryId does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return PartitionSnapshot(partition=partition, current_leader_epoch=current_leader_epoch, snapshot_id=snapshot_id, position=position, replica_directory_id=replica_directory_id, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionSnapshot_v1(w: Writer, m: PartitionSnapshot) -> None:
    w += _S_ii.pack(m.partition, m.current_leader_epoch)
    _write_SnapshotId_v0(w, m.snapshot_id)
    w += _S_q.pack(m.position)
    _known = []
    if m.replica_directory_id != ZERO_UUID:
        _t = Writer()
        _t += m.replica_directory_id.bytes
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def _read_TopicSnapshot_v0(r: Reader) -> TopicSnapshot:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchSnapshotRequest.Partitions is null")
    partitions = [_read_PartitionSnapshot_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicSnapshot(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicSnapshot_v0(w: Writer, m: TopicSnapshot) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionSnapshot_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicSnapshot_v1(r: Reader) -> TopicSnapshot:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchSnapshotRequest.Partitions is null")
    partitions = [_read_PartitionSnapshot_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicSnapshot(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicSnapshot_v1(w: Writer, m: TopicSnapshot) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionSnapshot_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> FetchSnapshotRequest:
    replica_id, max_bytes = r.unpack(_S_ii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchSnapshotRequest.Topics is null")
    topics = [_read_TopicSnapshot_v0(r) for _ in range(_n)]
    cluster_id = None
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            cluster_id = r.compact_nullable_string()
            if r.pos != _end:
                raise ProtocolError("tagged field FetchSnapshotRequest.ClusterId does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchSnapshotRequest(replica_id=replica_id, max_bytes=max_bytes, topics=topics, cluster_id=cluster_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: FetchSnapshotRequest) -> None:
    w += _S_ii.pack(m.replica_id, m.max_bytes)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicSnapshot_v0(w, _e)
    _known = []
    if m.cluster_id is not None:
        _t = Writer()
        write_compact_nullable_string(_t, m.cluster_id)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def read_v1(r: Reader) -> FetchSnapshotRequest:
    replica_id, max_bytes = r.unpack(_S_ii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchSnapshotRequest.Topics is null")
    topics = [_read_TopicSnapshot_v1(r) for _ in range(_n)]
    cluster_id = None
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            cluster_id = r.compact_nullable_string()
            if r.pos != _end:
                raise ProtocolError("tagged field FetchSnapshotRequest.ClusterId does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchSnapshotRequest(replica_id=replica_id, max_bytes=max_bytes, topics=topics, cluster_id=cluster_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: FetchSnapshotRequest) -> None:
    w += _S_ii.pack(m.replica_id, m.max_bytes)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicSnapshot_v1(w, _e)
    _known = []
    if m.cluster_id is not None:
        _t = Writer()
        write_compact_nullable_string(_t, m.cluster_id)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> FetchSnapshotRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: FetchSnapshotRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> FetchSnapshotRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: FetchSnapshotRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
