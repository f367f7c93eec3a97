# Generated from CreateTopicsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_array_length,
    write_compact_nullable_string,
    write_compact_string,
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "CreateTopicsResponse"
API_KEY = 19
TYPE = "response"
VALID_VERSIONS = (0, 7)
FLEXIBLE_VERSIONS = (5, 7)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_xbx = _struct.Struct(">?b?")


@dataclass(slots=True)
class CreatableTopicConfigs:
    name: str = ""
    value: str | None = ""
    read_only: bool = False
    config_source: int = -1
    is_sensitive: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreatableTopicResult:
    name: str = ""
    topic_id: uuid.UUID = ZERO_UUID
    error_code: int = 0
    error_message: str | None = ""
    topic_config_error_code: int = 0
    num_partitions: int = -1
    replication_factor: int = -1
    configs: list[CreatableTopicConfigs] | None = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class CreateTopicsResponse:
    throttle_time_ms: int = 0
    topics: list[CreatableTopicResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_CreatableTopicConfigs_v5(r: Reader) -> CreatableTopicConfigs:
    name = r.compact_string()
    value = r.compact_nullable_string()
    read_only, config_source, is_sensitive = r.unpack(_S_xbx)
    unknown_tagged_fields = r.tagged_fields()
    return CreatableTopicConfigs(name=name, value=value, read_only=read_only, config_source=config_source, is_sensitive=is_sensitive, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatableTopicConfigs_v5(w: Writer, m: CreatableTopicConfigs) -> None:
    write_compact_string(w, m.name)
    write_compact_nullable_string(w, m.value)
    w += _S_xbx.pack(m.read_only, m.config_source, m.is_sensitive)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_CreatableTopicResult_v0(r: Reader) -> CreatableTopicResult:
    name = r.string()
    error_code = r.int16()
    return CreatableTopicResult(name=name, error_code=error_code)


def _write_CreatableTopicResult_v0(w: Writer, m: CreatableTopicResult) -> None:
    write_string(w, m.name)
    w += _S_h.pack(m.error_code)


def _read_CreatableTopicResult_v1(r: Reader) -> CreatableTopicResult:
    name = r.string()
    error_code = r.int16()
    error_message = r.nullable_string()
    return CreatableTopicResult(name=name, error_code=error_code, error_message=error_message)


def _write_CreatableTopicResult_v1(w: Writer, m: CreatableTopicResult) -> None:
    write_string(w, m.name)
    w += _S_h.pack(m.error_code)
    write_nullable_string(w, m.error_message)


def _read_CreatableTopicResult_v5(r: Reader) -> CreatableTopicResult:
    name = r.compact_string()
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    num_partitions, replication_factor = r.unpack(_S_ih)
    _n = r.compact_array_length()
    configs = None if _n < 0 else [_read_CreatableTopicConfigs_v5(r) for _ in range(_n)]
    topic_config_error_code = 0
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            topic_config_error_code = r.int16()
            if r.pos != _end:
                raise ProtocolError("tagged field CreateTopicsResponse.TopicConfigErrorCode does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return CreatableTopicResult(name=name, error_code=error_code, error_message=error_message, num_partitions=num_partitions, replication_factor=replication_factor, configs=configs, topic_config_error_code=topic_config_error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatableTopicResult_v5(w: Writer, m: CreatableTopicResult) -> None:
    write_compact_string(w, m.name)
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_ih.pack(m.num_partitions, m.replication_factor)
    _v = m.configs
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_CreatableTopicConfigs_v5(w, _e)
    _known = []
    if m.topic_config_error_code != 0:
        _t = Writer()
        _t += _S_h.pack(m.topic_config_error_code)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def _read_CreatableTopicResult_v7(r: Reader) -> CreatableTopicResult:
    name = r.compact_string()
    topic_id = r.uuid()
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    num_partitions, replication_factor = r.unpack(_S_ih)
    _n = r.compact_array_length()
    configs = None if _n < 0 else [_read_CreatableTopicConfigs_v5(r) for _ in range(_n)]
    topic_config_error_code = 0
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            topic_config_error_code = r.int16()
            if r.pos != _end:
                raise ProtocolError("tagged field CreateTopicsResponse.TopicConfigErrorCode does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return CreatableTopicResult(name=name, topic_id=topic_id, error_code=error_code, error_message=error_message, num_partitions=num_partitions, replication_factor=replication_factor, configs=configs, topic_config_error_code=topic_config_error_code, unknown_tagged_fields=unknown_tagged_fields)


def _write_CreatableTopicResult_v7(w: Writer, m: CreatableTopicResult) -> None:
    write_compact_string(w, m.name)
    w += m.topic_id.bytes
    w += _S_h.pack(m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_ih.pack(m.num_partitions, m.replication_factor)
    _v = m.configs
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_CreatableTopicConfigs_v5(w, _e)
    _known = []
    if m.topic_config_error_code != 0:
        _t = Writer()
        _t += _S_h.pack(m.topic_config_error_code)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def read_v0(r: Reader) -> CreateTopicsResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsResponse.Topics is null")
    topics = [_read_CreatableTopicResult_v0(r) for _ in range(_n)]
    return CreateTopicsResponse(topics=topics)


def write_v0(w: Writer, m: CreateTopicsResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatableTopicResult_v0(w, _e)


def read_v1(r: Reader) -> CreateTopicsResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsResponse.Topics is null")
    topics = [_read_CreatableTopicResult_v1(r) for _ in range(_n)]
    return CreateTopicsResponse(topics=topics)


def write_v1(w: Writer, m: CreateTopicsResponse) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatableTopicResult_v1(w, _e)


def read_v2(r: Reader) -> CreateTopicsResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsResponse.Topics is null")
    topics = [_read_CreatableTopicResult_v1(r) for _ in range(_n)]
    return CreateTopicsResponse(throttle_time_ms=throttle_time_ms, topics=topics)


def write_v2(w: Writer, m: CreateTopicsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_CreatableTopicResult_v1(w, _e)


def read_v5(r: Reader) -> CreateTopicsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsResponse.Topics is null")
    topics = [_read_CreatableTopicResult_v5(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return CreateTopicsResponse(throttle_time_ms=throttle_time_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: CreateTopicsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CreatableTopicResult_v5(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v7(r: Reader) -> CreateTopicsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array CreateTopicsResponse.Topics is null")
    topics = [_read_CreatableTopicResult_v7(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return CreateTopicsResponse(throttle_time_ms=throttle_time_ms, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v7(w: Writer, m: CreateTopicsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_CreatableTopicResult_v7(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v3 = read_v2
write_v3 = write_v2
read_v4 = read_v2
write_v4 = write_v2
read_v6 = read_v5
write_v6 = write_v5

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7}


def read(r: Reader, version: int) -> CreateTopicsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: CreateTopicsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> CreateTopicsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: CreateTopicsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
