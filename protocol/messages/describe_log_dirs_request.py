# Generated from DescribeLogDirsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_array_length,
    write_compact_array_length,
    write_compact_string,
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeLogDirsRequest"
API_KEY = 35
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (2, 4)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class DescribableLogDirTopic:
    topic: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeLogDirsRequest:
    topics: list[DescribableLogDirTopic] | None = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribableLogDirTopic_v0(r: Reader) -> DescribableLogDirTopic:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    return DescribableLogDirTopic(topic=topic, partitions=partitions)


def _write_DescribableLogDirTopic_v0(w: Writer, m: DescribableLogDirTopic) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_DescribableLogDirTopic_v2(r: Reader) -> DescribableLogDirTopic:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeLogDirsRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return DescribableLogDirTopic(topic=topic, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribableLogDirTopic_v2(w: Writer, m: DescribableLogDirTopic) -> None:
    write_compact_string(w, m.topic)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeLogDirsRequest:
    _n = r.array_length()
    topics = None if _n < 0 else [_read_DescribableLogDirTopic_v0(r) for _ in range(_n)]
    return DescribeLogDirsRequest(topics=topics)


def write_v0(w: Writer, m: DescribeLogDirsRequest) -> None:
    _v = m.topics
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_DescribableLogDirTopic_v0(w, _e)


def read_v2(r: Reader) -> DescribeLogDirsRequest:
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_DescribableLogDirTopic_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeLogDirsRequest(topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DescribeLogDirsRequest) -> None:
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_DescribableLogDirTopic_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v3 = read_v2
write_v3 = write_v2
read_v4 = read_v2
write_v4 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> DescribeLogDirsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeLogDirsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeLogDirsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeLogDirsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
