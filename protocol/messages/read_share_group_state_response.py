# Generated from ReadShareGroupStateResponse.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    ZERO_UUID,
    decode_message,
    encode_message,
    write_compact_nullable_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ReadShareGroupStateResponse"
API_KEY = 84
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ih = _struct.Struct(">ih")
_S_iq = _struct.Struct(">iq")
_S_qqbh = _struct.Struct(">qqbh")


@dataclass(slots=True)
class StateBatch:
    first_offset: int = 0
    last_offset: int = 0
    delivery_state: int = 0
    delivery_count: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionResult:
    partition: int = 0
    error_code: int = 0
    error_message: str | None = None
    state_epoch: int = 0
    start_offset: int = 0
    state_batches: list[StateBatch] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ReadStateResult:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ReadShareGroupStateResponse:
    results: list[ReadStateResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_StateBatch_v0(r: Reader) -> StateBatch:
    first_offset, last_offset, delivery_state, delivery_count = r.unpack(_S_qqbh)
    unknown_tagged_fields = r.tagged_fields()
    return StateBatch(first_offset=first_offset, last_offset=last_offset, delivery_state=delivery_state, delivery_count=delivery_count, unknown_tagged_fields=unknown_tagged_fields)


def _write_StateBatch_v0(w: Writer, m: StateBatch) -> None:
    w += _S_qqbh.pack(m.first_offset, m.last_offset, m.delivery_state, m.delivery_count)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionResult_v0(r: Reader) -> PartitionResult:
    partition, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    state_epoch, start_offset = r.unpack(_S_iq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ReadShareGroupStateResponse.StateBatches is null")
    state_batches = [_read_StateBatch_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return PartitionResult(partition=partition, error_code=error_code, error_message=error_message, state_epoch=state_epoch, start_offset=start_offset, state_batches=state_batches, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionResult_v0(w: Writer, m: PartitionResult) -> None:
    w += _S_ih.pack(m.partition, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_iq.pack(m.state_epoch, m.start_offset)
    _v = m.state_batches
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_StateBatch_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ReadStateResult_v0(r: Reader) -> ReadStateResult:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ReadShareGroupStateResponse.Partitions is null")
    partitions = [_read_PartitionResult_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ReadStateResult(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReadStateResult_v0(w: Writer, m: ReadStateResult) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionResult_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ReadShareGroupStateResponse:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ReadShareGroupStateResponse.Results is null")
    results = [_read_ReadStateResult_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ReadShareGroupStateResponse(results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ReadShareGroupStateResponse) -> None:
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReadStateResult_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ReadShareGroupStateResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ReadShareGroupStateResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ReadShareGroupStateResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ReadShareGroupStateResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
