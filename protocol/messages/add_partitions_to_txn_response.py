# Generated from AddPartitionsToTxnResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "AddPartitionsToTxnResponse"
API_KEY = 24
TYPE = "response"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (3, 5)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class AddPartitionsToTxnPartitionResult:
    partition_index: int = 0
    partition_error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AddPartitionsToTxnTopicResult:
    name: str = ""
    results_by_partition: list[AddPartitionsToTxnPartitionResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AddPartitionsToTxnResult:
    transactional_id: str = ""
    topic_results: list[AddPartitionsToTxnTopicResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AddPartitionsToTxnResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    results_by_transaction: list[AddPartitionsToTxnResult] = _field(default_factory=list)
    results_by_topic_v3_and_below: list[AddPartitionsToTxnTopicResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AddPartitionsToTxnPartitionResult_v0(r: Reader) -> AddPartitionsToTxnPartitionResult:
    partition_index, partition_error_code = r.unpack(_S_ih)
    return AddPartitionsToTxnPartitionResult(partition_index=partition_index, partition_error_code=partition_error_code)


def _write_AddPartitionsToTxnPartitionResult_v0(w: Writer, m: AddPartitionsToTxnPartitionResult) -> None:
    w += _S_ih.pack(m.partition_index, m.partition_error_code)


def _read_AddPartitionsToTxnPartitionResult_v3(r: Reader) -> AddPartitionsToTxnPartitionResult:
    partition_index, partition_error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnPartitionResult(partition_index=partition_index, partition_error_code=partition_error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_AddPartitionsToTxnPartitionResult_v3(w: Writer, m: AddPartitionsToTxnPartitionResult) -> None:
    w += _S_ih.pack(m.partition_index, m.partition_error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_AddPartitionsToTxnTopicResult_v0(r: Reader) -> AddPartitionsToTxnTopicResult:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnResponse.ResultsByPartition is null")
    results_by_partition = [_read_AddPartitionsToTxnPartitionResult_v0(r) for _ in range(_n)]
    return AddPartitionsToTxnTopicResult(name=name, results_by_partition=results_by_partition)


def _write_AddPartitionsToTxnTopicResult_v0(w: Writer, m: AddPartitionsToTxnTopicResult) -> None:
    write_string(w, m.name)
    _v = m.results_by_partition
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AddPartitionsToTxnPartitionResult_v0(w, _e)


def _read_AddPartitionsToTxnTopicResult_v3(r: Reader) -> AddPartitionsToTxnTopicResult:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnResponse.ResultsByPartition is null")
    results_by_partition = [_read_AddPartitionsToTxnPartitionResult_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnTopicResult(name=name, results_by_partition=results_by_partition, unknown_tagged_fields=unknown_tagged_fields)


def _write_AddPartitionsToTxnTopicResult_v3(w: Writer, m: AddPartitionsToTxnTopicResult) -> None:
    write_compact_string(w, m.name)
    _v = m.results_by_partition
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AddPartitionsToTxnPartitionResult_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_AddPartitionsToTxnResult_v4(r: Reader) -> AddPartitionsToTxnResult:
    transactional_id = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnResponse.TopicResults is null")
    topic_results = [_read_AddPartitionsToTxnTopicResult_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnResult(transactional_id=transactional_id, topic_results=topic_results, unknown_tagged_fields=unknown_tagged_fields)


def _write_AddPartitionsToTxnResult_v4(w: Writer, m: AddPartitionsToTxnResult) -> None:
    write_compact_string(w, m.transactional_id)
    _v = m.topic_results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AddPartitionsToTxnTopicResult_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AddPartitionsToTxnResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnResponse.ResultsByTopicV3AndBelow is null")
    results_by_topic_v3_and_below = [_read_AddPartitionsToTxnTopicResult_v0(r) for _ in range(_n)]
    return AddPartitionsToTxnResponse(throttle_time_ms=throttle_time_ms, results_by_topic_v3_and_below=results_by_topic_v3_and_below)


def write_v0(w: Writer, m: AddPartitionsToTxnResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results_by_topic_v3_and_below
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AddPartitionsToTxnTopicResult_v0(w, _e)


def read_v3(r: Reader) -> AddPartitionsToTxnResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnResponse.ResultsByTopicV3AndBelow is null")
    results_by_topic_v3_and_below = [_read_AddPartitionsToTxnTopicResult_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnResponse(throttle_time_ms=throttle_time_ms, results_by_topic_v3_and_below=results_by_topic_v3_and_below, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: AddPartitionsToTxnResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.results_by_topic_v3_and_below
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AddPartitionsToTxnTopicResult_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v4(r: Reader) -> AddPartitionsToTxnResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnResponse.ResultsByTransaction is null")
    results_by_transaction = [_read_AddPartitionsToTxnResult_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, results_by_transaction=results_by_transaction, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: AddPartitionsToTxnResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.results_by_transaction
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AddPartitionsToTxnResult_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v5 = read_v4
write_v5 = write_v4

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> AddPartitionsToTxnResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AddPartitionsToTxnResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AddPartitionsToTxnResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AddPartitionsToTxnResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
