# Generated from StopReplicaRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "StopReplicaRequest"
API_KEY = 5
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (2, 4)
LISTENERS = ("zkBroker",)
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iiq = _struct.Struct(">iiq")
_S_iiqx = _struct.Struct(">iiq?")
_S_iix = _struct.Struct(">ii?")
_S_ixiq = _struct.Struct(">i?iq")


@dataclass(slots=True)
class StopReplicaPartitionV0:
    topic_name: str = ""
    partition_index: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class StopReplicaTopicV1:
    name: str = ""
    partition_indexes: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class StopReplicaPartitionState:
    partition_index: int = 0
    leader_epoch: int = -1
    delete_partition: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class StopReplicaTopicState:
    topic_name: str = ""
    partition_states: list[StopReplicaPartitionState] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class StopReplicaRequest:
    controller_id: int = 0
    is_kraft_controller: bool = False
    controller_epoch: int = 0
    broker_epoch: int = -1
    delete_partitions: bool = False
    ungrouped_partitions: list[StopReplicaPartitionV0] = _field(default_factory=list)
    topics: list[StopReplicaTopicV1] = _field(default_factory=list)
    topic_states: list[StopReplicaTopicState] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_StopReplicaPartitionV0_v0(r: Reader) -> StopReplicaPartitionV0:
    topic_name = r.string()
    partition_index = r.int32()
    return StopReplicaPartitionV0(topic_name=topic_name, partition_index=partition_index)


def _write_StopReplicaPartitionV0_v0(w: Writer, m: StopReplicaPartitionV0) -> None:
    write_string(w, m.topic_name)
    w += _S_i.pack(m.partition_index)


def _read_StopReplicaTopicV1_v1(r: Reader) -> StopReplicaTopicV1:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaRequest.PartitionIndexes is null")
    partition_indexes = r.fixed_array("i", _n)
    return StopReplicaTopicV1(name=name, partition_indexes=partition_indexes)


def _write_StopReplicaTopicV1_v1(w: Writer, m: StopReplicaTopicV1) -> None:
    write_string(w, m.name)
    _v = m.partition_indexes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_StopReplicaTopicV1_v2(r: Reader) -> StopReplicaTopicV1:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaRequest.PartitionIndexes is null")
    partition_indexes = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return StopReplicaTopicV1(name=name, partition_indexes=partition_indexes, unknown_tagged_fields=unknown_tagged_fields)


def _write_StopReplicaTopicV1_v2(w: Writer, m: StopReplicaTopicV1) -> None:
    write_compact_string(w, m.name)
    _v = m.partition_indexes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_StopReplicaPartitionState_v3(r: Reader) -> StopReplicaPartitionState:
    partition_index, leader_epoch, delete_partition = r.unpack(_S_iix)
    unknown_tagged_fields = r.tagged_fields()
    return StopReplicaPartitionState(partition_index=partition_index, leader_epoch=leader_epoch, delete_partition=delete_partition, unknown_tagged_fields=unknown_tagged_fields)


def _write_StopReplicaPartitionState_v3(w: Writer, m: StopReplicaPartitionState) -> None:
    w += _S_iix.pack(m.partition_index, m.leader_epoch, m.delete_partition)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_StopReplicaTopicState_v3(r: Reader) -> StopReplicaTopicState:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaRequest.PartitionStates is null")
    partition_states = [_read_StopReplicaPartitionState_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return StopReplicaTopicState(topic_name=topic_name, partition_states=partition_states, unknown_tagged_fields=unknown_tagged_fields)


def _write_StopReplicaTopicState_v3(w: Writer, m: StopReplicaTopicState) -> None:
    write_compact_string(w, m.topic_name)
    _v = m.partition_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_StopReplicaPartitionState_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> StopReplicaRequest:
    controller_id, controller_epoch, delete_partitions = r.unpack(_S_iix)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaRequest.UngroupedPartitions is null")
    ungrouped_partitions = [_read_StopReplicaPartitionV0_v0(r) for _ in range(_n)]
    return StopReplicaRequest(controller_id=controller_id, controller_epoch=controller_epoch, delete_partitions=delete_partitions, ungrouped_partitions=ungrouped_partitions)


def write_v0(w: Writer, m: StopReplicaRequest) -> None:
    w += _S_iix.pack(m.controller_id, m.controller_epoch, m.delete_partitions)
    _v = m.ungrouped_partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_StopReplicaPartitionV0_v0(w, _e)


def read_v1(r: Reader) -> StopReplicaRequest:
    controller_id, controller_epoch, broker_epoch, delete_partitions = r.unpack(_S_iiqx)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaRequest.Topics is null")
    topics = [_read_StopReplicaTopicV1_v1(r) for _ in range(_n)]
    return StopReplicaRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, delete_partitions=delete_partitions, topics=topics)


def write_v1(w: Writer, m: StopReplicaRequest) -> None:
    w += _S_iiqx.pack(m.controller_id, m.controller_epoch, m.broker_epoch, m.delete_partitions)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_StopReplicaTopicV1_v1(w, _e)


def read_v2(r: Reader) -> StopReplicaRequest:
    controller_id, controller_epoch, broker_epoch, delete_partitions = r.unpack(_S_iiqx)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaRequest.Topics is null")
    topics = [_read_StopReplicaTopicV1_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return StopReplicaRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, delete_partitions=delete_partitions, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: StopReplicaRequest) -> None:
    w += _S_iiqx.pack(m.controller_id, m.controller_epoch, m.broker_epoch, m.delete_partitions)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_StopReplicaTopicV1_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v3(r: Reader) -> StopReplicaRequest:
    controller_id, controller_epoch, broker_epoch = r.unpack(_S_iiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaRequest.TopicStates is null")
    topic_states = [_read_StopReplicaTopicState_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return StopReplicaRequest(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: StopReplicaRequest) -> None:
    w += _S_iiq.pack(m.controller_id, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_StopReplicaTopicState_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v4(r: Reader) -> StopReplicaRequest:
    controller_id, is_kraft_controller, controller_epoch, broker_epoch = r.unpack(_S_ixiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaRequest.TopicStates is null")
    topic_states = [_read_StopReplicaTopicState_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return StopReplicaRequest(controller_id=controller_id, is_kraft_controller=is_kraft_controller, controller_epoch=controller_epoch, broker_epoch=broker_epoch, topic_states=topic_states, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: StopReplicaRequest) -> None:
    w += _S_ixiq.pack(m.controller_id, m.is_kraft_controller, m.controller_epoch, m.broker_epoch)
    _v = m.topic_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_StopReplicaTopicState_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> StopReplicaRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: StopReplicaRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> StopReplicaRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: StopReplicaRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
