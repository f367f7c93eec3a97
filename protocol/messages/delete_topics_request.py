# Generated from DeleteTopicsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DeleteTopicsRequest"
API_KEY = 20
TYPE = "request"
VALID_VERSIONS = (0, 6)
FLEXIBLE_VERSIONS = (4, 6)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class DeleteTopicState:
    name: str | None = None
    topic_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DeleteTopicsRequest:
    topics: list[DeleteTopicState] = _field(default_factory=list)
    topic_names: list[str] = _field(default_factory=list)
    timeout_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DeleteTopicState_v6(r: Reader) -> DeleteTopicState:
    name = r.compact_nullable_string()
    topic_id = r.uuid()
    unknown_tagged_fields = r.tagged_fields()
    return DeleteTopicState(name=name, topic_id=topic_id, unknown_tagged_fields=unknown_tagged_fields)


def _write_DeleteTopicState_v6(w: Writer, m: DeleteTopicState) -> None:
    write_compact_nullable_string(w, m.name)
    w += m.topic_id.bytes
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DeleteTopicsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteTopicsRequest.TopicNames is null")
    topic_names = [r.string() for _ in range(_n)]
    timeout_ms = r.int32()
    return DeleteTopicsRequest(topic_names=topic_names, timeout_ms=timeout_ms)


def write_v0(w: Writer, m: DeleteTopicsRequest) -> None:
    _v = m.topic_names
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)
    w += _S_i.pack(m.timeout_ms)


def read_v4(r: Reader) -> DeleteTopicsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteTopicsRequest.TopicNames is null")
    topic_names = [r.compact_string() for _ in range(_n)]
    timeout_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DeleteTopicsRequest(topic_names=topic_names, timeout_ms=timeout_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: DeleteTopicsRequest) -> None:
    _v = m.topic_names
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    w += _S_i.pack(m.timeout_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v6(r: Reader) -> DeleteTopicsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteTopicsRequest.Topics is null")
    topics = [_read_DeleteTopicState_v6(r) for _ in range(_n)]
    timeout_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DeleteTopicsRequest(topics=topics, timeout_ms=timeout_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: DeleteTopicsRequest) -> None:
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DeleteTopicState_v6(w, _e)
    w += _S_i.pack(m.timeout_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v3 = read_v0
write_v3 = write_v0
read_v5 = read_v4
write_v5 = write_v4

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6}


def read(r: Reader, version: int) -> DeleteTopicsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteTopicsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteTopicsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteTopicsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
