# Generated from DeleteRecordsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DeleteRecordsRequest"
API_KEY = 21
TYPE = "request"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iq = _struct.Struct(">iq")


@dataclass(slots=True)
class DeleteRecordsPartition:
    partition_index: int = 0
    offset: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteRecordsTopic:
    name: str = ""
    partitions: list[DeleteRecordsPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteRecordsRequest:
    topics: list[DeleteRecordsTopic] = _field(default_factory=list)
    timeout_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DeleteRecordsPartition_v0(r: Reader) -> DeleteRecordsPartition:
    partition_index, offset = r.unpack(_S_iq)
    return DeleteRecordsPartition(partition_index=partition_index, offset=offset)


def _write_DeleteRecordsPartition_v0(w: Writer, m: DeleteRecordsPartition) -> None:
    w += _S_iq.pack(m.partition_index, m.offset)


def _read_DeleteRecordsPartition_v2(r: Reader) -> DeleteRecordsPartition:
    partition_index, offset = r.unpack(_S_iq)
    unknown_tagged_fields = r.tagged_fields()
    return DeleteRecordsPartition(partition_index=partition_index, offset=offset, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteRecordsPartition_v2(w: Writer, m: DeleteRecordsPartition) -> None:
    w += _S_iq.pack(m.partition_index, m.offset)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DeleteRecordsTopic_v0(r: Reader) -> DeleteRecordsTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteRecordsRequest.Partitions is null")
    partitions = [_read_DeleteRecordsPartition_v0(r) for _ in range(_n)]
    return DeleteRecordsTopic(name=name, partitions=partitions)


def _write_DeleteRecordsTopic_v0(w: Writer, m: DeleteRecordsTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteRecordsPartition_v0(w, _e)


def _read_DeleteRecordsTopic_v2(r: Reader) -> DeleteRecordsTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteRecordsRequest.Partitions is null")
    partitions = [_read_DeleteRecordsPartition_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteRecordsTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteRecordsTopic_v2(w: Writer, m: DeleteRecordsTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteRecordsPartition_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DeleteRecordsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteRecordsRequest.Topics is null")
    topics = [_read_DeleteRecordsTopic_v0(r) for _ in range(_n)]
    timeout_ms = r.int32()
    return DeleteRecordsRequest(topics=topics, timeout_ms=timeout_ms)


def write_v0(w: Writer, m: DeleteRecordsRequest) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteRecordsTopic_v0(w, _e)
    w += _S_i.pack(m.timeout_ms)


def read_v2(r: Reader) -> DeleteRecordsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteRecordsRequest.Topics is null")
    topics = [_read_DeleteRecordsTopic_v2(r) for _ in range(_n)]
    timeout_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DeleteRecordsRequest(topics=topics, timeout_ms=timeout_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DeleteRecordsRequest) -> None:
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteRecordsTopic_v2(w, _e)
    w += _S_i.pack(m.timeout_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> DeleteRecordsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteRecordsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteRecordsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteRecordsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
