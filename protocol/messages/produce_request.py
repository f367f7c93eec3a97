# Generated from ProduceRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    RecordsData,
    Writer,
    decode_message,
    encode_message,
    write_compact_nullable_string,
    write_compact_records,
    write_compact_string,
    write_nullable_string,
    write_records,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ProduceRequest"
API_KEY = 0
TYPE = "request"
VALID_VERSIONS = (0, 11)
FLEXIBLE_VERSIONS = (9, 11)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_hi = _struct.Struct(">hi")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class PartitionProduceData:
    index: int = 0
    records: RecordsData | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicProduceData:
    name: str = ""
    partition_data: list[PartitionProduceData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ProduceRequest:
    transactional_id: str | None = None
    acks: int = 0
    timeout_ms: int = 0
    topic_data: list[TopicProduceData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionProduceData_v0(r: Reader) -> PartitionProduceData:
    index = r.int32()
    records = r.records()
    return PartitionProduceData(index=index, records=records)


def _write_PartitionProduceData_v0(w: Writer, m: PartitionProduceData) -> None:
    w += _S_i.pack(m.index)
    write_records(w, m.records)


def _read_PartitionProduceData_v9(r: Reader) -> PartitionProduceData:
    index = r.int32()
    records = r.compact_records()
    unknown_tagged_fields = r.tagged_fields()
    return PartitionProduceData(index=index, records=records, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionProduceData_v9(w: Writer, m: PartitionProduceData) -> None:
    w += _S_i.pack(m.index)
    write_compact_records(w, m.records)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicProduceData_v0(r: Reader) -> TopicProduceData:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceRequest.PartitionData is null")
    partition_data = [_read_PartitionProduceData_v0(r) for _ in range(_n)]
    return TopicProduceData(name=name, partition_data=partition_data)


def _write_TopicProduceData_v0(w: Writer, m: TopicProduceData) -> None:
    write_string(w, m.name)
    _v = m.partition_data
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionProduceData_v0(w, _e)


def _read_TopicProduceData_v9(r: Reader) -> TopicProduceData:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceRequest.PartitionData is null")
    partition_data = [_read_PartitionProduceData_v9(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicProduceData(name=name, partition_data=partition_data, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicProduceData_v9(w: Writer, m: TopicProduceData) -> None:
    write_compact_string(w, m.name)
    _v = m.partition_data
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionProduceData_v9(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ProduceRequest:
    acks, timeout_ms = r.unpack(_S_hi)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceRequest.TopicData is null")
    topic_data = [_read_TopicProduceData_v0(r) for _ in range(_n)]
    return ProduceRequest(acks=acks, timeout_ms=timeout_ms, topic_data=topic_data)


def write_v0(w: Writer, m: ProduceRequest) -> None:
    w += _S_hi.pack(m.acks, m.timeout_ms)
    _v = m.topic_data
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicProduceData_v0(w, _e)


def read_v3(r: Reader) -> ProduceRequest:
    transactional_id = r.nullable_string()
    acks, timeout_ms = r.unpack(_S_hi)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceRequest.TopicData is null")
    topic_data = [_read_TopicProduceData_v0(r) for _ in range(_n)]
    return ProduceRequest(transactional_id=transactional_id, acks=acks, timeout_ms=timeout_ms, topic_data=topic_data)


def write_v3(w: Writer, m: ProduceRequest) -> None:
    write_nullable_string(w, m.transactional_id)
    w += _S_hi.pack(m.acks, m.timeout_ms)
    _v = m.topic_data
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicProduceData_v0(w, _e)


def read_v9(r: Reader) -> ProduceRequest:
    transactional_id = r.compact_nullable_string()
    acks, timeout_ms = r.unpack(_S_hi)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceRequest.TopicData is null")
    topic_data = [_read_TopicProduceData_v9(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ProduceRequest(transactional_id=transactional_id, acks=acks, timeout_ms=timeout_ms, topic_data=topic_data, unknown_tagged_fields=unknown_tagged_fields)


def write_v9(w: Writer, m: ProduceRequest) -> None:
    write_compact_nullable_string(w, m.transactional_id)
    w += _S_hi.pack(m.acks, m.timeout_ms)
    _v = m.topic_data
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicProduceData_v9(w, _e)
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
read_v8 = read_v3
write_v8 = write_v3
read_v10 = read_v9
write_v10 = write_v9
read_v11 = read_v9
write_v11 = write_v9

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9, 10: read_v10, 11: read_v11}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9, 10: write_v10, 11: write_v11}


def read(r: Reader, version: int) -> ProduceRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ProduceRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ProduceRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ProduceRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
