# Generated from AlterPartitionReassignmentsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "AlterPartitionReassignmentsResponse"
API_KEY = 45
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class ReassignablePartitionResponse:
    partition_index: int = 0
    error_code: int = 0
    error_message: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ReassignableTopicResponse:
    name: str = ""
    partitions: list[ReassignablePartitionResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterPartitionReassignmentsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    responses: list[ReassignableTopicResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ReassignablePartitionResponse_v0(r: Reader) -> ReassignablePartitionResponse:
    partition_index, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return ReassignablePartitionResponse(partition_index=partition_index, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReassignablePartitionResponse_v0(w: Writer, m: ReassignablePartitionResponse) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ReassignableTopicResponse_v0(r: Reader) -> ReassignableTopicResponse:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionReassignmentsResponse.Partitions is null")
    partitions = [_read_ReassignablePartitionResponse_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ReassignableTopicResponse(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReassignableTopicResponse_v0(w: Writer, m: ReassignableTopicResponse) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReassignablePartitionResponse_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AlterPartitionReassignmentsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterPartitionReassignmentsResponse.Responses is null")
    responses = [_read_ReassignableTopicResponse_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterPartitionReassignmentsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, responses=responses, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AlterPartitionReassignmentsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReassignableTopicResponse_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> AlterPartitionReassignmentsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AlterPartitionReassignmentsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AlterPartitionReassignmentsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AlterPartitionReassignmentsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
