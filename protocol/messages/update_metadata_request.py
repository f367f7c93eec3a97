# Generated from UpdateMetadataRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "UpdateMetadataRequest"
API_KEY = 6
TYPE = "request"
VALID_VERSIONS = (0, 8)
FLEXIBLE_VERSIONS = (6, 8)
LISTENERS = ("zkBroker",)
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ii = _struct.Struct(">ii")
_S_iiii = _struct.Struct(">iiii")
_S_iiq = _struct.Struct(">iiq")
_S_ixiq = _struct.Struct(">i?iq")


@dataclass(slots=True)
class UpdateMetadataPartitionState:
    topic_name: str = ""
    partition_index: int = 0
    controller_epoch: int = 0
    leader: int = 0
    leader_epoch: int = 0
    isr: list[int] = _field(default_factory=list)
    zk_version: int = 0
    replicas: list[int] = _field(default_factory=list)
    offline_replicas: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class UpdateMetadataTopicState:
    topic_name: str = ""
    topic_id: uuid.UUID = ZERO_UUID
    partition_states: list[UpdateMetadataPartitionState] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class UpdateMetadataEndpoint:
    port: int = 0
    host: str = ""
    listener: str = ""
    security_protocol: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class UpdateMetadataBroker:
    id: int = 0
    v0_host: str = ""
    v0_port: int = 0
    endpoints: list[UpdateMetadataEndpoint] = _field(default_factory=list)
    rack: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class UpdateMetadataRequest:
    controller_id: int = 0
    is_kraft_controller: bool = False
    type: int = 0
    controller_epoch: int = 0
    broker_epoch: int = -1
    ungrouped_partition_states: list[UpdateMetadataPartitionState] = _field(default_factory=list)
    topic_states: list[UpdateMetadataTopicState] = _field(default_factory=list)
    live_brokers: list[UpdateMetadataBroker] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_UpdateMetadataPartitionState_v0(r: Reader) -> UpdateMetadataPartitionState:
    topic_name = r.string()
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    zk_version = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    return UpdateMetadataPartitionState(topic_name=topic_name, partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, zk_version=zk_version, replicas=replicas)


def _write_UpdateMetadataPartitionState_v0(w: Writer, m: UpdateMetadataPartitionState) -> None:
    write_string(w, m.topic_name)
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.zk_version)
    _v = m.replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_UpdateMetadataPartitionState_v4(r: Reader) -> UpdateMetadataPartitionState:
    topic_name = r.string()
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    zk_version = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.OfflineReplicas is null")
    offline_replicas = r.fixed_array("i", _n)
    return UpdateMetadataPartitionState(topic_name=topic_name, partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, zk_version=zk_version, replicas=replicas, offline_replicas=offline_replicas)


def _write_UpdateMetadataPartitionState_v4(w: Writer, m: UpdateMetadataPartitionState) -> None:
    write_string(w, m.topic_name)
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.zk_version)
    _v = m.replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.offline_replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_UpdateMetadataPartitionState_v5(r: Reader) -> UpdateMetadataPartitionState:
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    zk_version = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.OfflineReplicas is null")
    offline_replicas = r.fixed_array("i", _n)
    return UpdateMetadataPartitionState(partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, zk_version=zk_version, replicas=replicas, offline_replicas=offline_replicas)


def _write_UpdateMetadataPartitionState_v5(w: Writer, m: UpdateMetadataPartitionState) -> None:
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.zk_version)
    _v = m.replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.offline_replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_UpdateMetadataPartitionState_v6(r: Reader) -> UpdateMetadataPartitionState:
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    zk_version = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.OfflineReplicas is null")
    offline_replicas = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return UpdateMetadataPartitionState(partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, zk_version=zk_version, replicas=replicas, offline_replicas=offline_replicas, unknown_tagged_fields=unknown_tagged_fields)


def _write_UpdateMetadataPartitionState_v6(w: Writer, m: UpdateMetadataPartitionState) -> None:
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.zk_version)
    _v = m.replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.offline_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_UpdateMetadataTopicState_v5(r: Reader) -> UpdateMetadataTopicState:
    topic_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.PartitionStates is null")
    partition_states = [_read_UpdateMetadataPartitionState_v5(r) for _ in range(_n)]
    return UpdateMetadataTopicState(topic_name=topic_name, partition_states=partition_states)


def _write_UpdateMetadataTopicState_v5(w: Writer, m: UpdateMetadataTopicState) -> None:
    write_string(w, m.topic_name)
    _v = m.partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataPartitionState_v5(w, _e)


def _read_UpdateMetadataTopicState_v6(r: Reader) -> UpdateMetadataTopicState:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.PartitionStates is null")
    partition_states = [_read_UpdateMetadataPartitionState_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return UpdateMetadataTopicState(topic_name=topic_name, partition_states=partition_states, unknown_tagged_fields=unknown_tagged_fields)


def _write_UpdateMetadataTopicState_v6(w: Writer, m: UpdateMetadataTopicState) -> None:
    write_compact_string(w, m.topic_name)
    _v = m.partition_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataPartitionState_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_UpdateMetadataTopicState_v7(r: Reader) -> UpdateMetadataTopicState:
    topic_name = r.compact_string()
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.PartitionStates is null")
    partition_states = [_read_UpdateMetadataPartitionState_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return UpdateMetadataTopicState(topic_name=topic_name, topic_id=topic_id, partition_states=partition_states, unknown_tagged_fields=unknown_tagged_fields)


def _write_UpdateMetadataTopicState_v7(w: Writer, m: UpdateMetadataTopicState) -> None:
    write_compact_string(w, m.topic_name)
    w += m.topic_id.bytes
    _v = m.partition_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataPartitionState_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_UpdateMetadataEndpoint_v1(r: Reader) -> UpdateMetadataEndpoint:
    port = r.int32()
    host = r.string()
    security_protocol = r.int16()
    return UpdateMetadataEndpoint(port=port, host=host, security_protocol=security_protocol)


def _write_UpdateMetadataEndpoint_v1(w: Writer, m: UpdateMetadataEndpoint) -> None:
    w += _S_i.pack(m.port)
    write_string(w, m.host)
    w += _S_h.pack(m.security_protocol)


def _read_UpdateMetadataEndpoint_v3(r: Reader) -> UpdateMetadataEndpoint:
    port = r.int32()
    host = r.string()
    listener = r.string()
    security_protocol = r.int16()
    return UpdateMetadataEndpoint(port=port, host=host, listener=listener, security_protocol=security_protocol)


def _write_UpdateMetadataEndpoint_v3(w: Writer, m: UpdateMetadataEndpoint) -> None:
    w += _S_i.pack(m.port)
    write_string(w, m.host)
    write_string(w, m.listener)
    w += _S_h.pack(m.security_protocol)


def _read_UpdateMetadataEndpoint_v6(r: Reader) -> UpdateMetadataEndpoint:
    port = r.int32()
    host = r.compact_string()
    listener = r.compact_string()
    security_protocol = r.int16()
    unknown_tagged_fields = r.tagged_fields()
    return UpdateMetadataEndpoint(port=port, host=host, listener=listener, security_protocol=security_protocol, unknown_tagged_fields=unknown_tagged_fields)


def _write_UpdateMetadataEndpoint_v6(w: Writer, m: UpdateMetadataEndpoint) -> None:
    w += _S_i.pack(m.port)
    write_compact_string(w, m.host)
    write_compact_string(w, m.listener)
    w += _S_h.pack(m.security_protocol)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_UpdateMetadataBroker_v0(r: Reader) -> UpdateMetadataBroker:
    id = r.int32()
    v0_host = r.string()
    v0_port = r.int32()
    return UpdateMetadataBroker(id=id, v0_host=v0_host, v0_port=v0_port)


def _write_UpdateMetadataBroker_v0(w: Writer, m: UpdateMetadataBroker) -> None:
    w += _S_i.pack(m.id)
    write_string(w, m.v0_host)
    w += _S_i.pack(m.v0_port)


def _read_UpdateMetadataBroker_v1(r: Reader) -> UpdateMetadataBroker:
    id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Endpoints is null")
    endpoints = [_read_UpdateMetadataEndpoint_v1(r) for _ in range(_n)]
    return UpdateMetadataBroker(id=id, endpoints=endpoints)


def _write_UpdateMetadataBroker_v1(w: Writer, m: UpdateMetadataBroker) -> None:
    w += _S_i.pack(m.id)
    _v = m.endpoints
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataEndpoint_v1(w, _e)


def _read_UpdateMetadataBroker_v2(r: Reader) -> UpdateMetadataBroker:
    id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Endpoints is null")
    endpoints = [_read_UpdateMetadataEndpoint_v1(r) for _ in range(_n)]
    rack = r.nullable_string()
    return UpdateMetadataBroker(id=id, endpoints=endpoints, rack=rack)


def _write_UpdateMetadataBroker_v2(w: Writer, m: UpdateMetadataBroker) -> None:
    w += _S_i.pack(m.id)
    _v = m.endpoints
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataEndpoint_v1(w, _e)
    write_nullable_string(w, m.rack)


def _read_UpdateMetadataBroker_v3(r: Reader) -> UpdateMetadataBroker:
    id = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Endpoints is null")
    endpoints = [_read_UpdateMetadataEndpoint_v3(r) for _ in range(_n)]
    rack = r.nullable_string()
    return UpdateMetadataBroker(id=id, endpoints=endpoints, rack=rack)


def _write_UpdateMetadataBroker_v3(w: Writer, m: UpdateMetadataBroker) -> None:
    w += _S_i.pack(m.id)
    _v = m.endpoints
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataEndpoint_v3(w, _e)
    write_nullable_string(w, m.rack)


def _read_UpdateMetadataBroker_v6(r: Reader) -> UpdateMetadataBroker:
    id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.Endpoints is null")
    endpoints = [_read_UpdateMetadataEndpoint_v6(r) for _ in range(_n)]
    rack = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return UpdateMetadataBroker(id=id, endpoints=endpoints, rack=rack, unknown_tagged_fields=unknown_tagged_fields)


def _write_UpdateMetadataBroker_v6(w: Writer, m: UpdateMetadataBroker) -> None:
    w += _S_i.pack(m.id)
    _v = m.endpoints
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataEndpoint_v6(w, _e)
    write_compact_nullable_string(w, m.rack)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> UpdateMetadataRequest:
    controller_id, controller_epoch = r.unpack(_S_ii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.UngroupedPartitionStates is null")
    ungrouped_partition_states = [_read_UpdateMetadataPartitionState_v0(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v0(r) for _ in range(_n)]
    return UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch, ungrouped_partition_states=ungrouped_partition_states, live_brokers=live_brokers)


def write_v0(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_ii.pack(m.controller_id, m.controller_epoch)
    _v = m.ungrouped_partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataPartitionState_v0(w, _e)
    _v = m.live_brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataBroker_v0(w, _e)


def read_v1(r: Reader) -> UpdateMetadataRequest:
    controller_id, controller_epoch = r.unpack(_S_ii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.UngroupedPartitionStates is null")
    ungrouped_partition_states = [_read_UpdateMetadataPartitionState_v0(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v1(r) for _ in range(_n)]
    return UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch, ungrouped_partition_states=ungrouped_partition_states, live_brokers=live_brokers)


def write_v1(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_ii.pack(m.controller_id, m.controller_epoch)
    _v = m.ungrouped_partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataPartitionState_v0(w, _e)
    _v = m.live_brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataBroker_v1(w, _e)


def read_v2(r: Reader) -> UpdateMetadataRequest:
    controller_id, controller_epoch = r.unpack(_S_ii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.UngroupedPartitionStates is null")
    ungrouped_partition_states = [_read_UpdateMetadataPartitionState_v0(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v2(r) for _ in range(_n)]
    return UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch, ungrouped_partition_states=ungrouped_partition_states, live_brokers=live_brokers)


def write_v2(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_ii.pack(m.controller_id, m.controller_epoch)
    _v = m.ungrouped_partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataPartitionState_v0(w, _e)
    _v = m.live_brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataBroker_v2(w, _e)


def read_v3(r: Reader) -> UpdateMetadataRequest:
    controller_id, controller_epoch = r.unpack(_S_ii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.UngroupedPartitionStates is null")
    ungrouped_partition_states = [_read_UpdateMetadataPartitionState_v0(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v3(r) for _ in range(_n)]
    return UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch, ungrouped_partition_states=ungrouped_partition_states, live_brokers=live_brokers)


def write_v3(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_ii.pack(m.controller_id, m.controller_epoch)
    _v = m.ungrouped_partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataPartitionState_v0(w, _e)
    _v = m.live_brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataBroker_v3(w, _e)


def read_v4(r: Reader) -> UpdateMetadataRequest:
    controller_id, controller_epoch = r.unpack(_S_ii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.UngroupedPartitionStates is null")
    ungrouped_partition_states = [_read_UpdateMetadataPartitionState_v4(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v3(r) for _ in range(_n)]
    return UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch, ungrouped_partition_states=ungrouped_partition_states, live_brokers=live_brokers)


def write_v4(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_ii.pack(m.controller_id, m.controller_epoch)
    _v = m.ungrouped_partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataPartitionState_v4(w, _e)
    _v = m.live_brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataBroker_v3(w, _e)


def read_v5(r: Reader) -> UpdateMetadataRequest:
    controller_id, controller_epoch, broker_epoch = r.unpack(_S_iiq)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.TopicStates is null")
    topic_states = [_read_UpdateMetadataTopicState_v5(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v3(r) for _ in range(_n)]
    return UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, live_brokers=live_brokers)


def write_v5(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_iiq.pack(m.controller_id, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataTopicState_v5(w, _e)
    _v = m.live_brokers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_UpdateMetadataBroker_v3(w, _e)


def read_v6(r: Reader) -> UpdateMetadataRequest:
    controller_id, controller_epoch, broker_epoch = r.unpack(_S_iiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.TopicStates is null")
    topic_states = [_read_UpdateMetadataTopicState_v6(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, live_brokers=live_brokers, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_iiq.pack(m.controller_id, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataTopicState_v6(w, _e)
    _v = m.live_brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataBroker_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v7(r: Reader) -> UpdateMetadataRequest:
    controller_id, controller_epoch, broker_epoch = r.unpack(_S_iiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.TopicStates is null")
    topic_states = [_read_UpdateMetadataTopicState_v7(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, live_brokers=live_brokers, unknown_tagged_fields=unknown_tagged_fields)


def write_v7(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_iiq.pack(m.controller_id, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataTopicState_v7(w, _e)
    _v = m.live_brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataBroker_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v8(r: Reader) -> UpdateMetadataRequest:
    controller_id, is_kraft_controller, controller_epoch, broker_epoch = r.unpack(_S_ixiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.TopicStates is null")
    topic_states = [_read_UpdateMetadataTopicState_v7(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array UpdateMetadataRequest.LiveBrokers is null")
    live_brokers = [_read_UpdateMetadataBroker_v6(r) for _ in range(_n)]
    type = 0
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            type = r.int8()
            if r.pos != _end:
                raise ProtocolError("tagged field UpdateMetadataRequest.Type does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return UpdateMetadataRequest(controller_id=controller_id, is_kraft_controller=is_kraft_controller, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, live_brokers=live_brokers, type=type, unknown_tagged_fields=unknown_tagged_fields)


def write_v8(w: Writer, m: UpdateMetadataRequest) -> None:
    w += _S_ixiq.pack(m.controller_id, m.is_kraft_controller, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataTopicState_v7(w, _e)
    _v = m.live_brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_UpdateMetadataBroker_v6(w, _e)
    _known = []
    if m.type != 0:
        _t = Writer()
        _t += _S_b.pack(m.type)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8}


def read(r: Reader, version: int) -> UpdateMetadataRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: UpdateMetadataRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> UpdateMetadataRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: UpdateMetadataRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
