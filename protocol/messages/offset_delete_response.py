# Generated from OffsetDeleteResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_string,
)

NAME = "OffsetDeleteResponse"
API_KEY = 47
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_hi = _struct.Struct(">hi")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class OffsetDeleteResponsePartition:
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetDeleteResponseTopic:
    name: str = ""
    partitions: list[OffsetDeleteResponsePartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class OffsetDeleteResponse:
    error_code: int = 0
    throttle_time_ms: int = 0
    topics: list[OffsetDeleteResponseTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_OffsetDeleteResponsePartition_v0(r: Reader) -> OffsetDeleteResponsePartition:
    partition_index, error_code = r.unpack(_S_ih)
    return OffsetDeleteResponsePartition(partition_index=partition_index, error_code=error_code)


def _write_OffsetDeleteResponsePartition_v0(w: Writer, m: OffsetDeleteResponsePartition) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)


def _read_OffsetDeleteResponseTopic_v0(r: Reader) -> OffsetDeleteResponseTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetDeleteResponse.Partitions is null")
    partitions = [_read_OffsetDeleteResponsePartition_v0(r) for _ in range(_n)]
    return OffsetDeleteResponseTopic(name=name, partitions=partitions)


def _write_OffsetDeleteResponseTopic_v0(w: Writer, m: OffsetDeleteResponseTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetDeleteResponsePartition_v0(w, _e)


def read_v0(r: Reader) -> OffsetDeleteResponse:
    error_code, throttle_time_ms = r.unpack(_S_hi)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array OffsetDeleteResponse.Topics is null")
    topics = [_read_OffsetDeleteResponseTopic_v0(r) for _ in range(_n)]
    return OffsetDeleteResponse(error_code=error_code, throttle_time_ms=throttle_time_ms, topics=topics)


def write_v0(w: Writer, m: OffsetDeleteResponse) -> None:
    w += _S_hi.pack(m.error_code, m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_OffsetDeleteResponseTopic_v0(w, _e)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> OffsetDeleteResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetDeleteResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetDeleteResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetDeleteResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
