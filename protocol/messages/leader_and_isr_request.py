# Generated from LeaderAndIsrRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "LeaderAndIsrRequest"
API_KEY = 4
TYPE = "request"
VALID_VERSIONS = (0, 7)
FLEXIBLE_VERSIONS = (4, 7)
LISTENERS = ("zkBroker",)
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ii = _struct.Struct(">ii")
_S_iiii = _struct.Struct(">iiii")
_S_iiq = _struct.Struct(">iiq")
_S_iiqb = _struct.Struct(">iiqb")
_S_ixiqb = _struct.Struct(">i?iqb")
_S_x = _struct.Struct(">?")
_S_xb = _struct.Struct(">?b")


@dataclass(slots=True)
class LeaderAndIsrPartitionState:
    topic_name: str = ""
    partition_index: int = 0
    controller_epoch: int = 0
    leader: int = 0
    leader_epoch: int = 0
    isr: list[int] = _field(default_factory=list)
    partition_epoch: int = 0
    replicas: list[int] = _field(default_factory=list)
    adding_replicas: list[int] = _field(default_factory=list)
    removing_replicas: list[int] = _field(default_factory=list)
    is_new: bool = False
    leader_recovery_state: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderAndIsrTopicState:
    topic_name: str = ""
    topic_id: uuid.UUID = ZERO_UUID
    partition_states: list[LeaderAndIsrPartitionState] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderAndIsrLiveLeader:
    broker_id: int = 0
    host_name: str = ""
    port: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderAndIsrRequest:
    controller_id: int = 0
    is_kraft_controller: bool = False
    controller_epoch: int = 0
    broker_epoch: int = -1
    type: int = 0
    ungrouped_partition_states: list[LeaderAndIsrPartitionState] = _field(default_factory=list)
    topic_states: list[LeaderAndIsrTopicState] = _field(default_factory=list)
    live_leaders: list[LeaderAndIsrLiveLeader] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_LeaderAndIsrPartitionState_v0(r: Reader) -> LeaderAndIsrPartitionState:
    topic_name = r.string()
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    partition_epoch = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    return LeaderAndIsrPartitionState(topic_name=topic_name, partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=partition_epoch, replicas=replicas)


def _write_LeaderAndIsrPartitionState_v0(w: Writer, m: LeaderAndIsrPartitionState) -> None:
    write_string(w, m.topic_name)
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.partition_epoch)
    _v = m.replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_LeaderAndIsrPartitionState_v1(r: Reader) -> LeaderAndIsrPartitionState:
    topic_name = r.string()
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    partition_epoch = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    is_new = r.boolean()
    return LeaderAndIsrPartitionState(topic_name=topic_name, partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=partition_epoch, replicas=replicas, is_new=is_new)


def _write_LeaderAndIsrPartitionState_v1(w: Writer, m: LeaderAndIsrPartitionState) -> None:
    write_string(w, m.topic_name)
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.partition_epoch)
    _v = m.replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_x.pack(m.is_new)


def _read_LeaderAndIsrPartitionState_v2(r: Reader) -> LeaderAndIsrPartitionState:
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    partition_epoch = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    is_new = r.boolean()
    return LeaderAndIsrPartitionState(partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=partition_epoch, replicas=replicas, is_new=is_new)


def _write_LeaderAndIsrPartitionState_v2(w: Writer, m: LeaderAndIsrPartitionState) -> None:
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.partition_epoch)
    _v = m.replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_x.pack(m.is_new)


def _read_LeaderAndIsrPartitionState_v3(r: Reader) -> LeaderAndIsrPartitionState:
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    partition_epoch = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.AddingReplicas is null")
    adding_replicas = r.fixed_array("i", _n)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.RemovingReplicas is null")
    removing_replicas = r.fixed_array("i", _n)
    is_new = r.boolean()
    return LeaderAndIsrPartitionState(partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=partition_epoch, replicas=replicas, adding_replicas=adding_replicas, removing_replicas=removing_replicas, is_new=is_new)


def _write_LeaderAndIsrPartitionState_v3(w: Writer, m: LeaderAndIsrPartitionState) -> None:
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.partition_epoch)
    _v = m.replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.adding_replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    _v = m.removing_replicas
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)
    w += _S_x.pack(m.is_new)


def _read_LeaderAndIsrPartitionState_v4(r: Reader) -> LeaderAndIsrPartitionState:
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    partition_epoch = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.AddingReplicas is null")
    adding_replicas = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.RemovingReplicas is null")
    removing_replicas = r.fixed_array("i", _n)
    is_new = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrPartitionState(partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=partition_epoch, replicas=replicas, adding_replicas=adding_replicas, removing_replicas=removing_replicas, is_new=is_new, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrPartitionState_v4(w: Writer, m: LeaderAndIsrPartitionState) -> None:
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.partition_epoch)
    _v = m.replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.adding_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.removing_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    w += _S_x.pack(m.is_new)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderAndIsrPartitionState_v6(r: Reader) -> LeaderAndIsrPartitionState:
    partition_index, controller_epoch, leader, leader_epoch = r.unpack(_S_iiii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Isr is null")
    isr = r.fixed_array("i", _n)
    partition_epoch = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.Replicas is null")
    replicas = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.AddingReplicas is null")
    adding_replicas = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.RemovingReplicas is null")
    removing_replicas = r.fixed_array("i", _n)
    is_new, leader_recovery_state = r.unpack(_S_xb)
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrPartitionState(partition_index=partition_index, controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=partition_epoch, replicas=replicas, adding_replicas=adding_replicas, removing_replicas=removing_replicas, is_new=is_new, leader_recovery_state=leader_recovery_state, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrPartitionState_v6(w: Writer, m: LeaderAndIsrPartitionState) -> None:
    w += _S_iiii.pack(m.partition_index, m.controller_epoch, m.leader, m.leader_epoch)
    _v = m.isr
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.partition_epoch)
    _v = m.replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.adding_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.removing_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    w += _S_xb.pack(m.is_new, m.leader_recovery_state)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderAndIsrTopicState_v2(r: Reader) -> LeaderAndIsrTopicState:
    topic_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.PartitionStates is null")
    partition_states = [_read_LeaderAndIsrPartitionState_v2(r) for _ in range(_n)]
    return LeaderAndIsrTopicState(topic_name=topic_name, partition_states=partition_states)


def _write_LeaderAndIsrTopicState_v2(w: Writer, m: LeaderAndIsrTopicState) -> None:
    write_string(w, m.topic_name)
    _v = m.partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrPartitionState_v2(w, _e)


def _read_LeaderAndIsrTopicState_v3(r: Reader) -> LeaderAndIsrTopicState:
    topic_name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.PartitionStates is null")
    partition_states = [_read_LeaderAndIsrPartitionState_v3(r) for _ in range(_n)]
    return LeaderAndIsrTopicState(topic_name=topic_name, partition_states=partition_states)


def _write_LeaderAndIsrTopicState_v3(w: Writer, m: LeaderAndIsrTopicState) -> None:
    write_string(w, m.topic_name)
    _v = m.partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrPartitionState_v3(w, _e)


def _read_LeaderAndIsrTopicState_v4(r: Reader) -> LeaderAndIsrTopicState:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.PartitionStates is null")
    partition_states = [_read_LeaderAndIsrPartitionState_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrTopicState(topic_name=topic_name, partition_states=partition_states, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrTopicState_v4(w: Writer, m: LeaderAndIsrTopicState) -> None:
    write_compact_string(w, m.topic_name)
    _v = m.partition_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrPartitionState_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderAndIsrTopicState_v5(r: Reader) -> LeaderAndIsrTopicState:
    topic_name = r.compact_string()
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.PartitionStates is null")
    partition_states = [_read_LeaderAndIsrPartitionState_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrTopicState(topic_name=topic_name, topic_id=topic_id, partition_states=partition_states, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrTopicState_v5(w: Writer, m: LeaderAndIsrTopicState) -> None:
    write_compact_string(w, m.topic_name)
    w += m.topic_id.bytes
    _v = m.partition_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrPartitionState_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderAndIsrTopicState_v6(r: Reader) -> LeaderAndIsrTopicState:
    topic_name = r.compact_string()
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.PartitionStates is null")
    partition_states = [_read_LeaderAndIsrPartitionState_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrTopicState(topic_name=topic_name, topic_id=topic_id, partition_states=partition_states, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrTopicState_v6(w: Writer, m: LeaderAndIsrTopicState) -> None:
    write_compact_string(w, m.topic_name)
    w += m.topic_id.bytes
    _v = m.partition_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrPartitionState_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderAndIsrLiveLeader_v0(r: Reader) -> LeaderAndIsrLiveLeader:
    broker_id = r.int32()
    host_name = r.string()
    port = r.int32()
    return LeaderAndIsrLiveLeader(broker_id=broker_id, host_name=host_name, port=port)


def _write_LeaderAndIsrLiveLeader_v0(w: Writer, m: LeaderAndIsrLiveLeader) -> None:
    w += _S_i.pack(m.broker_id)
    write_string(w, m.host_name)
    w += _S_i.pack(m.port)


def _read_LeaderAndIsrLiveLeader_v4(r: Reader) -> LeaderAndIsrLiveLeader:
    broker_id = r.int32()
    host_name = r.compact_string()
    port = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrLiveLeader(broker_id=broker_id, host_name=host_name, port=port, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrLiveLeader_v4(w: Writer, m: LeaderAndIsrLiveLeader) -> None:
    w += _S_i.pack(m.broker_id)
    write_compact_string(w, m.host_name)
    w += _S_i.pack(m.port)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> LeaderAndIsrRequest:
    controller_id, controller_epoch = r.unpack(_S_ii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.UngroupedPartitionStates is null")
    ungrouped_partition_states = [_read_LeaderAndIsrPartitionState_v0(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.LiveLeaders is null")
    live_leaders = [_read_LeaderAndIsrLiveLeader_v0(r) for _ in range(_n)]
    return LeaderAndIsrRequest(controller_id=controller_id, controller_epoch=controller_epoch, ungrouped_partition_states=ungrouped_partition_states, live_leaders=live_leaders)


def write_v0(w: Writer, m: LeaderAndIsrRequest) -> None:
    w += _S_ii.pack(m.controller_id, m.controller_epoch)
    _v = m.ungrouped_partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrPartitionState_v0(w, _e)
    _v = m.live_leaders
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrLiveLeader_v0(w, _e)


def read_v1(r: Reader) -> LeaderAndIsrRequest:
    controller_id, controller_epoch = r.unpack(_S_ii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.UngroupedPartitionStates is null")
    ungrouped_partition_states = [_read_LeaderAndIsrPartitionState_v1(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.LiveLeaders is null")
    live_leaders = [_read_LeaderAndIsrLiveLeader_v0(r) for _ in range(_n)]
    return LeaderAndIsrRequest(controller_id=controller_id, controller_epoch=controller_epoch, ungrouped_partition_states=ungrouped_partition_states, live_leaders=live_leaders)


def write_v1(w: Writer, m: LeaderAndIsrRequest) -> None:
    w += _S_ii.pack(m.controller_id, m.controller_epoch)
    _v = m.ungrouped_partition_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrPartitionState_v1(w, _e)
    _v = m.live_leaders
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrLiveLeader_v0(w, _e)


def read_v2(r: Reader) -> LeaderAndIsrRequest:
    controller_id, controller_epoch, broker_epoch = r.unpack(_S_iiq)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.TopicStates is null")
    topic_states = [_read_LeaderAndIsrTopicState_v2(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.LiveLeaders is null")
    live_leaders = [_read_LeaderAndIsrLiveLeader_v0(r) for _ in range(_n)]
    return LeaderAndIsrRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, live_leaders=live_leaders)


def write_v2(w: Writer, m: LeaderAndIsrRequest) -> None:
    w += _S_iiq.pack(m.controller_id, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrTopicState_v2(w, _e)
    _v = m.live_leaders
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrLiveLeader_v0(w, _e)


def read_v3(r: Reader) -> LeaderAndIsrRequest:
    controller_id, controller_epoch, broker_epoch = r.unpack(_S_iiq)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.TopicStates is null")
    topic_states = [_read_LeaderAndIsrTopicState_v3(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.LiveLeaders is null")
    live_leaders = [_read_LeaderAndIsrLiveLeader_v0(r) for _ in range(_n)]
    return LeaderAndIsrRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, live_leaders=live_leaders)


def write_v3(w: Writer, m: LeaderAndIsrRequest) -> None:
    w += _S_iiq.pack(m.controller_id, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrTopicState_v3(w, _e)
    _v = m.live_leaders
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrLiveLeader_v0(w, _e)


def read_v4(r: Reader) -> LeaderAndIsrRequest:
    controller_id, controller_epoch, broker_epoch = r.unpack(_S_iiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.TopicStates is null")
    topic_states = [_read_LeaderAndIsrTopicState_v4(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.LiveLeaders is null")
    live_leaders = [_read_LeaderAndIsrLiveLeader_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, live_leaders=live_leaders, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: LeaderAndIsrRequest) -> None:
    w += _S_iiq.pack(m.controller_id, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrTopicState_v4(w, _e)
    _v = m.live_leaders
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrLiveLeader_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v5(r: Reader) -> LeaderAndIsrRequest:
    controller_id, controller_epoch, broker_epoch, type = r.unpack(_S_iiqb)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.TopicStates is null")
    topic_states = [_read_LeaderAndIsrTopicState_v5(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.LiveLeaders is null")
    live_leaders = [_read_LeaderAndIsrLiveLeader_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, type=type, topic_states=topic_states, live_leaders=live_leaders, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: LeaderAndIsrRequest) -> None:
    w += _S_iiqb.pack(m.controller_id, m.controller_epoch, m.broker_epoch, m.type)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrTopicState_v5(w, _e)
    _v = m.live_leaders
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrLiveLeader_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v6(r: Reader) -> LeaderAndIsrRequest:
    controller_id, controller_epoch, broker_epoch, type = r.unpack(_S_iiqb)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.TopicStates is null")
    topic_states = [_read_LeaderAndIsrTopicState_v6(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.LiveLeaders is null")
    live_leaders = [_read_LeaderAndIsrLiveLeader_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, type=type, topic_states=topic_states, live_leaders=live_leaders, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: LeaderAndIsrRequest) -> None:
    w += _S_iiqb.pack(m.controller_id, m.controller_epoch, m.broker_epoch, m.type)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrTopicState_v6(w, _e)
    _v = m.live_leaders
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrLiveLeader_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v7(r: Reader) -> LeaderAndIsrRequest:
    controller_id, is_kraft_controller, controller_epoch, broker_epoch, type = r.unpack(_S_ixiqb)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.TopicStates is null")
    topic_states = [_read_LeaderAndIsrTopicState_v6(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrRequest.LiveLeaders is null")
    live_leaders = [_read_LeaderAndIsrLiveLeader_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrRequest(controller_id=controller_id, is_kraft_controller=is_kraft_controller, controller_epoch=controller_epoch, broker_epoch=broker_epoch, type=type, topic_states=topic_states, live_leaders=live_leaders, unknown_tagged_fields=unknown_tagged_fields)


def write_v7(w: Writer, m: LeaderAndIsrRequest) -> None:
    w += _S_ixiqb.pack(m.controller_id, m.is_kraft_controller, m.controller_epoch, m.broker_epoch, m.type)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrTopicState_v6(w, _e)
    _v = m.live_leaders
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrLiveLeader_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7}


def read(r: Reader, version: int) -> LeaderAndIsrRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: LeaderAndIsrRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> LeaderAndIsrRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: LeaderAndIsrRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
