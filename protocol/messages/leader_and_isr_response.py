# Generated from LeaderAndIsrResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "LeaderAndIsrResponse"
API_KEY = 4
TYPE = "response"
VALID_VERSIONS = (0, 7)
FLEXIBLE_VERSIONS = (4, 7)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class LeaderAndIsrPartitionError:
    topic_name: str = ""
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderAndIsrTopicError:
    topic_id: uuid.UUID = ZERO_UUID
    partition_errors: list[LeaderAndIsrPartitionError] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderAndIsrResponse:
    error_code: int = 0
    partition_errors: list[LeaderAndIsrPartitionError] = _field(default_factory=list)
    topics: list[LeaderAndIsrTopicError] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_LeaderAndIsrPartitionError_v0(r: Reader) -> LeaderAndIsrPartitionError:
    topic_name = r.string()
    partition_index, error_code = r.unpack(_S_ih)
    return LeaderAndIsrPartitionError(topic_name=topic_name, partition_index=partition_index, error_code=error_code)


def _write_LeaderAndIsrPartitionError_v0(w: Writer, m: LeaderAndIsrPartitionError) -> None:
    write_string(w, m.topic_name)
    w += _S_ih.pack(m.partition_index, m.error_code)


def _read_LeaderAndIsrPartitionError_v4(r: Reader) -> LeaderAndIsrPartitionError:
    topic_name = r.compact_string()
    partition_index, error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrPartitionError(topic_name=topic_name, partition_index=partition_index, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrPartitionError_v4(w: Writer, m: LeaderAndIsrPartitionError) -> None:
    write_compact_string(w, m.topic_name)
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderAndIsrPartitionError_v5(r: Reader) -> LeaderAndIsrPartitionError:
    partition_index, error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrPartitionError(partition_index=partition_index, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrPartitionError_v5(w: Writer, m: LeaderAndIsrPartitionError) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderAndIsrTopicError_v5(r: Reader) -> LeaderAndIsrTopicError:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrResponse.PartitionErrors is null")
    partition_errors = [_read_LeaderAndIsrPartitionError_v5(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrTopicError(topic_id=topic_id, partition_errors=partition_errors, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderAndIsrTopicError_v5(w: Writer, m: LeaderAndIsrTopicError) -> None:
    w += m.topic_id.bytes
    _v = m.partition_errors
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrPartitionError_v5(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> LeaderAndIsrResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrResponse.PartitionErrors is null")
    partition_errors = [_read_LeaderAndIsrPartitionError_v0(r) for _ in range(_n)]
    return LeaderAndIsrResponse(error_code=error_code, partition_errors=partition_errors)


def write_v0(w: Writer, m: LeaderAndIsrResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.partition_errors
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_LeaderAndIsrPartitionError_v0(w, _e)


def read_v4(r: Reader) -> LeaderAndIsrResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrResponse.PartitionErrors is null")
    partition_errors = [_read_LeaderAndIsrPartitionError_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrResponse(error_code=error_code, partition_errors=partition_errors, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: LeaderAndIsrResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.partition_errors
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrPartitionError_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v5(r: Reader) -> LeaderAndIsrResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array LeaderAndIsrResponse.Topics is null")
    topics = [_read_LeaderAndIsrTopicError_v5(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return LeaderAndIsrResponse(error_code=error_code, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: LeaderAndIsrResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_LeaderAndIsrTopicError_v5(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v3 = read_v0
write_v3 = write_v0
read_v6 = read_v5
write_v6 = write_v5
read_v7 = read_v5
write_v7 = write_v5

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7}


def read(r: Reader, version: int) -> LeaderAndIsrResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: LeaderAndIsrResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> LeaderAndIsrResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: LeaderAndIsrResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
