# Generated from DescribeProducersResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeProducersResponse"
API_KEY = 61
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_qiiqiq = _struct.Struct(">qiiqiq")


@dataclass(slots=True)
class ProducerState:
    producer_id: int = 0
    producer_epoch: int = 0
    last_sequence: int = -1
    last_timestamp: int = -1
    coordinator_epoch: int = 0
    current_txn_start_offset: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionResponse:
    partition_index: int = 0
    error_code: int = 0
    error_message: str | None = None
    active_producers: list[ProducerState] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicResponse:
    name: str = ""
    partitions: list[PartitionResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeProducersResponse:
    throttle_time_ms: int = 0
    topics: list[TopicResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ProducerState_v0(r: Reader) -> ProducerState:
    producer_id, producer_epoch, last_sequence, last_timestamp, coordinator_epoch, current_txn_start_offset = r.unpack(_S_qiiqiq)
    unknown_tagged_fields = r.tagged_fields()
    return ProducerState(producer_id=producer_id, producer_epoch=producer_epoch, last_sequence=last_sequence, last_timestamp=last_timestamp, coordinator_epoch=coordinator_epoch, current_txn_start_offset=current_txn_start_offset, unknown_tagged_fields=unknown_tagged_fields)


def _write_ProducerState_v0(w: Writer, m: ProducerState) -> None:
    w += _S_qiiqiq.pack(m.producer_id, m.producer_epoch, m.last_sequence, m.last_timestamp, m.coordinator_epoch, m.current_txn_start_offset)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionResponse_v0(r: Reader) -> PartitionResponse:
    partition_index, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeProducersResponse.ActiveProducers is null")
    active_producers = [_read_ProducerState_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return PartitionResponse(partition_index=partition_index, error_code=error_code, error_message=error_message, active_producers=active_producers, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionResponse_v0(w: Writer, m: PartitionResponse) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.active_producers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ProducerState_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicResponse_v0(r: Reader) -> TopicResponse:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeProducersResponse.Partitions is null")
    partitions = [_read_PartitionResponse_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicResponse(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicResponse_v0(w: Writer, m: TopicResponse) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionResponse_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeProducersResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeProducersResponse.Topics is null")
    topics = [_read_TopicResponse_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeProducersResponse(throttle_time_ms=throttle_time_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeProducersResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicResponse_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DescribeProducersResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeProducersResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeProducersResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeProducersResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
