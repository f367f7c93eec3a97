# Generated from OffsetDeleteRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_string,
)

NAME = "OffsetDeleteRequest"
API_KEY = 47
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = None
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class OffsetDeleteRequestPartition:
    partition_index: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetDeleteRequestTopic:
    name: str = ""
    partitions: list[OffsetDeleteRequestPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetDeleteRequest:
    group_id: str = ""
    topics: list[OffsetDeleteRequestTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_OffsetDeleteRequestPartition_v0(r: Reader) -> OffsetDeleteRequestPartition:
    partition_index = r.int32()
    return OffsetDeleteRequestPartition(partition_index=partition_index)


def _write_OffsetDeleteRequestPartition_v0(w: Writer, m: OffsetDeleteRequestPartition) -> None:
    w += _S_i.pack(m.partition_index)


def _read_OffsetDeleteRequestTopic_v0(r: Reader) -> OffsetDeleteRequestTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetDeleteRequest.Partitions is null")
    partitions = [_read_OffsetDeleteRequestPartition_v0(r) for _ in range(_n)]
    return OffsetDeleteRequestTopic(name=name, partitions=partitions)


def _write_OffsetDeleteRequestTopic_v0(w: Writer, m: OffsetDeleteRequestTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetDeleteRequestPartition_v0(w, _e)


def read_v0(r: Reader) -> OffsetDeleteRequest:
    group_id = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetDeleteRequest.Topics is null")
    topics = [_read_OffsetDeleteRequestTopic_v0(r) for _ in range(_n)]
    return OffsetDeleteRequest(group_id=group_id, topics=topics)


def write_v0(w: Writer, m: OffsetDeleteRequest) -> None:
    write_string(w, m.group_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetDeleteRequestTopic_v0(w, _e)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> OffsetDeleteRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetDeleteRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetDeleteRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetDeleteRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
