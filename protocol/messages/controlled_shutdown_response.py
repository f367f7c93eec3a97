# Generated from ControlledShutdownResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ControlledShutdownResponse"
API_KEY = 7
TYPE = "response"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (3, 3)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class RemainingPartition:
    topic_name: str = ""
    partition_index: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ControlledShutdownResponse:
    error_code: int = 0
    remaining_partitions: list[RemainingPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_RemainingPartition_v0(r: Reader) -> RemainingPartition:
    topic_name = r.string()
    partition_index = r.int32()
    return RemainingPartition(topic_name=topic_name, partition_index=partition_index)


def _write_RemainingPartition_v0(w: Writer, m: RemainingPartition) -> None:
    write_string(w, m.topic_name)
    w += _S_i.pack(m.partition_index)


def _read_RemainingPartition_v3(r: Reader) -> RemainingPartition:
    topic_name = r.compact_string()
    partition_index = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return RemainingPartition(topic_name=topic_name, partition_index=partition_index, unknown_tagged_fields=unknown_tagged_fields)


def _write_RemainingPartition_v3(w: Writer, m: RemainingPartition) -> None:
    write_compact_string(w, m.topic_name)
    w += _S_i.pack(m.partition_index)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ControlledShutdownResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ControlledShutdownResponse.RemainingPartitions is null")
    remaining_partitions = [_read_RemainingPartition_v0(r) for _ in range(_n)]
    return ControlledShutdownResponse(error_code=error_code, remaining_partitions=remaining_partitions)


def write_v0(w: Writer, m: ControlledShutdownResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.remaining_partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_RemainingPartition_v0(w, _e)


def read_v3(r: Reader) -> ControlledShutdownResponse:
    error_code = r.int16()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ControlledShutdownResponse.RemainingPartitions is null")
    remaining_partitions = [_read_RemainingPartition_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ControlledShutdownResponse(error_code=error_code, remaining_partitions=remaining_partitions, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: ControlledShutdownResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.remaining_partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_RemainingPartition_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> ControlledShutdownResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ControlledShutdownResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ControlledShutdownResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ControlledShutdownResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
