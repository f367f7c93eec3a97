# Generated from BeginQuorumEpochResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "BeginQuorumEpochResponse"
API_KEY = 53
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_H = _struct.Struct(">H")
_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ihii = _struct.Struct(">ihii")


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    error_code: int = 0
    leader_id: int = 0
    leader_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicData:
    topic_name: str = ""
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class NodeEndpoint:
    node_id: int = 0
    host: str = ""
    port: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class BeginQuorumEpochResponse:
    error_code: int = 0
    topics: list[TopicData] = _field(default_factory=list)
    node_endpoints: list[NodeEndpoint] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index, error_code, leader_id, leader_epoch = r.unpack(_S_ihii)
    return PartitionData(partition_index=partition_index, error_code=error_code, leader_id=leader_id, leader_epoch=leader_epoch)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_ihii.pack(m.partition_index, m.error_code, m.leader_id, m.leader_epoch)


def _read_PartitionData_v1(r: Reader) -> PartitionData:
    partition_index, error_code, leader_id, leader_epoch = r.unpack(_S_ihii)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, error_code=error_code, leader_id=leader_id, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v1(w: Writer, m: PartitionData) -> None:
    w += _S_ihii.pack(m.partition_index, m.error_code, m.leader_id, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v0(r: Reader) -> TopicData:
    topic_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BeginQuorumEpochResponse.Partitions is null")
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
        raise ProtocolError("non-nullable array BeginQuorumEpochResponse.Partitions is null")
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


def read_v0(r: Reader) -> BeginQuorumEpochResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BeginQuorumEpochResponse.Topics is null")
    topics = [_read_TopicData_v0(r) for _ in range(_n)]
    return BeginQuorumEpochResponse(error_code=error_code, topics=topics)


def write_v0(w: Writer, m: BeginQuorumEpochResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicData_v0(w, _e)


def read_v1(r: Reader) -> BeginQuorumEpochResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BeginQuorumEpochResponse.Topics is null")
    topics = [_read_TopicData_v1(r) for _ in range(_n)]
    node_endpoints = []
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            _n = r.compact_array_length()
            if _n < 0:
                raise ProtocolError("non-nullable array BeginQuorumEpochResponse.NodeEndpoints is null")
            node_endpoints = [_read_NodeEndpoint_v1(r) for _ in range(_n)]
            if r.pos != _end:
                raise ProtocolError("tagged field BeginQuorumEpochResponse.NodeEndpoints does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return BeginQuorumEpochResponse(error_code=error_code, topics=topics, node_endpoints=node_endpoints, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: BeginQuorumEpochResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v1(w, _e)
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


def read(r: Reader, version: int) -> BeginQuorumEpochResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: BeginQuorumEpochResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> BeginQuorumEpochResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: BeginQuorumEpochResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
