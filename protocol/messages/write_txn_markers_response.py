# Generated from WriteTxnMarkersResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "WriteTxnMarkersResponse"
API_KEY = 27
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_q = _struct.Struct(">q")


@dataclass(slots=True)
class WritableTxnMarkerPartitionResult:
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class WritableTxnMarkerTopicResult:
    name: str = ""
    partitions: list[WritableTxnMarkerPartitionResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class WritableTxnMarkerResult:
    producer_id: int = 0
    topics: list[WritableTxnMarkerTopicResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class WriteTxnMarkersResponse:
    markers: list[WritableTxnMarkerResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_WritableTxnMarkerPartitionResult_v0(r: Reader) -> WritableTxnMarkerPartitionResult:
    partition_index, error_code = r.unpack(_S_ih)
    return WritableTxnMarkerPartitionResult(partition_index=partition_index, error_code=error_code)


def _write_WritableTxnMarkerPartitionResult_v0(w: Writer, m: WritableTxnMarkerPartitionResult) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)


def _read_WritableTxnMarkerPartitionResult_v1(r: Reader) -> WritableTxnMarkerPartitionResult:
    partition_index, error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return WritableTxnMarkerPartitionResult(partition_index=partition_index, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_WritableTxnMarkerPartitionResult_v1(w: Writer, m: WritableTxnMarkerPartitionResult) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_WritableTxnMarkerTopicResult_v0(r: Reader) -> WritableTxnMarkerTopicResult:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersResponse.Partitions is null")
    partitions = [_read_WritableTxnMarkerPartitionResult_v0(r) for _ in range(_n)]
    return WritableTxnMarkerTopicResult(name=name, partitions=partitions)


def _write_WritableTxnMarkerTopicResult_v0(w: Writer, m: WritableTxnMarkerTopicResult) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_WritableTxnMarkerPartitionResult_v0(w, _e)


def _read_WritableTxnMarkerTopicResult_v1(r: Reader) -> WritableTxnMarkerTopicResult:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersResponse.Partitions is null")
    partitions = [_read_WritableTxnMarkerPartitionResult_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return WritableTxnMarkerTopicResult(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_WritableTxnMarkerTopicResult_v1(w: Writer, m: WritableTxnMarkerTopicResult) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_WritableTxnMarkerPartitionResult_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_WritableTxnMarkerResult_v0(r: Reader) -> WritableTxnMarkerResult:
    producer_id = r.int64()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersResponse.Topics is null")
    topics = [_read_WritableTxnMarkerTopicResult_v0(r) for _ in range(_n)]
    return WritableTxnMarkerResult(producer_id=producer_id, topics=topics)


def _write_WritableTxnMarkerResult_v0(w: Writer, m: WritableTxnMarkerResult) -> None:
    w += _S_q.pack(m.producer_id)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_WritableTxnMarkerTopicResult_v0(w, _e)


def _read_WritableTxnMarkerResult_v1(r: Reader) -> WritableTxnMarkerResult:
    producer_id = r.int64()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersResponse.Topics is null")
    topics = [_read_WritableTxnMarkerTopicResult_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return WritableTxnMarkerResult(producer_id=producer_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def _write_WritableTxnMarkerResult_v1(w: Writer, m: WritableTxnMarkerResult) -> None:
    w += _S_q.pack(m.producer_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_WritableTxnMarkerTopicResult_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> WriteTxnMarkersResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersResponse.Markers is null")
    markers = [_read_WritableTxnMarkerResult_v0(r) for _ in range(_n)]
    return WriteTxnMarkersResponse(markers=markers)


def write_v0(w: Writer, m: WriteTxnMarkersResponse) -> None:
    _v = m.markers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_WritableTxnMarkerResult_v0(w, _e)


def read_v1(r: Reader) -> WriteTxnMarkersResponse:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersResponse.Markers is null")
    markers = [_read_WritableTxnMarkerResult_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return WriteTxnMarkersResponse(markers=markers, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: WriteTxnMarkersResponse) -> None:
    _v = m.markers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_WritableTxnMarkerResult_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> WriteTxnMarkersResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: WriteTxnMarkersResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> WriteTxnMarkersResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: WriteTxnMarkersResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
