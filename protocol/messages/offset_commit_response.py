# Generated from OffsetCommitResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "OffsetCommitResponse"
API_KEY = 8
TYPE = "response"
VALID_VERSIONS = (0, 9)
FLEXIBLE_VERSIONS = (8, 9)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class OffsetCommitResponsePartition:
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetCommitResponseTopic:
    name: str = ""
    partitions: list[OffsetCommitResponsePartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetCommitResponse:
    throttle_time_ms: int = 0
    topics: list[OffsetCommitResponseTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_OffsetCommitResponsePartition_v0(r: Reader) -> OffsetCommitResponsePartition:
    partition_index, error_code = r.unpack(_S_ih)
    return OffsetCommitResponsePartition(partition_index=partition_index, error_code=error_code)


def _write_OffsetCommitResponsePartition_v0(w: Writer, m: OffsetCommitResponsePartition) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)


def _read_OffsetCommitResponsePartition_v8(r: Reader) -> OffsetCommitResponsePartition:
    partition_index, error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return OffsetCommitResponsePartition(partition_index=partition_index, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetCommitResponsePartition_v8(w: Writer, m: OffsetCommitResponsePartition) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetCommitResponseTopic_v0(r: Reader) -> OffsetCommitResponseTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitResponse.Partitions is null")
    partitions = [_read_OffsetCommitResponsePartition_v0(r) for _ in range(_n)]
    return OffsetCommitResponseTopic(name=name, partitions=partitions)


def _write_OffsetCommitResponseTopic_v0(w: Writer, m: OffsetCommitResponseTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitResponsePartition_v0(w, _e)


def _read_OffsetCommitResponseTopic_v8(r: Reader) -> OffsetCommitResponseTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitResponse.Partitions is null")
    partitions = [_read_OffsetCommitResponsePartition_v8(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetCommitResponseTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetCommitResponseTopic_v8(w: Writer, m: OffsetCommitResponseTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetCommitResponsePartition_v8(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> OffsetCommitResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitResponse.Topics is null")
    topics = [_read_OffsetCommitResponseTopic_v0(r) for _ in range(_n)]
    return OffsetCommitResponse(topics=topics)


def write_v0(w: Writer, m: OffsetCommitResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitResponseTopic_v0(w, _e)


def read_v3(r: Reader) -> OffsetCommitResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitResponse.Topics is null")
    topics = [_read_OffsetCommitResponseTopic_v0(r) for _ in range(_n)]
    return OffsetCommitResponse(throttle_time_ms=throttle_time_ms, topics=topics)


def write_v3(w: Writer, m: OffsetCommitResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetCommitResponseTopic_v0(w, _e)


def read_v8(r: Reader) -> OffsetCommitResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetCommitResponse.Topics is null")
    topics = [_read_OffsetCommitResponseTopic_v8(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetCommitResponse(throttle_time_ms=throttle_time_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v8(w: Writer, m: OffsetCommitResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetCommitResponseTopic_v8(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v4 = read_v3
write_v4 = write_v3
read_v5 = read_v3
write_v5 = write_v3
read_v6 = read_v3
write_v6 = write_v3
read_v7 = read_v3
write_v7 = write_v3
read_v9 = read_v8
write_v9 = write_v8

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9}


def read(r: Reader, version: int) -> OffsetCommitResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetCommitResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetCommitResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetCommitResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
