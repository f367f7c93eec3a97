# Generated from CreatePartitionsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_array_length,
    write_compact_array_length,
    write_compact_string,
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "CreatePartitionsRequest"
API_KEY = 37
TYPE = "request"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ix = _struct.Struct(">i?")


@dataclass(slots=True)
class CreatePartitionsAssignment:
    broker_ids: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreatePartitionsTopic:
    name: str = ""
    count: int = 0
    assignments: list[CreatePartitionsAssignment] | None = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreatePartitionsRequest:
    topics: list[CreatePartitionsTopic] = _field(default_factory=list)
    timeout_ms: int = 0
    validate_only: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_CreatePartitionsAssignment_v0(r: Reader) -> CreatePartitionsAssignment:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreatePartitionsRequest.BrokerIds is null")
    broker_ids = r.fixed_array("i", _n)
    return CreatePartitionsAssignment(broker_ids=broker_ids)


def _write_CreatePartitionsAssignment_v0(w: Writer, m: CreatePartitionsAssignment) -> None:
    _v = m.broker_ids
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_CreatePartitionsAssignment_v2(r: Reader) -> CreatePartitionsAssignment:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreatePartitionsRequest.BrokerIds is null")
    broker_ids = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return CreatePartitionsAssignment(broker_ids=broker_ids, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatePartitionsAssignment_v2(w: Writer, m: CreatePartitionsAssignment) -> None:
    _v = m.broker_ids
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_CreatePartitionsTopic_v0(r: Reader) -> CreatePartitionsTopic:
    name = r.string()
    count = r.int32()
    _n = r.array_length()
    assignments = None if _n < 0 else [_read_CreatePartitionsAssignment_v0(r) for _ in range(_n)]
    return CreatePartitionsTopic(name=name, count=count, assignments=assignments)


def _write_CreatePartitionsTopic_v0(w: Writer, m: CreatePartitionsTopic) -> None:
    write_string(w, m.name)
    w += _S_i.pack(m.count)
    _v = m.assignments
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_CreatePartitionsAssignment_v0(w, _e)


def _read_CreatePartitionsTopic_v2(r: Reader) -> CreatePartitionsTopic:
    name = r.compact_string()
    count = r.int32()
    _n = r.compact_array_length()
    assignments = None if _n < 0 else [_read_CreatePartitionsAssignment_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return CreatePartitionsTopic(name=name, count=count, assignments=assignments, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatePartitionsTopic_v2(w: Writer, m: CreatePartitionsTopic) -> None:
    write_compact_string(w, m.name)
    w += _S_i.pack(m.count)
    _v = m.assignments
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_CreatePartitionsAssignment_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> CreatePartitionsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreatePartitionsRequest.Topics is null")
    topics = [_read_CreatePartitionsTopic_v0(r) for _ in range(_n)]
    timeout_ms, validate_only = r.unpack(_S_ix)
    return CreatePartitionsRequest(topics=topics, timeout_ms=timeout_ms, validate_only=validate_only)


def write_v0(w: Writer, m: CreatePartitionsRequest) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatePartitionsTopic_v0(w, _e)
    w += _S_ix.pack(m.timeout_ms, m.validate_only)


def read_v2(r: Reader) -> CreatePartitionsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreatePartitionsRequest.Topics is null")
    topics = [_read_CreatePartitionsTopic_v2(r) for _ in range(_n)]
    timeout_ms, validate_only = r.unpack(_S_ix)
    unknown_tagged_fields = r.tagged_fields()
    return CreatePartitionsRequest(topics=topics, timeout_ms=timeout_ms, validate_only=validate_only, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: CreatePartitionsRequest) -> None:
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CreatePartitionsTopic_v2(w, _e)
    w += _S_ix.pack(m.timeout_ms, m.validate_only)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v3 = read_v2
write_v3 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> CreatePartitionsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: CreatePartitionsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> CreatePartitionsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: CreatePartitionsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
