# Generated from OffsetForLeaderEpochResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "OffsetForLeaderEpochResponse"
API_KEY = 23
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (4, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_hiiq = _struct.Struct(">hiiq")
_S_hiq = _struct.Struct(">hiq")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class EpochEndOffset:
    error_code: int = 0
    partition: int = 0
    leader_epoch: int = -1
    end_offset: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetForLeaderTopicResult:
    topic: str = ""
    partitions: list[EpochEndOffset] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetForLeaderEpochResponse:
    throttle_time_ms: int = 0
    topics: list[OffsetForLeaderTopicResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_EpochEndOffset_v0(r: Reader) -> EpochEndOffset:
    error_code, partition, end_offset = r.unpack(_S_hiq)
    return EpochEndOffset(error_code=error_code, partition=partition, end_offset=end_offset)


def _write_EpochEndOffset_v0(w: Writer, m: EpochEndOffset) -> None:
    w += _S_hiq.pack(m.error_code, m.partition, m.end_offset)


def _read_EpochEndOffset_v1(r: Reader) -> EpochEndOffset:
    error_code, partition, leader_epoch, end_offset = r.unpack(_S_hiiq)
    return EpochEndOffset(error_code=error_code, partition=partition, leader_epoch=leader_epoch, end_offset=end_offset)


def _write_EpochEndOffset_v1(w: Writer, m: EpochEndOffset) -> None:
    w += _S_hiiq.pack(m.error_code, m.partition, m.leader_epoch, m.end_offset)


def _read_EpochEndOffset_v4(r: Reader) -> EpochEndOffset:
    error_code, partition, leader_epoch, end_offset = r.unpack(_S_hiiq)
    unknown_tagged_fields = r.tagged_fields()
    return EpochEndOffset(error_code=error_code, partition=partition, leader_epoch=leader_epoch, end_offset=end_offset, unknown_tagged_fields=unknown_tagged_fields)


def _write_EpochEndOffset_v4(w: Writer, m: EpochEndOffset) -> None:
    w += _S_hiiq.pack(m.error_code, m.partition, m.leader_epoch, m.end_offset)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_OffsetForLeaderTopicResult_v0(r: Reader) -> OffsetForLeaderTopicResult:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochResponse.Partitions is null")
    partitions = [_read_EpochEndOffset_v0(r) for _ in range(_n)]
    return OffsetForLeaderTopicResult(topic=topic, partitions=partitions)


def _write_OffsetForLeaderTopicResult_v0(w: Writer, m: OffsetForLeaderTopicResult) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_EpochEndOffset_v0(w, _e)


def _read_OffsetForLeaderTopicResult_v1(r: Reader) -> OffsetForLeaderTopicResult:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochResponse.Partitions is null")
    partitions = [_read_EpochEndOffset_v1(r) for _ in range(_n)]
    return OffsetForLeaderTopicResult(topic=topic, partitions=partitions)


def _write_OffsetForLeaderTopicResult_v1(w: Writer, m: OffsetForLeaderTopicResult) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_EpochEndOffset_v1(w, _e)


def _read_OffsetForLeaderTopicResult_v4(r: Reader) -> OffsetForLeaderTopicResult:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochResponse.Partitions is null")
    partitions = [_read_EpochEndOffset_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetForLeaderTopicResult(topic=topic, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_OffsetForLeaderTopicResult_v4(w: Writer, m: OffsetForLeaderTopicResult) -> None:
    write_compact_string(w, m.topic)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_EpochEndOffset_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> OffsetForLeaderEpochResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochResponse.Topics is null")
    topics = [_read_OffsetForLeaderTopicResult_v0(r) for _ in range(_n)]
    return OffsetForLeaderEpochResponse(topics=topics)


def write_v0(w: Writer, m: OffsetForLeaderEpochResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetForLeaderTopicResult_v0(w, _e)


def read_v1(r: Reader) -> OffsetForLeaderEpochResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochResponse.Topics is null")
    topics = [_read_OffsetForLeaderTopicResult_v1(r) for _ in range(_n)]
    return OffsetForLeaderEpochResponse(topics=topics)


def write_v1(w: Writer, m: OffsetForLeaderEpochResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetForLeaderTopicResult_v1(w, _e)


def read_v2(r: Reader) -> OffsetForLeaderEpochResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochResponse.Topics is null")
    topics = [_read_OffsetForLeaderTopicResult_v1(r) for _ in range(_n)]
    return OffsetForLeaderEpochResponse(throttle_time_ms=throttle_time_ms, topics=topics)


def write_v2(w: Writer, m: OffsetForLeaderEpochResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetForLeaderTopicResult_v1(w, _e)


def read_v4(r: Reader) -> OffsetForLeaderEpochResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetForLeaderEpochResponse.Topics is null")
    topics = [_read_OffsetForLeaderTopicResult_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return OffsetForLeaderEpochResponse(throttle_time_ms=throttle_time_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: OffsetForLeaderEpochResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_OffsetForLeaderTopicResult_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v3 = read_v2
write_v3 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> OffsetForLeaderEpochResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetForLeaderEpochResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetForLeaderEpochResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetForLeaderEpochResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
