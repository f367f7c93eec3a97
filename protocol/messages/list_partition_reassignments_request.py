# Generated from ListPartitionReassignmentsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_array_length,
    write_compact_string,
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ListPartitionReassignmentsRequest"
API_KEY = 46
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker", "controller", "zkBroker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class ListPartitionReassignmentsTopics:
    name: str = ""
    partition_indexes: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListPartitionReassignmentsRequest:
    timeout_ms: int = 60000
    topics: list[ListPartitionReassignmentsTopics] | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ListPartitionReassignmentsTopics_v0(r: Reader) -> ListPartitionReassignmentsTopics:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListPartitionReassignmentsRequest.PartitionIndexes is null")
    partition_indexes = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return ListPartitionReassignmentsTopics(name=name, partition_indexes=partition_indexes, unknown_tagged_fields=unknown_tagged_fields)


def _write_ListPartitionReassignmentsTopics_v0(w: Writer, m: ListPartitionReassignmentsTopics) -> None:
    write_compact_string(w, m.name)
    _v = m.partition_indexes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ListPartitionReassignmentsRequest:
    timeout_ms = r.int32()
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_ListPartitionReassignmentsTopics_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListPartitionReassignmentsRequest(timeout_ms=timeout_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ListPartitionReassignmentsRequest) -> None:
    w += _S_i.pack(m.timeout_ms)
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_ListPartitionReassignmentsTopics_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ListPartitionReassignmentsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListPartitionReassignmentsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListPartitionReassignmentsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListPartitionReassignmentsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
