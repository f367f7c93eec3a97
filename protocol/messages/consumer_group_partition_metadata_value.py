# Generated from ConsumerGroupPartitionMetadataValue.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ConsumerGroupPartitionMetadataValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class PartitionMetadata:
    partition: int = 0
    racks: list[str] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicMetadata:
    topic_id: uuid.UUID = ZERO_UUID
    topic_name: str = ""
    num_partitions: int = 0
    partition_metadata: list[PartitionMetadata] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerGroupPartitionMetadataValue:
    topics: list[TopicMetadata] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionMetadata_v0(r: Reader) -> PartitionMetadata:
    partition = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupPartitionMetadataValue.Racks is null")
    racks = [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return PartitionMetadata(partition=partition, racks=racks, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionMetadata_v0(w: Writer, m: PartitionMetadata) -> None:
    w += _S_i.pack(m.partition)
    _v = m.racks
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicMetadata_v0(r: Reader) -> TopicMetadata:
    topic_id = r.uuid()
    topic_name = r.compact_string()
    num_partitions = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupPartitionMetadataValue.PartitionMetadata is null")
    partition_metadata = [_read_PartitionMetadata_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicMetadata(topic_id=topic_id, topic_name=topic_name, num_partitions=num_partitions, partition_metadata=partition_metadata, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicMetadata_v0(w: Writer, m: TopicMetadata) -> None:
    w += m.topic_id.bytes
    write_compact_string(w, m.topic_name)
    w += _S_i.pack(m.num_partitions)
    _v = m.partition_metadata
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionMetadata_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ConsumerGroupPartitionMetadataValue:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupPartitionMetadataValue.Topics is null")
    topics = [_read_TopicMetadata_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ConsumerGroupPartitionMetadataValue(topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ConsumerGroupPartitionMetadataValue) -> None:
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicMetadata_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ConsumerGroupPartitionMetadataValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupPartitionMetadataValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupPartitionMetadataValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupPartitionMetadataValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
