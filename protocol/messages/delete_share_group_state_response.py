# Generated from DeleteShareGroupStateResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DeleteShareGroupStateResponse"
API_KEY = 86
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class PartitionResult:
    partition: int = 0
    error_code: int = 0
    error_message: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteStateResult:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteShareGroupStateResponse:
    results: list[DeleteStateResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionResult_v0(r: Reader) -> PartitionResult:
    partition, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return PartitionResult(partition=partition, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionResult_v0(w: Writer, m: PartitionResult) -> None:
    w += _S_ih.pack(m.partition, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_DeleteStateResult_v0(r: Reader) -> DeleteStateResult:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteShareGroupStateResponse.Partitions is null")
    partitions = [_read_PartitionResult_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteStateResult(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteStateResult_v0(w: Writer, m: DeleteStateResult) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionResult_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DeleteShareGroupStateResponse:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteShareGroupStateResponse.Results is null")
    results = [_read_DeleteStateResult_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteShareGroupStateResponse(results=results, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DeleteShareGroupStateResponse) -> None:
    _v = m.results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteStateResult_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DeleteShareGroupStateResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteShareGroupStateResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteShareGroupStateResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteShareGroupStateResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
