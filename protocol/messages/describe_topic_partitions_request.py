# Generated from DescribeTopicPartitionsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeTopicPartitionsRequest"
API_KEY = 75
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class TopicRequest:
    name: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Cursor:
    topic_name: str = ""
    partition_index: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeTopicPartitionsRequest:
    topics: list[TopicRequest] = _field(default_factory=list)
    response_partition_limit: int = 2000
    cursor: Cursor | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicRequest_v0(r: Reader) -> TopicRequest:
    name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return TopicRequest(name=name, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicRequest_v0(w: Writer, m: TopicRequest) -> None:
    write_compact_string(w, m.name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Cursor_v0(r: Reader) -> Cursor:
    topic_name = r.compact_string()
    partition_index = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return Cursor(topic_name=topic_name, partition_index=partition_index, unknown_tagged_fields=unknown_tagged_fields)


def _write_Cursor_v0(w: Writer, m: Cursor) -> None:
    write_compact_string(w, m.topic_name)
    w += _S_i.pack(m.partition_index)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeTopicPartitionsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTopicPartitionsRequest.Topics is null")
    topics = [_read_TopicRequest_v0(r) for _ in range(_n)]
    response_partition_limit = r.int32()
    cursor = None if r.int8() < 0 else _read_Cursor_v0(r)
    unknown_tagged_fields = r.tagged_fields()
    return DescribeTopicPartitionsRequest(topics=topics, response_partition_limit=response_partition_limit, cursor=cursor, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeTopicPartitionsRequest) -> None:
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicRequest_v0(w, _e)
    w += _S_i.pack(m.response_partition_limit)
    _v = m.cursor
    if _v is None:
        w.append(255)
    else:
        w.append(1)
        _write_Cursor_v0(w, _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DescribeTopicPartitionsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeTopicPartitionsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeTopicPartitionsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeTopicPartitionsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
