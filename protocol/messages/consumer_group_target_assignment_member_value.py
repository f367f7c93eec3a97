# Generated from ConsumerGroupTargetAssignmentMemberValue.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ConsumerGroupTargetAssignmentMemberValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class TopicPartition:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerGroupTargetAssignmentMemberValue:
    topic_partitions: list[TopicPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartition_v0(r: Reader) -> TopicPartition:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupTargetAssignmentMemberValue.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return TopicPartition(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicPartition_v0(w: Writer, m: TopicPartition) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ConsumerGroupTargetAssignmentMemberValue:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupTargetAssignmentMemberValue.TopicPartitions is null")
    topic_partitions = [_read_TopicPartition_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ConsumerGroupTargetAssignmentMemberValue(topic_partitions=topic_partitions, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ConsumerGroupTargetAssignmentMemberValue) -> None:
    _v = m.topic_partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicPartition_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ConsumerGroupTargetAssignmentMemberValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupTargetAssignmentMemberValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupTargetAssignmentMemberValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupTargetAssignmentMemberValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
