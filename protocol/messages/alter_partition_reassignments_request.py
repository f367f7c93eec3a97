# Generated from AlterPartitionReassignmentsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "AlterPartitionReassignmentsRequest"
API_KEY = 45
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker", "controller", "zkBroker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class ReassignablePartition:
    partition_index: int = 0
    replicas: list[int] | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ReassignableTopic:
    name: str = ""
    partitions: list[ReassignablePartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterPartitionReassignmentsRequest:
    timeout_ms: int = 60000
    topics: list[ReassignableTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ReassignablePartition_v0(r: Reader) -> ReassignablePartition:
    partition_index = r.int32()
    _n = r.compact_array_length()
    replicas = None if _n < 0 else r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return ReassignablePartition(partition_index=partition_index, replicas=replicas, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReassignablePartition_v0(w: Writer, m: ReassignablePartition) -> None:
    w += _S_i.pack(m.partition_index)
    _v = m.replicas
    write_compact_array_length(w, _v)
    if _v:
        write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ReassignableTopic_v0(r: Reader) -> ReassignableTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionReassignmentsRequest.Partitions is null")
    partitions = [_read_ReassignablePartition_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ReassignableTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReassignableTopic_v0(w: Writer, m: ReassignableTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReassignablePartition_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AlterPartitionReassignmentsRequest:
    timeout_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionReassignmentsRequest.Topics is null")
    topics = [_read_ReassignableTopic_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterPartitionReassignmentsRequest(timeout_ms=timeout_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AlterPartitionReassignmentsRequest) -> None:
    w += _S_i.pack(m.timeout_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReassignableTopic_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> AlterPartitionReassignmentsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AlterPartitionReassignmentsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AlterPartitionReassignmentsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AlterPartitionReassignmentsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
