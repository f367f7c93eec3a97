# Generated from DescribeLogDirsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DescribeLogDirsResponse"
API_KEY = 35
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (2, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_iqqx = _struct.Struct(">iqq?")
_S_qq = _struct.Struct(">qq")


@dataclass(slots=True)
class DescribeLogDirsPartition:
    partition_index: int = 0
    partition_size: int = 0
    offset_lag: int = 0
    is_future_key: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeLogDirsTopic:
    name: str = ""
    partitions: list[DescribeLogDirsPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeLogDirsResult:
    error_code: int = 0
    log_dir: str = ""
    topics: list[DescribeLogDirsTopic] = _field(default_factory=list)
    total_bytes: int = -1
    usable_bytes: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeLogDirsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    results: list[DescribeLogDirsResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribeLogDirsPartition_v0(r: Reader) -> DescribeLogDirsPartition:
    partition_index, partition_size, offset_lag, is_future_key = r.unpack(_S_iqqx)
    return DescribeLogDirsPartition(partition_index=partition_index, partition_size=partition_size, offset_lag=offset_lag, is_future_key=is_future_key)


def _write_DescribeLogDirsPartition_v0(w: Writer, m: DescribeLogDirsPartition) -> None:
    w += _S_iqqx.pack(m.partition_index, m.partition_size, m.offset_lag, m.is_future_key)


def _read_DescribeLogDirsPartition_v2(r: Reader) -> DescribeLogDirsPartition:
    partition_index, partition_size, offset_lag, is_future_key = r.unpack(_S_iqqx)
    unknown_tagged_fields = r.tagged_fields()
    return DescribeLogDirsPartition(partition_index=partition_index, partition_size=partition_size, offset_lag=offset_lag, is_future_key=is_future_key, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeLogDirsPartition_v2(w: Writer, m: DescribeLogDirsPartition) -> None:
    w += _S_iqqx.pack(m.partition_index, m.partition_size, m.offset_lag, m.is_future_key)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribeLogDirsTopic_v0(r: Reader) -> DescribeLogDirsTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Partitions is null")
    partitions = [_read_DescribeLogDirsPartition_v0(r) for _ in range(_n)]
    return DescribeLogDirsTopic(name=name, partitions=partitions)


def _write_DescribeLogDirsTopic_v0(w: Writer, m: DescribeLogDirsTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeLogDirsPartition_v0(w, _e)


def _read_DescribeLogDirsTopic_v2(r: Reader) -> DescribeLogDirsTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Partitions is null")
    partitions = [_read_DescribeLogDirsPartition_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeLogDirsTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeLogDirsTopic_v2(w: Writer, m: DescribeLogDirsTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeLogDirsPartition_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribeLogDirsResult_v0(r: Reader) -> DescribeLogDirsResult:
    error_code = r.int16()
    log_dir = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Topics is null")
    topics = [_read_DescribeLogDirsTopic_v0(r) for _ in range(_n)]
    return DescribeLogDirsResult(error_code=error_code, log_dir=log_dir, topics=topics)


def _write_DescribeLogDirsResult_v0(w: Writer, m: DescribeLogDirsResult) -> None:
    w += _S_h.pack(m.error_code)
    write_string(w, m.log_dir)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeLogDirsTopic_v0(w, _e)


def _read_DescribeLogDirsResult_v2(r: Reader) -> DescribeLogDirsResult:
    error_code = r.int16()
    log_dir = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Topics is null")
    topics = [_read_DescribeLogDirsTopic_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeLogDirsResult(error_code=error_code, log_dir=log_dir, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeLogDirsResult_v2(w: Writer, m: DescribeLogDirsResult) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_string(w, m.log_dir)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeLogDirsTopic_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DescribeLogDirsResult_v4(r: Reader) -> DescribeLogDirsResult:
    error_code = r.int16()
    log_dir = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Topics is null")
    topics = [_read_DescribeLogDirsTopic_v2(r) for _ in range(_n)]
    total_bytes, usable_bytes = r.unpack(_S_qq)
    unknown_tagged_fields = r.tagged_fields()
    return DescribeLogDirsResult(error_code=error_code, log_dir=log_dir, topics=topics, total_bytes=total_bytes, usable_bytes=usable_bytes, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeLogDirsResult_v4(w: Writer, m: DescribeLogDirsResult) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_string(w, m.log_dir)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeLogDirsTopic_v2(w, _e)
    w += _S_qq.pack(m.total_bytes, m.usable_bytes)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeLogDirsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Results is null")
    results = [_read_DescribeLogDirsResult_v0(r) for _ in range(_n)]
    return DescribeLogDirsResponse(throttle_time_ms=throttle_time_ms, results=results)


def write_v0(w: Writer, m: DescribeLogDirsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_DescribeLogDirsResult_v0(w, _e)


def read_v2(r: Reader) -> DescribeLogDirsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Results is null")
    results = [_read_DescribeLogDirsResult_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeLogDirsResponse(throttle_time_ms=throttle_time_ms, results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DescribeLogDirsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeLogDirsResult_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v3(r: Reader) -> DescribeLogDirsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Results is null")
    results = [_read_DescribeLogDirsResult_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeLogDirsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: DescribeLogDirsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeLogDirsResult_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v4(r: Reader) -> DescribeLogDirsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsResponse.Results is null")
    results = [_read_DescribeLogDirsResult_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeLogDirsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: DescribeLogDirsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeLogDirsResult_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> DescribeLogDirsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeLogDirsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeLogDirsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeLogDirsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
