# Generated from ShareGroupPartitionMetadataValue.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

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
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ShareGroupPartitionMetadataValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class TopicPartitionsInfo:
    topic_id: uuid.UUID = ZERO_UUID
    topic_name: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicInfo:
    topic_id: uuid.UUID = ZERO_UUID
    topic_name: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ShareGroupPartitionMetadataValue:
    initialized_topics: list[TopicPartitionsInfo] = _field(default_factory=list)
    deleting_topics: list[TopicInfo] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartitionsInfo_v0(r: Reader) -> TopicPartitionsInfo:
    topic_id = r.uuid()
    topic_name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareGroupPartitionMetadataValue.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return TopicPartitionsInfo(topic_id=topic_id, topic_name=topic_name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicPartitionsInfo_v0(w: Writer, m: TopicPartitionsInfo) -> None:
    w += m.topic_id.bytes
    write_compact_string(w, m.topic_name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicInfo_v0(r: Reader) -> TopicInfo:
    topic_id = r.uuid()
    topic_name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return TopicInfo(topic_id=topic_id, topic_name=topic_name, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicInfo_v0(w: Writer, m: TopicInfo) -> None:
    w += m.topic_id.bytes
    write_compact_string(w, m.topic_name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ShareGroupPartitionMetadataValue:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareGroupPartitionMetadataValue.InitializedTopics is null")
    initialized_topics = [_read_TopicPartitionsInfo_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareGroupPartitionMetadataValue.DeletingTopics is null")
    deleting_topics = [_read_TopicInfo_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ShareGroupPartitionMetadataValue(initialized_topics=initialized_topics, deleting_topics=deleting_topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ShareGroupPartitionMetadataValue) -> None:
    _v = m.initialized_topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicPartitionsInfo_v0(w, _e)
    _v = m.deleting_topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicInfo_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ShareGroupPartitionMetadataValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareGroupPartitionMetadataValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareGroupPartitionMetadataValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareGroupPartitionMetadataValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
