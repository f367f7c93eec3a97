# Generated from DescribeQuorumResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DescribeQuorumResponse"
API_KEY = 55
TYPE = "response"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (0, 2)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_H = _struct.Struct(">H")
_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_ihiiq = _struct.Struct(">ihiiq")
_S_iiq = _struct.Struct(">iiq")
_S_iq = _struct.Struct(">iq")
_S_iqqq = _struct.Struct(">iqqq")
_S_qqq = _struct.Struct(">qqq")


@dataclass(slots=True)
class ReplicaState:
    replica_id: int = 0
    replica_directory_id: uuid.UUID = ZERO_UUID
    log_end_offset: int = 0
    last_fetch_timestamp: int = -1
    last_caught_up_timestamp: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    error_code: int = 0
    error_message: str | None = ""
    leader_id: int = 0
    leader_epoch: int = 0
    high_watermark: int = 0
    current_voters: list[ReplicaState] = _field(default_factory=list)
    observers: list[ReplicaState] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicData:
    topic_name: str = ""
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Listener:
    name: str = ""
    host: str = ""
    port: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Node:
    node_id: int = 0
    listeners: list[Listener] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeQuorumResponse:
    error_code: int = 0
    error_message: str | None = ""
    topics: list[TopicData] = _field(default_factory=list)
    nodes: list[Node] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ReplicaState_v0(r: Reader) -> ReplicaState:
    replica_id, log_end_offset = r.unpack(_S_iq)
    unknown_tagged_fields = r.tagged_fields()
    return ReplicaState(replica_id=replica_id, log_end_offset=log_end_offset, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReplicaState_v0(w: Writer, m: ReplicaState) -> None:
    w += _S_iq.pack(m.replica_id, m.log_end_offset)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ReplicaState_v1(r: Reader) -> ReplicaState:
    replica_id, log_end_offset, last_fetch_timestamp, last_caught_up_timestamp = r.unpack(_S_iqqq)
    unknown_tagged_fields = r.tagged_fields()
    return ReplicaState(replica_id=replica_id, log_end_offset=log_end_offset, last_fetch_timestamp=last_fetch_timestamp, last_caught_up_timestamp=last_caught_up_timestamp, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReplicaState_v1(w: Writer, m: ReplicaState) -> None:
    w += _S_iqqq.pack(m.replica_id, m.log_end_offset, m.last_fetch_timestamp, m.last_caught_up_timestamp)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ReplicaState_v2(r: Reader) -> ReplicaState:
    replica_id = r.int32()
    replica_directory_id = r.uuid()
    log_end_offset, last_fetch_timestamp, last_caught_up_timestamp = r.unpack(_S_qqq)
    unknown_tagged_fields = r.tagged_fields()
    return ReplicaState(replica_id=replica_id, replica_directory_id=replica_directory_id, log_end_offset=log_end_offset, last_fetch_timestamp=last_fetch_timestamp, last_caught_up_timestamp=last_caught_up_timestamp, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReplicaState_v2(w: Writer, m: ReplicaState) -> None:
    w += _S_i.pack(m.replica_id)
    w += m.replica_directory_id.bytes
    w += _S_qqq.pack(m.log_end_offset, m.last_fetch_timestamp, m.last_caught_up_timestamp)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index, error_code, leader_id, leader_epoch, high_watermark = r.unpack(_S_ihiiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.CurrentVoters is null")
    current_voters = [_read_ReplicaState_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Observers is null")
    observers = [_read_ReplicaState_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, error_code=error_code, leader_id=leader_id, leader_epoch=leader_epoch, high_watermark=high_watermark, current_voters=current_voters, observers=observers, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_ihiiq.pack(m.partition_index, m.error_code, m.leader_id, m.leader_epoch, m.high_watermark)
    _v = m.current_voters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReplicaState_v0(w, _e)
    _v = m.observers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReplicaState_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v1(r: Reader) -> PartitionData:
    partition_index, error_code, leader_id, leader_epoch, high_watermark = r.unpack(_S_ihiiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.CurrentVoters is null")
    current_voters = [_read_ReplicaState_v1(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Observers is null")
    observers = [_read_ReplicaState_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, error_code=error_code, leader_id=leader_id, leader_epoch=leader_epoch, high_watermark=high_watermark, current_voters=current_voters, observers=observers, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v1(w: Writer, m: PartitionData) -> None:
    w += _S_ihiiq.pack(m.partition_index, m.error_code, m.leader_id, m.leader_epoch, m.high_watermark)
    _v = m.current_voters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReplicaState_v1(w, _e)
    _v = m.observers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReplicaState_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v2(r: Reader) -> PartitionData:
    partition_index, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    leader_id, leader_epoch, high_watermark = r.unpack(_S_iiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.CurrentVoters is null")
    current_voters = [_read_ReplicaState_v2(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Observers is null")
    observers = [_read_ReplicaState_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, error_code=error_code, error_message=error_message, leader_id=leader_id, leader_epoch=leader_epoch, high_watermark=high_watermark, current_voters=current_voters, observers=observers, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v2(w: Writer, m: PartitionData) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_iiq.pack(m.leader_id, m.leader_epoch, m.high_watermark)
    _v = m.current_voters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReplicaState_v2(w, _e)
    _v = m.observers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReplicaState_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v0(r: Reader) -> TopicData:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Partitions is null")
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
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Partitions is null")
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


def _read_TopicData_v2(r: Reader) -> TopicData:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Partitions is null")
    partitions = [_read_PartitionData_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicData(topic_name=topic_name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicData_v2(w: Writer, m: TopicData) -> None:
    write_compact_string(w, m.topic_name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Listener_v2(r: Reader) -> Listener:
    name = r.compact_string()
    host = r.compact_string()
    port = r.uint16()
    unknown_tagged_fields = r.tagged_fields()
    return Listener(name=name, host=host, port=port, unknown_tagged_fields=unknown_tagged_fields)


def _write_Listener_v2(w: Writer, m: Listener) -> None:
    write_compact_string(w, m.name)
    write_compact_string(w, m.host)
    w += _S_H.pack(m.port)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Node_v2(r: Reader) -> Node:
    node_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Listeners is null")
    listeners = [_read_Listener_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return Node(node_id=node_id, listeners=listeners, unknown_tagged_fields=unknown_tagged_fields)


def _write_Node_v2(w: Writer, m: Node) -> None:
    w += _S_i.pack(m.node_id)
    _v = m.listeners
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Listener_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeQuorumResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Topics is null")
    topics = [_read_TopicData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeQuorumResponse(error_code=error_code, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeQuorumResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> DescribeQuorumResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Topics is null")
    topics = [_read_TopicData_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeQuorumResponse(error_code=error_code, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: DescribeQuorumResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v2(r: Reader) -> DescribeQuorumResponse:
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Topics is null")
    topics = [_read_TopicData_v2(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeQuorumResponse.Nodes is null")
    nodes = [_read_Node_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeQuorumResponse(error_code=error_code, error_message=error_message, topics=topics, nodes=nodes, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DescribeQuorumResponse) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v2(w, _e)
    _v = m.nodes
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Node_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> DescribeQuorumResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeQuorumResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeQuorumResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeQuorumResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
