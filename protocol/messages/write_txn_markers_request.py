# Generated from WriteTxnMarkersRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "WriteTxnMarkersRequest"
API_KEY = 27
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_qhx = _struct.Struct(">qh?")


@dataclass(slots=True)
class WritableTxnMarkerTopic:
    name: str = ""
    partition_indexes: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class WritableTxnMarker:
    producer_id: int = 0
    producer_epoch: int = 0
    transaction_result: bool = False
    topics: list[WritableTxnMarkerTopic] = _field(default_factory=list)
    coordinator_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class WriteTxnMarkersRequest:
    markers: list[WritableTxnMarker] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_WritableTxnMarkerTopic_v0(r: Reader) -> WritableTxnMarkerTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersRequest.PartitionIndexes is null")
    partition_indexes = r.fixed_array("i", _n)
    return WritableTxnMarkerTopic(name=name, partition_indexes=partition_indexes)


def _write_WritableTxnMarkerTopic_v0(w: Writer, m: WritableTxnMarkerTopic) -> None:
    write_string(w, m.name)
    _v = m.partition_indexes
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_WritableTxnMarkerTopic_v1(r: Reader) -> WritableTxnMarkerTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersRequest.PartitionIndexes is null")
    partition_indexes = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return WritableTxnMarkerTopic(name=name, partition_indexes=partition_indexes, unknown_tagged_fields=unknown_tagged_fields)


def _write_WritableTxnMarkerTopic_v1(w: Writer, m: WritableTxnMarkerTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partition_indexes
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_WritableTxnMarker_v0(r: Reader) -> WritableTxnMarker:
    producer_id, producer_epoch, transaction_result = r.unpack(_S_qhx)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersRequest.Topics is null")
    topics = [_read_WritableTxnMarkerTopic_v0(r) for _ in range(_n)]
    coordinator_epoch = r.int32()
    return WritableTxnMarker(producer_id=producer_id, producer_epoch=producer_epoch, transaction_result=transaction_result, topics=topics, coordinator_epoch=coordinator_epoch)


def _write_WritableTxnMarker_v0(w: Writer, m: WritableTxnMarker) -> None:
    w += _S_qhx.pack(m.producer_id, m.producer_epoch, m.transaction_result)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_WritableTxnMarkerTopic_v0(w, _e)
    w += _S_i.pack(m.coordinator_epoch)


def _read_WritableTxnMarker_v1(r: Reader) -> WritableTxnMarker:
    producer_id, producer_epoch, transaction_result = r.unpack(_S_qhx)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersRequest.Topics is null")
    topics = [_read_WritableTxnMarkerTopic_v1(r) for _ in range(_n)]
    coordinator_epoch = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return WritableTxnMarker(producer_id=producer_id, producer_epoch=producer_epoch, transaction_result=transaction_result, topics=topics, coordinator_epoch=coordinator_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_WritableTxnMarker_v1(w: Writer, m: WritableTxnMarker) -> None:
    w += _S_qhx.pack(m.producer_id, m.producer_epoch, m.transaction_result)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_WritableTxnMarkerTopic_v1(w, _e)
    w += _S_i.pack(m.coordinator_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> WriteTxnMarkersRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersRequest.Markers is null")
    markers = [_read_WritableTxnMarker_v0(r) for _ in range(_n)]
    return WriteTxnMarkersRequest(markers=markers)


def write_v0(w: Writer, m: WriteTxnMarkersRequest) -> None:
    _v = m.markers
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_WritableTxnMarker_v0(w, _e)


def read_v1(r: Reader) -> WriteTxnMarkersRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array WriteTxnMarkersRequest.Markers is null")
    markers = [_read_WritableTxnMarker_v1(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return WriteTxnMarkersRequest(markers=markers, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: WriteTxnMarkersRequest) -> None:
    _v = m.markers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_WritableTxnMarker_v1(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> WriteTxnMarkersRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: WriteTxnMarkersRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> WriteTxnMarkersRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: WriteTxnMarkersRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
