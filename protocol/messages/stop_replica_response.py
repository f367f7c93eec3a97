# Generated from StopReplicaResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "StopReplicaResponse"
API_KEY = 5
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (2, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class StopReplicaPartitionError:
    topic_name: str = ""
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class StopReplicaResponse:
    error_code: int = 0
    partition_errors: list[StopReplicaPartitionError] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_StopReplicaPartitionError_v0(r: Reader) -> StopReplicaPartitionError:
    topic_name = r.string()
    partition_index, error_code = r.unpack(_S_ih)
    return StopReplicaPartitionError(topic_name=topic_name, partition_index=partition_index, error_code=error_code)


def _write_StopReplicaPartitionError_v0(w: Writer, m: StopReplicaPartitionError) -> None:
    write_string(w, m.topic_name)
    w += _S_ih.pack(m.partition_index, m.error_code)


def _read_StopReplicaPartitionError_v2(r: Reader) -> StopReplicaPartitionError:
    topic_name = r.compact_string()
    partition_index, error_code = r.unpack(_S_ih)
    unknown_tagged_fields = r.tagged_fields()
    return StopReplicaPartitionError(topic_name=topic_name, partition_index=partition_index, error_code=error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_StopReplicaPartitionError_v2(w: Writer, m: StopReplicaPartitionError) -> None:
    write_compact_string(w, m.topic_name)
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> StopReplicaResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaResponse.PartitionErrors is null")
    partition_errors = [_read_StopReplicaPartitionError_v0(r) for _ in range(_n)]
    return StopReplicaResponse(error_code=error_code, partition_errors=partition_errors)


def write_v0(w: Writer, m: StopReplicaResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.partition_errors
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_StopReplicaPartitionError_v0(w, _e)


def read_v2(r: Reader) -> StopReplicaResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array StopReplicaResponse.PartitionErrors is null")
    partition_errors = [_read_StopReplicaPartitionError_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return StopReplicaResponse(error_code=error_code, partition_errors=partition_errors, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: StopReplicaResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.partition_errors
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_StopReplicaPartitionError_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v3 = read_v2
write_v3 = write_v2
read_v4 = read_v2
write_v4 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> StopReplicaResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: StopReplicaResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> StopReplicaResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: StopReplicaResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
