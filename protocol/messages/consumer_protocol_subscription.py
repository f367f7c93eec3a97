# Generated from ConsumerProtocolSubscription.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_nullable_bytes,
    write_nullable_string,
    write_string,
)

NAME = "ConsumerProtocolSubscription"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class TopicPartition:
    topic: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerProtocolSubscription:
    topics: list[str] = _field(default_factory=list)
    user_data: bytes | None = None
    owned_partitions: list[TopicPartition] = _field(default_factory=list)
    generation_id: int = -1
    rack_id: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartition_v1(r: Reader) -> TopicPartition:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolSubscription.Partitions is null")
    partitions = r.fixed_array("i", _n)
    return TopicPartition(topic=topic, partitions=partitions)


def _write_TopicPartition_v1(w: Writer, m: TopicPartition) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def read_v0(r: Reader) -> ConsumerProtocolSubscription:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolSubscription.Topics is null")
    topics = [r.string() for _ in range(_n)]
    user_data = r.nullable_bytes()
    return ConsumerProtocolSubscription(topics=topics, user_data=user_data)


def write_v0(w: Writer, m: ConsumerProtocolSubscription) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)
    write_nullable_bytes(w, m.user_data)


def read_v1(r: Reader) -> ConsumerProtocolSubscription:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolSubscription.Topics is null")
    topics = [r.string() for _ in range(_n)]
    user_data = r.nullable_bytes()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolSubscription.OwnedPartitions is null")
    owned_partitions = [_read_TopicPartition_v1(r) for _ in range(_n)]
    return ConsumerProtocolSubscription(topics=topics, user_data=user_data, owned_partitions=owned_partitions)


def write_v1(w: Writer, m: ConsumerProtocolSubscription) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)
    write_nullable_bytes(w, m.user_data)
    _v = m.owned_partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicPartition_v1(w, _e)


def read_v2(r: Reader) -> ConsumerProtocolSubscription:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolSubscription.Topics is null")
    topics = [r.string() for _ in range(_n)]
    user_data = r.nullable_bytes()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolSubscription.OwnedPartitions is null")
    owned_partitions = [_read_TopicPartition_v1(r) for _ in range(_n)]
    generation_id = r.int32()
    return ConsumerProtocolSubscription(topics=topics, user_data=user_data, owned_partitions=owned_partitions, generation_id=generation_id)


def write_v2(w: Writer, m: ConsumerProtocolSubscription) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)
    write_nullable_bytes(w, m.user_data)
    _v = m.owned_partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicPartition_v1(w, _e)
    w += _S_i.pack(m.generation_id)


def read_v3(r: Reader) -> ConsumerProtocolSubscription:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolSubscription.Topics is null")
    topics = [r.string() for _ in range(_n)]
    user_data = r.nullable_bytes()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerProtocolSubscription.OwnedPartitions is null")
    owned_partitions = [_read_TopicPartition_v1(r) for _ in range(_n)]
    generation_id = r.int32()
    rack_id = r.nullable_string()
    return ConsumerProtocolSubscription(topics=topics, user_data=user_data, owned_partitions=owned_partitions, generation_id=generation_id, rack_id=rack_id)


def write_v3(w: Writer, m: ConsumerProtocolSubscription) -> None:
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)
    write_nullable_bytes(w, m.user_data)
    _v = m.owned_partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicPartition_v1(w, _e)
    w += _S_i.pack(m.generation_id)
    write_nullable_string(w, m.rack_id)


READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> ConsumerProtocolSubscription:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerProtocolSubscription, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerProtocolSubscription:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerProtocolSubscription, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
