# Generated from FetchSnapshotResponse.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    RecordsData,
    Writer,
    decode_message,
    encode_message,
    write_compact_records,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "FetchSnapshotResponse"
API_KEY = 59
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_H = _struct.Struct(">H")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_ii = _struct.Struct(">ii")
_S_qi = _struct.Struct(">qi")
_S_qq = _struct.Struct(">qq")


@dataclass(slots=True)
class SnapshotId:
    end_offset: int = 0
    epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderIdAndEpoch:
    leader_id: int = 0
    leader_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionSnapshot:
    index: int = 0
    error_code: int = 0
    snapshot_id: SnapshotId = _field(default_factory=SnapshotId)
    current_leader: LeaderIdAndEpoch = _field(default_factory=LeaderIdAndEpoch)
    size: int = 0
    position: int = 0
    unaligned_records: RecordsData | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicSnapshot:
    name: str = ""
    partitions: list[PartitionSnapshot] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class NodeEndpoint:
    node_id: int = 0
    host: str = ""
    port: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchSnapshotResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    topics: list[TopicSnapshot] = _field(default_factory=list)
    node_endpoints: list[NodeEndpoint] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_SnapshotId_v0(r: Reader) -> SnapshotId:
    end_offset, epoch = r.unpack(_S_qi)
    unknown_tagged_fields = r.tagged_fields()
    return SnapshotId(end_offset=end_offset, epoch=epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_SnapshotId_v0(w: Writer, m: SnapshotId) -> None:
    w += _S_qi.pack(m.end_offset, m.epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderIdAndEpoch_v0(r: Reader) -> LeaderIdAndEpoch:
    leader_id, leader_epoch = r.unpack(_S_ii)
    unknown_tagged_fields = r.tagged_fields()
    return LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderIdAndEpoch_v0(w: Writer, m: LeaderIdAndEpoch) -> None:
    w += _S_ii.pack(m.leader_id, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionSnapshot_v0(r: Reader) -> PartitionSnapshot:
    index, error_code = r.unpack(_S_ih)
    snapshot_id = _read_SnapshotId_v0(r)
    size, position = r.unpack(_S_qq)
    unaligned_records = r.compact_records()
    if unaligned_records is None:
        raise ProtocolError("non-nullable field FetchSnapshotResponse.UnalignedRecords is null")
    current_leader = LeaderIdAndEpoch()
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            current_leader = _read_LeaderIdAndEpoch_v0(r)
            if r.pos != _end:
                raise ProtocolError("tagged field FetchSnapshotResponse.CurrentLeader does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return PartitionSnapshot(index=index, error_code=error_code, snapshot_id=snapshot_id, size=size, position=position, unaligned_records=unaligned_records, current_leader=current_leader, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionSnapshot_v0(w: Writer, m: PartitionSnapshot) -> None:
    w += _S_ih.pack(m.index, m.error_code)
    _write_SnapshotId_v0(w, m.snapshot_id)
    w += _S_qq.pack(m.size, m.position)
    write_compact_records(w, m.unaligned_records)
    _known = []
    if m.current_leader != LeaderIdAndEpoch():
        _t = Writer()
        _write_LeaderIdAndEpoch_v0(_t, m.current_leader)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def _read_TopicSnapshot_v0(r: Reader) -> TopicSnapshot:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchSnapshotResponse.Partitions is null")
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


def _read_NodeEndpoint_v1(r: Reader) -> NodeEndpoint:
    node_id = r.int32()
    host = r.compact_string()
    port = r.uint16()
    unknown_tagged_fields = r.tagged_fields()
    return NodeEndpoint(node_id=node_id, host=host, port=port, unknown_tagged_fields=unknown_tagged_fields)


def _write_NodeEndpoint_v1(w: Writer, m: NodeEndpoint) -> None:
    w += _S_i.pack(m.node_id)
    write_compact_string(w, m.host)
    w += _S_H.pack(m.port)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> FetchSnapshotResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchSnapshotResponse.Topics is null")
    topics = [_read_TopicSnapshot_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchSnapshotResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: FetchSnapshotResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicSnapshot_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> FetchSnapshotResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchSnapshotResponse.Topics is null")
    topics = [_read_TopicSnapshot_v0(r) for _ in range(_n)]
    node_endpoints = []
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            _n = r.compact_array_length()
            if _n < 0:
                raise ProtocolError("non-nullable array FetchSnapshotResponse.NodeEndpoints is null")
            node_endpoints = [_read_NodeEndpoint_v1(r) for _ in range(_n)]
            if r.pos != _end:
                raise ProtocolError("tagged field FetchSnapshotResponse.NodeEndpoints does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchSnapshotResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, topics=topics, node_endpoints=node_endpoints, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: FetchSnapshotResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicSnapshot_v0(w, _e)
    _known = []
    if m.node_endpoints != []:
        _t = Writer()
        _v = m.node_endpoints
        write_uvarint(_t, len(_v) + 1)
        for _e in _v:
            _write_NodeEndpoint_v1(_t, _e)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> FetchSnapshotResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: FetchSnapshotResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> FetchSnapshotResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: FetchSnapshotResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
