# Generated from ConsumerProtocolAssignment.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_nullable_bytes,
    write_string,
)

NAME = "ConsumerProtocolAssignment"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class TopicPartition:
    topic: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerProtocolAssignment:
    assigned_partitions: list[TopicPartition] = _field(default_factory=list)
    user_data: bytes | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartition_v0(r: Reader) -> TopicPartition:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolAssignment.Partitions is null")
    partitions = r.fixed_array("i", _n)
    return TopicPartition(topic=topic, partitions=partitions)


def _write_TopicPartition_v0(w: Writer, m: TopicPartition) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def read_v0(r: Reader) -> ConsumerProtocolAssignment:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolAssignment.AssignedPartitions is null")
    assigned_partitions = [_read_TopicPartition_v0(r) for _ in range(_n)]
    user_data = r.nullable_bytes()
    return ConsumerProtocolAssignment(assigned_partitions=assigned_partitions, user_data=user_data)


def write_v0(w: Writer, m: ConsumerProtocolAssignment) -> None:
    _v = m.assigned_partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicPartition_v0(w, _e)
    write_nullable_bytes(w, m.user_data)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v3 = read_v0
write_v3 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> ConsumerProtocolAssignment:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerProtocolAssignment, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerProtocolAssignment:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerProtocolAssignment, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
