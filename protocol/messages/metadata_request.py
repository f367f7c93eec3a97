# Generated from MetadataRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_array_length,
    write_compact_array_length,
    write_compact_nullable_string,
    write_compact_string,
    write_string,
    write_tagged_fields,
)

NAME = "MetadataRequest"
API_KEY = 3
TYPE = "request"
VALID_VERSIONS = (0, 12)
FLEXIBLE_VERSIONS = (9, 12)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")
_S_xx = _struct.Struct(">??")
_S_xxx = _struct.Struct(">???")


@dataclass(slots=True)
class MetadataRequestTopic:
    topic_id: uuid.UUID = ZERO_UUID
    name: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class MetadataRequest:
    topics: list[MetadataRequestTopic] | None = _field(default_factory=list)
    allow_auto_topic_creation: bool = True
    include_cluster_authorized_operations: bool = False
    include_topic_authorized_operations: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_MetadataRequestTopic_v0(r: Reader) -> MetadataRequestTopic:
    name = r.string()
    return MetadataRequestTopic(name=name)


def _write_MetadataRequestTopic_v0(w: Writer, m: MetadataRequestTopic) -> None:
    write_string(w, m.name)


def _read_MetadataRequestTopic_v9(r: Reader) -> MetadataRequestTopic:
    name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return MetadataRequestTopic(name=name, unknown_tagged_fields=unknown_tagged_fields)


def _write_MetadataRequestTopic_v9(w: Writer, m: MetadataRequestTopic) -> None:
    write_compact_string(w, m.name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_MetadataRequestTopic_v10(r: Reader) -> MetadataRequestTopic:
    topic_id = r.uuid()
    name = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return MetadataRequestTopic(topic_id=topic_id, name=name, unknown_tagged_fields=unknown_tagged_fields)


def _write_MetadataRequestTopic_v10(w: Writer, m: MetadataRequestTopic) -> None:
    w += m.topic_id.bytes
    write_compact_nullable_string(w, m.name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> MetadataRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array MetadataRequest.Topics is null")
    topics = [_read_MetadataRequestTopic_v0(r) for _ in range(_n)]
    return MetadataRequest(topics=topics)


def write_v0(w: Writer, m: MetadataRequest) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_MetadataRequestTopic_v0(w, _e)


def read_v1(r: Reader) -> MetadataRequest:
    _n = r.array_length()
    topics = None if _n < 0 else [_read_MetadataRequestTopic_v0(r) for _ in range(_n)]
    return MetadataRequest(topics=topics)


def write_v1(w: Writer, m: MetadataRequest) -> None:
    _v = m.topics
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_MetadataRequestTopic_v0(w, _e)


def read_v4(r: Reader) -> MetadataRequest:
    _n = r.array_length()
    topics = None if _n < 0 else [_read_MetadataRequestTopic_v0(r) for _ in range(_n)]
    allow_auto_topic_creation = r.boolean()
    return MetadataRequest(topics=topics, allow_auto_topic_creation=allow_auto_topic_creation)


def write_v4(w: Writer, m: MetadataRequest) -> None:
    _v = m.topics
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_MetadataRequestTopic_v0(w, _e)
    w += _S_x.pack(m.allow_auto_topic_creation)


def read_v8(r: Reader) -> MetadataRequest:
    _n = r.array_length()
    topics = None if _n < 0 else [_read_MetadataRequestTopic_v0(r) for _ in range(_n)]
    allow_auto_topic_creation, include_cluster_authorized_operations, include_topic_authorized_operations = r.unpack(_S_xxx)
    return MetadataRequest(topics=topics, allow_auto_topic_creation=allow_auto_topic_creation, include_cluster_authorized_operations=include_cluster_authorized_operations, include_topic_authorized_operations=include_topic_authorized_operations)


def write_v8(w: Writer, m: MetadataRequest) -> None:
    _v = m.topics
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_MetadataRequestTopic_v0(w, _e)
    w += _S_xxx.pack(m.allow_auto_topic_creation, m.include_cluster_authorized_operations, m.include_topic_authorized_operations)


def read_v9(r: Reader) -> MetadataRequest:
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_MetadataRequestTopic_v9(r) for _ in range(_n)]
    allow_auto_topic_creation, include_cluster_authorized_operations, include_topic_authorized_operations = r.unpack(_S_xxx)
    unknown_tagged_fields = r.tagged_fields()
    return MetadataRequest(topics=topics, allow_auto_topic_creation=allow_auto_topic_creation, include_cluster_authorized_operations=include_cluster_authorized_operations, include_topic_authorized_operations=include_topic_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v9(w: Writer, m: MetadataRequest) -> None:
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_MetadataRequestTopic_v9(w, _e)
    w += _S_xxx.pack(m.allow_auto_topic_creation, m.include_cluster_authorized_operations, m.include_topic_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v10(r: Reader) -> MetadataRequest:
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_MetadataRequestTopic_v10(r) for _ in range(_n)]
    allow_auto_topic_creation, include_cluster_authorized_operations, include_topic_authorized_operations = r.unpack(_S_xxx)
    unknown_tagged_fields = r.tagged_fields()
    return MetadataRequest(topics=topics, allow_auto_topic_creation=allow_auto_topic_creation, include_cluster_authorized_operations=include_cluster_authorized_operations, include_topic_authorized_operations=include_topic_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v10(w: Writer, m: MetadataRequest) -> None:
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_MetadataRequestTopic_v10(w, _e)
    w += _S_xxx.pack(m.allow_auto_topic_creation, m.include_cluster_authorized_operations, m.include_topic_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v11(r: Reader) -> MetadataRequest:
    _n = r.compact_array_length()
    topics = None if _n < 0 else [_read_MetadataRequestTopic_v10(r) for _ in range(_n)]
    allow_auto_topic_creation, include_topic_authorized_operations = r.unpack(_S_xx)
    unknown_tagged_fields = r.tagged_fields()
    return MetadataRequest(topics=topics, allow_auto_topic_creation=allow_auto_topic_creation, include_topic_authorized_operations=include_topic_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v11(w: Writer, m: MetadataRequest) -> None:
    _v = m.topics
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_MetadataRequestTopic_v10(w, _e)
    w += _S_xx.pack(m.allow_auto_topic_creation, m.include_topic_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1
read_v3 = read_v1
write_v3 = write_v1
read_v5 = read_v4
write_v5 = write_v4
read_v6 = read_v4
write_v6 = write_v4
read_v7 = read_v4
write_v7 = write_v4
read_v12 = read_v11
write_v12 = write_v11

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9, 10: read_v10, 11: read_v11, 12: read_v12}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9, 10: write_v10, 11: write_v11, 12: write_v12}


def read(r: Reader, version: int) -> MetadataRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: MetadataRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> MetadataRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: MetadataRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
