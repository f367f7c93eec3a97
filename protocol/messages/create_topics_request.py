# Generated from CreateTopicsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "CreateTopicsRequest"
API_KEY = 19
TYPE = "request"
VALID_VERSIONS = (0, 7)
FLEXIBLE_VERSIONS = (5, 7)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_ix = _struct.Struct(">i?")


@dataclass(slots=True)
class CreatableReplicaAssignment:
    partition_index: int = 0
    broker_ids: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreatableTopicConfig:
    name: str = ""
    value: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreatableTopic:
    name: str = ""
    num_partitions: int = 0
    replication_factor: int = 0
    assignments: list[CreatableReplicaAssignment] = _field(default_factory=list)
    configs: list[CreatableTopicConfig] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreateTopicsRequest:
    topics: list[CreatableTopic] = _field(default_factory=list)
    timeout_ms: int = 60000
    validate_only: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_CreatableReplicaAssignment_v0(r: Reader) -> CreatableReplicaAssignment:
    partition_index = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.BrokerIds is null")
    broker_ids = r.fixed_array("i", _n)
    return CreatableReplicaAssignment(partition_index=partition_index, broker_ids=broker_ids)


def _write_CreatableReplicaAssignment_v0(w: Writer, m: CreatableReplicaAssignment) -> None:
    w += _S_i.pack(m.partition_index)
    _v = m.broker_ids
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_CreatableReplicaAssignment_v5(r: Reader) -> CreatableReplicaAssignment:
    partition_index = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.BrokerIds is null")
    broker_ids = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return CreatableReplicaAssignment(partition_index=partition_index, broker_ids=broker_ids, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatableReplicaAssignment_v5(w: Writer, m: CreatableReplicaAssignment) -> None:
    w += _S_i.pack(m.partition_index)
    _v = m.broker_ids
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_CreatableTopicConfig_v0(r: Reader) -> CreatableTopicConfig:
    name = r.string()
    value = r.nullable_string()
    return CreatableTopicConfig(name=name, value=value)


def _write_CreatableTopicConfig_v0(w: Writer, m: CreatableTopicConfig) -> None:
    write_string(w, m.name)
    write_nullable_string(w, m.value)


def _read_CreatableTopicConfig_v5(r: Reader) -> CreatableTopicConfig:
    name = r.compact_string()
    value = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return CreatableTopicConfig(name=name, value=value, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatableTopicConfig_v5(w: Writer, m: CreatableTopicConfig) -> None:
    write_compact_string(w, m.name)
    write_compact_nullable_string(w, m.value)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_CreatableTopic_v0(r: Reader) -> CreatableTopic:
    name = r.string()
    num_partitions, replication_factor = r.unpack(_S_ih)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.Assignments is null")
    assignments = [_read_CreatableReplicaAssignment_v0(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.Configs is null")
    configs = [_read_CreatableTopicConfig_v0(r) for _ in range(_n)]
    return CreatableTopic(name=name, num_partitions=num_partitions, replication_factor=replication_factor, assignments=assignments, configs=configs)


def _write_CreatableTopic_v0(w: Writer, m: CreatableTopic) -> None:
    write_string(w, m.name)
    w += _S_ih.pack(m.num_partitions, m.replication_factor)
    _v = m.assignments
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatableReplicaAssignment_v0(w, _e)
    _v = m.configs
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatableTopicConfig_v0(w, _e)


def _read_CreatableTopic_v5(r: Reader) -> CreatableTopic:
    name = r.compact_string()
    num_partitions, replication_factor = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.Assignments is null")
    assignments = [_read_CreatableReplicaAssignment_v5(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.Configs is null")
    configs = [_read_CreatableTopicConfig_v5(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return CreatableTopic(name=name, num_partitions=num_partitions, replication_factor=replication_factor, assignments=assignments, configs=configs, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatableTopic_v5(w: Writer, m: CreatableTopic) -> None:
    write_compact_string(w, m.name)
    w += _S_ih.pack(m.num_partitions, m.replication_factor)
    _v = m.assignments
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CreatableReplicaAssignment_v5(w, _e)
    _v = m.configs
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CreatableTopicConfig_v5(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> CreateTopicsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.Topics is null")
    topics = [_read_CreatableTopic_v0(r) for _ in range(_n)]
    timeout_ms = r.int32()
    return CreateTopicsRequest(topics=topics, timeout_ms=timeout_ms)


def write_v0(w: Writer, m: CreateTopicsRequest) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatableTopic_v0(w, _e)
    w += _S_i.pack(m.timeout_ms)


def read_v1(r: Reader) -> CreateTopicsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.Topics is null")
    topics = [_read_CreatableTopic_v0(r) for _ in range(_n)]
    timeout_ms, validate_only = r.unpack(_S_ix)
    return CreateTopicsRequest(topics=topics, timeout_ms=timeout_ms, validate_only=validate_only)


def write_v1(w: Writer, m: CreateTopicsRequest) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatableTopic_v0(w, _e)
    w += _S_ix.pack(m.timeout_ms, m.validate_only)


def read_v5(r: Reader) -> CreateTopicsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsRequest.Topics is null")
    topics = [_read_CreatableTopic_v5(r) for _ in range(_n)]
    timeout_ms, validate_only = r.unpack(_S_ix)
    unknown_tagged_fields = r.tagged_fields()
    return CreateTopicsRequest(topics=topics, timeout_ms=timeout_ms, validate_only=validate_only, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: CreateTopicsRequest) -> None:
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CreatableTopic_v5(w, _e)
    w += _S_ix.pack(m.timeout_ms, m.validate_only)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1
read_v3 = read_v1
write_v3 = write_v1
read_v4 = read_v1
write_v4 = write_v1
read_v6 = read_v5
write_v6 = write_v5
read_v7 = read_v5
write_v7 = write_v5

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7}


def read(r: Reader, version: int) -> CreateTopicsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: CreateTopicsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> CreateTopicsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: CreateTopicsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
