# Generated from ConsumerGroupHeartbeatResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ConsumerGroupHeartbeatResponse"
API_KEY = 68
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ih = _struct.Struct(">ih")
_S_ii = _struct.Struct(">ii")


@dataclass(slots=True)
class TopicPartitions:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Assignment:
    topic_partitions: list[TopicPartitions] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerGroupHeartbeatResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    assignment: Assignment | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartitions_v0(r: Reader) -> TopicPartitions:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupHeartbeatResponse.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return TopicPartitions(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicPartitions_v0(w: Writer, m: TopicPartitions) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Assignment_v0(r: Reader) -> Assignment:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupHeartbeatResponse.TopicPartitions is null")
    topic_partitions = [_read_TopicPartitions_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return Assignment(topic_partitions=topic_partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_Assignment_v0(w: Writer, m: Assignment) -> None:
    _v = m.topic_partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicPartitions_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ConsumerGroupHeartbeatResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    member_id = r.compact_nullable_string()
    member_epoch, heartbeat_interval_ms = r.unpack(_S_ii)
    assignment = None if r.int8() < 0 else _read_Assignment_v0(r)
    unknown_tagged_fields = r.tagged_fields()
    return ConsumerGroupHeartbeatResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, member_id=member_id, member_epoch=member_epoch, heartbeat_interval_ms=heartbeat_interval_ms, assignment=assignment, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ConsumerGroupHeartbeatResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_compact_nullable_string(w, m.member_id)
    w += _S_ii.pack(m.member_epoch, m.heartbeat_interval_ms)
    _v = m.assignment
    if _v is None:
        w.append(255)
    else:
        w.append(1)
        _write_Assignment_v0(w, _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ConsumerGroupHeartbeatResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupHeartbeatResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupHeartbeatResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupHeartbeatResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
