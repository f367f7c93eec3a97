# Generated from ReadShareGroupStateRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ReadShareGroupStateRequest"
API_KEY = 84
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = True

_S_ii = _struct.Struct(">ii")


@dataclass(slots=True)
class PartitionData:
    partition: int = 0
    leader_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ReadStateData:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ReadShareGroupStateRequest:
    group_id: str = ""
    topics: list[ReadStateData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition, leader_epoch = r.unpack(_S_ii)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition=partition, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_ii.pack(m.partition, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ReadStateData_v0(r: Reader) -> ReadStateData:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ReadShareGroupStateRequest.Partitions is null")
    partitions = [_read_PartitionData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ReadStateData(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReadStateData_v0(w: Writer, m: ReadStateData) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ReadShareGroupStateRequest:
    group_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ReadShareGroupStateRequest.Topics is null")
    topics = [_read_ReadStateData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ReadShareGroupStateRequest(group_id=group_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ReadShareGroupStateRequest) -> None:
    write_compact_string(w, m.group_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReadStateData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ReadShareGroupStateRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ReadShareGroupStateRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ReadShareGroupStateRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ReadShareGroupStateRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
