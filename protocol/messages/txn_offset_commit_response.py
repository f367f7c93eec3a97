# Generated from TxnOffsetCommitResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "TxnOffsetCommitResponse"
API_KEY = 28
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (3, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class TxnOffsetCommitResponsePartition:
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TxnOffsetCommitResponseTopic:
    name: str = ""
    partitions: list[TxnOffsetCommitResponsePartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TxnOffsetCommitResponse:
    throttle_time_ms: int = 0
    topics: list[TxnOffsetCommitResponseTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TxnOffsetCommitResponsePartition_v0(r: Reader) -> TxnOffsetCommitResponsePartition:
    partition_index, error_code = r.unpack(_S_ih)
    return TxnOffsetCommitResponsePartition(partition_index=partition_index, error_code=error_code)


def _write_TxnOffsetCommitResponsePartition_v0(w: Writer, m: TxnOffsetCommitResponsePartition) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)


def _read_TxnOffsetCommitResponsePartition_v3(r: Reader) -> TxnOffsetCommitResponsePartition:
    partition_index, error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return TxnOffsetCommitResponsePartition(partition_index=partition_index, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_TxnOffsetCommitResponsePartition_v3(w: Writer, m: TxnOffsetCommitResponsePartition) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TxnOffsetCommitResponseTopic_v0(r: Reader) -> TxnOffsetCommitResponseTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitResponse.Partitions is null")
    partitions = [_read_TxnOffsetCommitResponsePartition_v0(r) for _ in range(_n)]
    return TxnOffsetCommitResponseTopic(name=name, partitions=partitions)


def _write_TxnOffsetCommitResponseTopic_v0(w: Writer, m: TxnOffsetCommitResponseTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TxnOffsetCommitResponsePartition_v0(w, _e)


def _read_TxnOffsetCommitResponseTopic_v3(r: Reader) -> TxnOffsetCommitResponseTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitResponse.Partitions is null")
    partitions = [_read_TxnOffsetCommitResponsePartition_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TxnOffsetCommitResponseTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TxnOffsetCommitResponseTopic_v3(w: Writer, m: TxnOffsetCommitResponseTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TxnOffsetCommitResponsePartition_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> TxnOffsetCommitResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitResponse.Topics is null")
    topics = [_read_TxnOffsetCommitResponseTopic_v0(r) for _ in range(_n)]
    return TxnOffsetCommitResponse(throttle_time_ms=throttle_time_ms, topics=topics)


def write_v0(w: Writer, m: TxnOffsetCommitResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TxnOffsetCommitResponseTopic_v0(w, _e)


def read_v3(r: Reader) -> TxnOffsetCommitResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitResponse.Topics is null")
    topics = [_read_TxnOffsetCommitResponseTopic_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TxnOffsetCommitResponse(throttle_time_ms=throttle_time_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: TxnOffsetCommitResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TxnOffsetCommitResponseTopic_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v4 = read_v3
write_v4 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> TxnOffsetCommitResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: TxnOffsetCommitResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> TxnOffsetCommitResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: TxnOffsetCommitResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
