# Generated from DescribeTopicPartitionsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_array_length,
    write_compact_nullable_string,
    write_compact_string,
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeTopicPartitionsResponse"
API_KEY = 75
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_hiii = _struct.Struct(">hiii")
_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class DescribeTopicPartitionsResponsePartition:
    error_code: int = 0
    partition_index: int = 0
    leader_id: int = 0
    leader_epoch: int = -1
    replica_nodes: list[int] = _field(default_factory=list)
    isr_nodes: list[int] = _field(default_factory=list)
    eligible_leader_replicas: list[int] | None = None
    last_known_elr: list[int] | None = None
    offline_replicas: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeTopicPartitionsResponseTopic:
    error_code: int = 0
    name: str | None = ""
    topic_id: uuid.UUID = ZERO_UUID
    is_internal: bool = False
    partitions: list[DescribeTopicPartitionsResponsePartition] = _field(default_factory=list)
    topic_authorized_operations: int = -2147483648
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Cursor:
    topic_name: str = ""
    partition_index: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeTopicPartitionsResponse:
    throttle_time_ms: int = 0
    topics: list[DescribeTopicPartitionsResponseTopic] = _field(default_factory=list)
    next_cursor: Cursor | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribeTopicPartitionsResponsePartition_v0(r: Reader) -> DescribeTopicPartitionsResponsePartition:
    error_code, partition_index, leader_id, leader_epoch = r.unpack(_S_hiii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTopicPartitionsResponse.ReplicaNodes is null")
    replica_nodes = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTopicPartitionsResponse.IsrNodes is null")
    isr_nodes = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    eligible_leader_replicas = None if _n < 0 else r.fixed_array("i", _n)
    _n = r.compact_array_length()
    last_known_elr = None if _n < 0 else r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTopicPartitionsResponse.OfflineReplicas is null")
    offline_replicas = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return DescribeTopicPartitionsResponsePartition(error_code=error_code, partition_index=partition_index, leader_id=leader_id, leader_epoch=leader_epoch, replica_nodes=replica_nodes, isr_nodes=isr_nodes, eligible_leader_replicas=eligible_leader_replicas, last_known_elr=last_known_elr, offline_replicas=offline_replicas, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeTopicPartitionsResponsePartition_v0(w: Writer, m: DescribeTopicPartitionsResponsePartition) -> None:
    w += _S_hiii.pack(m.error_code, m.partition_index, m.leader_id, m.leader_epoch)
    _v = m.replica_nodes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.isr_nodes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.eligible_leader_replicas
    write_compact_array_length(w, _v)
    if _v:
        write_fixed_array(w, "i", _v)
    _v = m.last_known_elr
    write_compact_array_length(w, _v)
    if _v:
        write_fixed_array(w, "i", _v)
    _v = m.offline_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribeTopicPartitionsResponseTopic_v0(r: Reader) -> DescribeTopicPartitionsResponseTopic:
    error_code = r.int16()
    name = r.compact_nullable_string()
    topic_id = r.uuid()
    is_internal = r.boolean()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTopicPartitionsResponse.Partitions is null")
    partitions = [_read_DescribeTopicPartitionsResponsePartition_v0(r) for _ in range(_n)]
    topic_authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeTopicPartitionsResponseTopic(error_code=error_code, name=name, topic_id=topic_id, is_internal=is_internal, partitions=partitions, topic_authorized_operations=topic_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeTopicPartitionsResponseTopic_v0(w: Writer, m: DescribeTopicPartitionsResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.name)
    w += m.topic_id.bytes
    w += _S_x.pack(m.is_internal)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeTopicPartitionsResponsePartition_v0(w, _e)
    w += _S_i.pack(m.topic_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Cursor_v0(r: Reader) -> Cursor:
    topic_name = r.compact_string()
    partition_index = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return Cursor(topic_name=topic_name, partition_index=partition_index, unknown_tagged_fields=unknown_tagged_fields)


def _write_Cursor_v0(w: Writer, m: Cursor) -> None:
    write_compact_string(w, m.topic_name)
    w += _S_i.pack(m.partition_index)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeTopicPartitionsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTopicPartitionsResponse.Topics is null")
    topics = [_read_DescribeTopicPartitionsResponseTopic_v0(r) for _ in range(_n)]
    next_cursor = None if r.int8() < 0 else _read_Cursor_v0(r)
    unknown_tagged_fields = r.tagged_fields()
    return DescribeTopicPartitionsResponse(throttle_time_ms=throttle_time_ms, topics=topics, next_cursor=next_cursor, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeTopicPartitionsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeTopicPartitionsResponseTopic_v0(w, _e)
    _v = m.next_cursor
    if _v is None:
        w.append(255)
    else:
        w.append(1)
        _write_Cursor_v0(w, _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DescribeTopicPartitionsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeTopicPartitionsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeTopicPartitionsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeTopicPartitionsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
