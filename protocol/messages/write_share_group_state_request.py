# Generated from WriteShareGroupStateRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "WriteShareGroupStateRequest"
API_KEY = 85
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = True

_S_iiiq = _struct.Struct(">iiiq")
_S_qqbh = _struct.Struct(">qqbh")


@dataclass(slots=True)
class StateBatch:
    first_offset: int = 0
    last_offset: int = 0
    delivery_state: int = 0
    delivery_count: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionData:
    partition: int = 0
    state_epoch: int = 0
    leader_epoch: int = 0
    start_offset: int = 0
    state_batches: list[StateBatch] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class WriteStateData:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class WriteShareGroupStateRequest:
    group_id: str = ""
    topics: list[WriteStateData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_StateBatch_v0(r: Reader) -> StateBatch:
    first_offset, last_offset, delivery_state, delivery_count = r.unpack(_S_qqbh)
    unknown_tagged_fields = r.tagged_fields()
    return StateBatch(first_offset=first_offset, last_offset=last_offset, delivery_state=delivery_state, delivery_count=delivery_count, unknown_tagged_fields=unknown_tagged_fields)


def _write_StateBatch_v0(w: Writer, m: StateBatch) -> None:
    w += _S_qqbh.pack(m.first_offset, m.last_offset, m.delivery_state, m.delivery_count)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition, state_epoch, leader_epoch, start_offset = r.unpack(_S_iiiq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteShareGroupStateRequest.StateBatches is null")
    state_batches = [_read_StateBatch_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition=partition, state_epoch=state_epoch, leader_epoch=leader_epoch, start_offset=start_offset, state_batches=state_batches, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_iiiq.pack(m.partition, m.state_epoch, m.leader_epoch, m.start_offset)
    _v = m.state_batches
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_StateBatch_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_WriteStateData_v0(r: Reader) -> WriteStateData:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteShareGroupStateRequest.Partitions is null")
    partitions = [_read_PartitionData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return WriteStateData(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_WriteStateData_v0(w: Writer, m: WriteStateData) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> WriteShareGroupStateRequest:
    group_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteShareGroupStateRequest.Topics is null")
    topics = [_read_WriteStateData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return WriteShareGroupStateRequest(group_id=group_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: WriteShareGroupStateRequest) -> None:
    write_compact_string(w, m.group_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_WriteStateData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> WriteShareGroupStateRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: WriteShareGroupStateRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> WriteShareGroupStateRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: WriteShareGroupStateRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
