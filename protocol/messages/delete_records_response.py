# Generated from DeleteRecordsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DeleteRecordsResponse"
API_KEY = 21
TYPE = "response"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iqh = _struct.Struct(">iqh")


@dataclass(slots=True)
class DeleteRecordsPartitionResult:
    partition_index: int = 0
    low_watermark: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteRecordsTopicResult:
    name: str = ""
    partitions: list[DeleteRecordsPartitionResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteRecordsResponse:
    throttle_time_ms: int = 0
    topics: list[DeleteRecordsTopicResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DeleteRecordsPartitionResult_v0(r: Reader) -> DeleteRecordsPartitionResult:
    partition_index, low_watermark, error_code = r.unpack(_S_iqh)
    return DeleteRecordsPartitionResult(partition_index=partition_index, low_watermark=low_watermark, error_code=error_code)


def _write_DeleteRecordsPartitionResult_v0(w: Writer, m: DeleteRecordsPartitionResult) -> None:
    w += _S_iqh.pack(m.partition_index, m.low_watermark, m.error_code)


def _read_DeleteRecordsPartitionResult_v2(r: Reader) -> DeleteRecordsPartitionResult:
    partition_index, low_watermark, error_code = r.unpack(_S_iqh)
    unknown_tagged_fields = r.tagged_fields()
    return DeleteRecordsPartitionResult(partition_index=partition_index, low_watermark=low_watermark, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteRecordsPartitionResult_v2(w: Writer, m: DeleteRecordsPartitionResult) -> None:
    w += _S_iqh.pack(m.partition_index, m.low_watermark, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DeleteRecordsTopicResult_v0(r: Reader) -> DeleteRecordsTopicResult:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteRecordsResponse.Partitions is null")
    partitions = [_read_DeleteRecordsPartitionResult_v0(r) for _ in range(_n)]
    return DeleteRecordsTopicResult(name=name, partitions=partitions)


def _write_DeleteRecordsTopicResult_v0(w: Writer, m: DeleteRecordsTopicResult) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteRecordsPartitionResult_v0(w, _e)


def _read_DeleteRecordsTopicResult_v2(r: Reader) -> DeleteRecordsTopicResult:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteRecordsResponse.Partitions is null")
    partitions = [_read_DeleteRecordsPartitionResult_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteRecordsTopicResult(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteRecordsTopicResult_v2(w: Writer, m: DeleteRecordsTopicResult) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteRecordsPartitionResult_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DeleteRecordsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteRecordsResponse.Topics is null")
    topics = [_read_DeleteRecordsTopicResult_v0(r) for _ in range(_n)]
    return DeleteRecordsResponse(throttle_time_ms=throttle_time_ms, topics=topics)


def write_v0(w: Writer, m: DeleteRecordsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DeleteRecordsTopicResult_v0(w, _e)


def read_v2(r: Reader) -> DeleteRecordsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteRecordsResponse.Topics is null")
    topics = [_read_DeleteRecordsTopicResult_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteRecordsResponse(throttle_time_ms=throttle_time_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DeleteRecordsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteRecordsTopicResult_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> DeleteRecordsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteRecordsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteRecordsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteRecordsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
