# Generated from AlterPartitionRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "AlterPartitionRequest"
API_KEY = 56
TYPE = "request"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (0, 3)
LISTENERS = ("zkBroker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_bi = _struct.Struct(">bi")
_S_i = _struct.Struct(">i")
_S_ii = _struct.Struct(">ii")
_S_iq = _struct.Struct(">iq")


@dataclass(slots=True)
class BrokerState:
    broker_id: int = 0
    broker_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    leader_epoch: int = 0
    new_isr: list[int] = _field(default_factory=list)
    new_isr_with_epochs: list[BrokerState] = _field(default_factory=list)
    leader_recovery_state: int = 0
    partition_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicData:
    topic_name: str = ""
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterPartitionRequest:
    broker_id: int = 0
    broker_epoch: int = -1
    topics: list[TopicData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_BrokerState_v3(r: Reader) -> BrokerState:
    broker_id, broker_epoch = r.unpack(_S_iq)
    unknown_tagged_fields = r.tagged_fields()
    return BrokerState(broker_id=broker_id, broker_epoch=broker_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_BrokerState_v3(w: Writer, m: BrokerState) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index, leader_epoch = r.unpack(_S_ii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.NewIsr is null")
    new_isr = r.fixed_array("i", _n)
    partition_epoch = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, leader_epoch=leader_epoch, new_isr=new_isr, partition_epoch=partition_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_ii.pack(m.partition_index, m.leader_epoch)
    _v = m.new_isr
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    w += _S_i.pack(m.partition_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v1(r: Reader) -> PartitionData:
    partition_index, leader_epoch = r.unpack(_S_ii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.NewIsr is null")
    new_isr = r.fixed_array("i", _n)
    leader_recovery_state, partition_epoch = r.unpack(_S_bi)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, leader_epoch=leader_epoch, new_isr=new_isr, leader_recovery_state=leader_recovery_state, partition_epoch=partition_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v1(w: Writer, m: PartitionData) -> None:
    w += _S_ii.pack(m.partition_index, m.leader_epoch)
    _v = m.new_isr
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    w += _S_bi.pack(m.leader_recovery_state, m.partition_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v3(r: Reader) -> PartitionData:
    partition_index, leader_epoch = r.unpack(_S_ii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.NewIsrWithEpochs is null")
    new_isr_with_epochs = [_read_BrokerState_v3(r) for _ in range(_n)]
    leader_recovery_state, partition_epoch = r.unpack(_S_bi)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, leader_epoch=leader_epoch, new_isr_with_epochs=new_isr_with_epochs, leader_recovery_state=leader_recovery_state, partition_epoch=partition_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v3(w: Writer, m: PartitionData) -> None:
    w += _S_ii.pack(m.partition_index, m.leader_epoch)
    _v = m.new_isr_with_epochs
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_BrokerState_v3(w, _e)
    w += _S_bi.pack(m.leader_recovery_state, m.partition_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v0(r: Reader) -> TopicData:
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.Partitions is null")
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
        raise ProtocolError("non-nullable array AlterPartitionRequest.Partitions is null")
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
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.Partitions is null")
    partitions = [_read_PartitionData_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicData(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicData_v2(w: Writer, m: TopicData) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicData_v3(r: Reader) -> TopicData:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.Partitions is null")
    partitions = [_read_PartitionData_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicData(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicData_v3(w: Writer, m: TopicData) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AlterPartitionRequest:
    broker_id, broker_epoch = r.unpack(_S_iq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.Topics is null")
    topics = [_read_TopicData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterPartitionRequest(broker_id=broker_id, broker_epoch=broker_epoch, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AlterPartitionRequest) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> AlterPartitionRequest:
    broker_id, broker_epoch = r.unpack(_S_iq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.Topics is null")
    topics = [_read_TopicData_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterPartitionRequest(broker_id=broker_id, broker_epoch=broker_epoch, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: AlterPartitionRequest) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v2(r: Reader) -> AlterPartitionRequest:
    broker_id, broker_epoch = r.unpack(_S_iq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.Topics is null")
    topics = [_read_TopicData_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterPartitionRequest(broker_id=broker_id, broker_epoch=broker_epoch, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: AlterPartitionRequest) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v3(r: Reader) -> AlterPartitionRequest:
    broker_id, broker_epoch = r.unpack(_S_iq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionRequest.Topics is null")
    topics = [_read_TopicData_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterPartitionRequest(broker_id=broker_id, broker_epoch=broker_epoch, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: AlterPartitionRequest) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> AlterPartitionRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AlterPartitionRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AlterPartitionRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AlterPartitionRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
