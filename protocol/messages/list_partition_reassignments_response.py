# Generated from ListPartitionReassignmentsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_nullable_string,
    write_compact_string,
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ListPartitionReassignmentsResponse"
API_KEY = 46
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class OngoingPartitionReassignment:
    partition_index: int = 0
    replicas: list[int] = _field(default_factory=list)
    adding_replicas: list[int] = _field(default_factory=list)
    removing_replicas: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OngoingTopicReassignment:
    name: str = ""
    partitions: list[OngoingPartitionReassignment] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListPartitionReassignmentsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    topics: list[OngoingTopicReassignment] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_OngoingPartitionReassignment_v0(r: Reader) -> OngoingPartitionReassignment:
    partition_index = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListPartitionReassignmentsResponse.Replicas is null")
    replicas = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListPartitionReassignmentsResponse.AddingReplicas is null")
    adding_replicas = r.fixed_array("i", _n)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListPartitionReassignmentsResponse.RemovingReplicas is null")
    removing_replicas = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return OngoingPartitionReassignment(partition_index=partition_index, replicas=replicas, adding_replicas=adding_replicas, removing_replicas=removing_replicas, unknown_tagged_fields=unknown_tagged_fields)


def _write_OngoingPartitionReassignment_v0(w: Writer, m: OngoingPartitionReassignment) -> None:
    w += _S_i.pack(m.partition_index)
    _v = m.replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.adding_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    _v = m.removing_replicas
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OngoingTopicReassignment_v0(r: Reader) -> OngoingTopicReassignment:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListPartitionReassignmentsResponse.Partitions is null")
    partitions = [_read_OngoingPartitionReassignment_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OngoingTopicReassignment(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_OngoingTopicReassignment_v0(w: Writer, m: OngoingTopicReassignment) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OngoingPartitionReassignment_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ListPartitionReassignmentsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListPartitionReassignmentsResponse.Topics is null")
    topics = [_read_OngoingTopicReassignment_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListPartitionReassignmentsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ListPartitionReassignmentsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OngoingTopicReassignment_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ListPartitionReassignmentsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListPartitionReassignmentsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListPartitionReassignmentsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListPartitionReassignmentsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
