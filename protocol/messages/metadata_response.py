# Generated from MetadataResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "MetadataResponse"
API_KEY = 3
TYPE = "response"
VALID_VERSIONS = (0, 12)
FLEXIBLE_VERSIONS = (9, 12)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_hii = _struct.Struct(">hii")
_S_hiii = _struct.Struct(">hiii")
_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class MetadataResponseBroker:
    node_id: int = 0
    host: str = ""
    port: int = 0
    rack: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class MetadataResponsePartition:
    error_code: int = 0
    partition_index: int = 0
    leader_id: int = 0
    leader_epoch: int = -1
    replica_nodes: list[int] = _field(default_factory=list)
    isr_nodes: list[int] = _field(default_factory=list)
    offline_replicas: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class MetadataResponseTopic:
    error_code: int = 0
    name: str | None = ""
    topic_id: uuid.UUID = ZERO_UUID
    is_internal: bool = False
    partitions: list[MetadataResponsePartition] = _field(default_factory=list)
    topic_authorized_operations: int = -2147483648
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class MetadataResponse:
    throttle_time_ms: int = 0
    brokers: list[MetadataResponseBroker] = _field(default_factory=list)
    cluster_id: str | None = None
    controller_id: int = -1
    topics: list[MetadataResponseTopic] = _field(default_factory=list)
    cluster_authorized_operations: int = -2147483648
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_MetadataResponseBroker_v0(r: Reader) -> MetadataResponseBroker:
    node_id = r.int32()
    host = r.string()
    port = r.int32()
    return MetadataResponseBroker(node_id=node_id, host=host, port=port)


def _write_MetadataResponseBroker_v0(w: Writer, m: MetadataResponseBroker) -> None:
    w += _S_i.pack(m.node_id)
    write_string(w, m.host)
    w += _S_i.pack(m.port)


def _read_MetadataResponseBroker_v1(r: Reader) -> MetadataResponseBroker:
    node_id = r.int32()
    host = r.string()
    port = r.int32()
    rack = r.nullable_string()
    return MetadataResponseBroker(node_id=node_id, host=host, port=port, rack=rack)


def _write_MetadataResponseBroker_v1(w: Writer, m: MetadataResponseBroker) -> None:
    w += _S_i.pack(m.node_id)
    write_string(w, m.host)
    w += _S_i.pack(m.port)
    write_nullable_string(w, m.rack)


def _read_MetadataResponseBroker_v9(r: Reader) -> MetadataResponseBroker:
    node_id = r.int32()
    host = r.compact_string()
    port = r.int32()
    rack = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponseBroker(node_id=node_id, host=host, port=port, rack=rack, unknown_tagged_fields=unknown_tagged_fields)


def _write_MetadataResponseBroker_v9(w: Writer, m: MetadataResponseBroker) -> None:
    w += _S_i.pack(m.node_id)
    write_compact_string(w, m.host)
    w += _S_i.pack(m.port)
    write_compact_nullable_string(w, m.rack)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_MetadataResponsePartition_v0(r: Reader) -> MetadataResponsePartition:
    error_code, partition_index, leader_id = r.unpack(_S_hii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.ReplicaNodes is null")
    replica_nodes = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.IsrNodes is null")
    isr_nodes = r.fixed_array("i", _n)
    return MetadataResponsePartition(error_code=error_code, partition_index=partition_index, leader_id=leader_id, replica_nodes=replica_nodes, isr_nodes=isr_nodes)


def _write_MetadataResponsePartition_v0(w: Writer, m: MetadataResponsePartition) -> None:
    w += _S_hii.pack(m.error_code, m.partition_index, m.leader_id)
    _v = m.replica_nodes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.isr_nodes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_MetadataResponsePartition_v5(r: Reader) -> MetadataResponsePartition:
    error_code, partition_index, leader_id = r.unpack(_S_hii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.ReplicaNodes is null")
    replica_nodes = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.IsrNodes is null")
    isr_nodes = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.OfflineReplicas is null")
    offline_replicas = r.fixed_array("i", _n)
    return MetadataResponsePartition(error_code=error_code, partition_index=partition_index, leader_id=leader_id, replica_nodes=replica_nodes, isr_nodes=isr_nodes, offline_replicas=offline_replicas)


def _write_MetadataResponsePartition_v5(w: Writer, m: MetadataResponsePartition) -> None:
    w += _S_hii.pack(m.error_code, m.partition_index, m.leader_id)
    _v = m.replica_nodes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.isr_nodes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.offline_replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_MetadataResponsePartition_v7(r: Reader) -> MetadataResponsePartition:
    error_code, partition_index, leader_id, leader_epoch = r.unpack(_S_hiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.ReplicaNodes is null")
    replica_nodes = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.IsrNodes is null")
    isr_nodes = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.OfflineReplicas is null")
    offline_replicas = r.fixed_array("i", _n)
    return MetadataResponsePartition(error_code=error_code, partition_index=partition_index, leader_id=leader_id, leader_epoch=leader_epoch, replica_nodes=replica_nodes, isr_nodes=isr_nodes, offline_replicas=offline_replicas)


def _write_MetadataResponsePartition_v7(w: Writer, m: MetadataResponsePartition) -> None:
    w += _S_hiii.pack(m.error_code, m.partition_index, m.leader_id, m.leader_epoch)
    _v = m.replica_nodes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.isr_nodes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.offline_replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_MetadataResponsePartition_v9(r: Reader) -> MetadataResponsePartition:
    error_code, partition_index, leader_id, leader_epoch = r.unpack(_S_hiii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.ReplicaNodes is null")
    replica_nodes = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.IsrNodes is null")
    isr_nodes = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.OfflineReplicas is null")
    offline_replicas = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponsePartition(error_code=error_code, partition_index=partition_index, leader_id=leader_id, leader_epoch=leader_epoch, replica_nodes=replica_nodes, isr_nodes=isr_nodes, offline_replicas=offline_replicas, unknown_tagged_fields=unknown_tagged_fields)


def _write_MetadataResponsePartition_v9(w: Writer, m: MetadataResponsePartition) -> None:
    w += _S_hiii.pack(m.error_code, m.partition_index, m.leader_id, m.leader_epoch)
    _v = m.replica_nodes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.isr_nodes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.offline_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_MetadataResponseTopic_v0(r: Reader) -> MetadataResponseTopic:
    error_code = r.int16()
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Partitions is null")
    partitions = [_read_MetadataResponsePartition_v0(r) for _ in range(_n)]
    return MetadataResponseTopic(error_code=error_code, name=name, partitions=partitions)


def _write_MetadataResponseTopic_v0(w: Writer, m: MetadataResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponsePartition_v0(w, _e)


def _read_MetadataResponseTopic_v1(r: Reader) -> MetadataResponseTopic:
    error_code = r.int16()
    name = r.string()
    is_internal = r.boolean()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Partitions is null")
    partitions = [_read_MetadataResponsePartition_v0(r) for _ in range(_n)]
    return MetadataResponseTopic(error_code=error_code, name=name, is_internal=is_internal, partitions=partitions)


def _write_MetadataResponseTopic_v1(w: Writer, m: MetadataResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.name)
    w += _S_x.pack(m.is_internal)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponsePartition_v0(w, _e)


def _read_MetadataResponseTopic_v5(r: Reader) -> MetadataResponseTopic:
    error_code = r.int16()
    name = r.string()
    is_internal = r.boolean()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Partitions is null")
    partitions = [_read_MetadataResponsePartition_v5(r) for _ in range(_n)]
    return MetadataResponseTopic(error_code=error_code, name=name, is_internal=is_internal, partitions=partitions)


def _write_MetadataResponseTopic_v5(w: Writer, m: MetadataResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.name)
    w += _S_x.pack(m.is_internal)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponsePartition_v5(w, _e)


def _read_MetadataResponseTopic_v7(r: Reader) -> MetadataResponseTopic:
    error_code = r.int16()
    name = r.string()
    is_internal = r.boolean()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Partitions is null")
    partitions = [_read_MetadataResponsePartition_v7(r) for _ in range(_n)]
    return MetadataResponseTopic(error_code=error_code, name=name, is_internal=is_internal, partitions=partitions)


def _write_MetadataResponseTopic_v7(w: Writer, m: MetadataResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.name)
    w += _S_x.pack(m.is_internal)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponsePartition_v7(w, _e)


def _read_MetadataResponseTopic_v8(r: Reader) -> MetadataResponseTopic:
    error_code = r.int16()
    name = r.string()
    is_internal = r.boolean()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Partitions is null")
    partitions = [_read_MetadataResponsePartition_v7(r) for _ in range(_n)]
    topic_authorized_operations = r.int32()
    return MetadataResponseTopic(error_code=error_code, name=name, is_internal=is_internal, partitions=partitions, topic_authorized_operations=topic_authorized_operations)


def _write_MetadataResponseTopic_v8(w: Writer, m: MetadataResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.name)
    w += _S_x.pack(m.is_internal)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponsePartition_v7(w, _e)
    w += _S_i.pack(m.topic_authorized_operations)


def _read_MetadataResponseTopic_v9(r: Reader) -> MetadataResponseTopic:
    error_code = r.int16()
    name = r.compact_string()
    is_internal = r.boolean()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Partitions is null")
    partitions = [_read_MetadataResponsePartition_v9(r) for _ in range(_n)]
    topic_authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponseTopic(error_code=error_code, name=name, is_internal=is_internal, partitions=partitions, topic_authorized_operations=topic_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def _write_MetadataResponseTopic_v9(w: Writer, m: MetadataResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_string(w, m.name)
    w += _S_x.pack(m.is_internal)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponsePartition_v9(w, _e)
    w += _S_i.pack(m.topic_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_MetadataResponseTopic_v10(r: Reader) -> MetadataResponseTopic:
    error_code = r.int16()
    name = r.compact_string()
    topic_id = r.uuid()
    is_internal = r.boolean()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Partitions is null")
    partitions = [_read_MetadataResponsePartition_v9(r) for _ in range(_n)]
    topic_authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponseTopic(error_code=error_code, name=name, topic_id=topic_id, is_internal=is_internal, partitions=partitions, topic_authorized_operations=topic_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def _write_MetadataResponseTopic_v10(w: Writer, m: MetadataResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_string(w, m.name)
    w += m.topic_id.bytes
    w += _S_x.pack(m.is_internal)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponsePartition_v9(w, _e)
    w += _S_i.pack(m.topic_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_MetadataResponseTopic_v12(r: Reader) -> MetadataResponseTopic:
    error_code = r.int16()
    name = r.compact_nullable_string()
    topic_id = r.uuid()
    is_internal = r.boolean()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Partitions is null")
    partitions = [_read_MetadataResponsePartition_v9(r) for _ in range(_n)]
    topic_authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponseTopic(error_code=error_code, name=name, topic_id=topic_id, is_internal=is_internal, partitions=partitions, topic_authorized_operations=topic_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def _write_MetadataResponseTopic_v12(w: Writer, m: MetadataResponseTopic) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.name)
    w += m.topic_id.bytes
    w += _S_x.pack(m.is_internal)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponsePartition_v9(w, _e)
    w += _S_i.pack(m.topic_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> MetadataResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v0(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v0(r) for _ in range(_n)]
    return MetadataResponse(brokers=brokers, topics=topics)


def write_v0(w: Writer, m: MetadataResponse) -> None:
    _v = m.brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseBroker_v0(w, _e)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseTopic_v0(w, _e)


def read_v1(r: Reader) -> MetadataResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v1(r) for _ in range(_n)]
    controller_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v1(r) for _ in range(_n)]
    return MetadataResponse(brokers=brokers, controller_id=controller_id, topics=topics)


def write_v1(w: Writer, m: MetadataResponse) -> None:
    _v = m.brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseBroker_v1(w, _e)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseTopic_v1(w, _e)


def read_v2(r: Reader) -> MetadataResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v1(r) for _ in range(_n)]
    cluster_id = r.nullable_string()
    controller_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v1(r) for _ in range(_n)]
    return MetadataResponse(brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics)


def write_v2(w: Writer, m: MetadataResponse) -> None:
    _v = m.brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseBroker_v1(w, _e)
    write_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseTopic_v1(w, _e)


def read_v3(r: Reader) -> MetadataResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v1(r) for _ in range(_n)]
    cluster_id = r.nullable_string()
    controller_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v1(r) for _ in range(_n)]
    return MetadataResponse(throttle_time_ms=throttle_time_ms, brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics)


def write_v3(w: Writer, m: MetadataResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseBroker_v1(w, _e)
    write_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseTopic_v1(w, _e)


def read_v5(r: Reader) -> MetadataResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v1(r) for _ in range(_n)]
    cluster_id = r.nullable_string()
    controller_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v5(r) for _ in range(_n)]
    return MetadataResponse(throttle_time_ms=throttle_time_ms, brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics)


def write_v5(w: Writer, m: MetadataResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseBroker_v1(w, _e)
    write_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseTopic_v5(w, _e)


def read_v7(r: Reader) -> MetadataResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v1(r) for _ in range(_n)]
    cluster_id = r.nullable_string()
    controller_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v7(r) for _ in range(_n)]
    return MetadataResponse(throttle_time_ms=throttle_time_ms, brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics)


def write_v7(w: Writer, m: MetadataResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseBroker_v1(w, _e)
    write_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseTopic_v7(w, _e)


def read_v8(r: Reader) -> MetadataResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v1(r) for _ in range(_n)]
    cluster_id = r.nullable_string()
    controller_id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v8(r) for _ in range(_n)]
    cluster_authorized_operations = r.int32()
    return MetadataResponse(throttle_time_ms=throttle_time_ms, brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics, cluster_authorized_operations=cluster_authorized_operations)


def write_v8(w: Writer, m: MetadataResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseBroker_v1(w, _e)
    write_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataResponseTopic_v8(w, _e)
    w += _S_i.pack(m.cluster_authorized_operations)


def read_v9(r: Reader) -> MetadataResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v9(r) for _ in range(_n)]
    cluster_id = r.compact_nullable_string()
    controller_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v9(r) for _ in range(_n)]
    cluster_authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponse(throttle_time_ms=throttle_time_ms, brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics, cluster_authorized_operations=cluster_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v9(w: Writer, m: MetadataResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponseBroker_v9(w, _e)
    write_compact_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponseTopic_v9(w, _e)
    w += _S_i.pack(m.cluster_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v10(r: Reader) -> MetadataResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v9(r) for _ in range(_n)]
    cluster_id = r.compact_nullable_string()
    controller_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v10(r) for _ in range(_n)]
    cluster_authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponse(throttle_time_ms=throttle_time_ms, brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics, cluster_authorized_operations=cluster_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v10(w: Writer, m: MetadataResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponseBroker_v9(w, _e)
    write_compact_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponseTopic_v10(w, _e)
    w += _S_i.pack(m.cluster_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v11(r: Reader) -> MetadataResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v9(r) for _ in range(_n)]
    cluster_id = r.compact_nullable_string()
    controller_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v10(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponse(throttle_time_ms=throttle_time_ms, brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v11(w: Writer, m: MetadataResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponseBroker_v9(w, _e)
    write_compact_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponseTopic_v10(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v12(r: Reader) -> MetadataResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Brokers is null")
    brokers = [_read_MetadataResponseBroker_v9(r) for _ in range(_n)]
    cluster_id = r.compact_nullable_string()
    controller_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataResponse.Topics is null")
    topics = [_read_MetadataResponseTopic_v12(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return MetadataResponse(throttle_time_ms=throttle_time_ms, brokers=brokers, cluster_id=cluster_id, controller_id=controller_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v12(w: Writer, m: MetadataResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponseBroker_v9(w, _e)
    write_compact_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_MetadataResponseTopic_v12(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v4 = read_v3
write_v4 = write_v3
read_v6 = read_v5
write_v6 = write_v5

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9, 10: read_v10, 11: read_v11, 12: read_v12}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9, 10: write_v10, 11: write_v11, 12: write_v12}


def read(r: Reader, version: int) -> MetadataResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: MetadataResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> MetadataResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: MetadataResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
