# Generated from ConsumerGroupCurrentMemberAssignmentValue.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ConsumerGroupCurrentMemberAssignmentValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_iib = _struct.Struct(">iib")


@dataclass(slots=True)
class TopicPartitions:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerGroupCurrentMemberAssignmentValue:
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: int = 0
    assigned_partitions: list[TopicPartitions] = _field(default_factory=list)
    partitions_pending_revocation: list[TopicPartitions] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartitions_v0(r: Reader) -> TopicPartitions:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupCurrentMemberAssignmentValue.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return TopicPartitions(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicPartitions_v0(w: Writer, m: TopicPartitions) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ConsumerGroupCurrentMemberAssignmentValue:
    member_epoch, previous_member_epoch, state = r.unpack(_S_iib)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupCurrentMemberAssignmentValue.AssignedPartitions is null")
    assigned_partitions = [_read_TopicPartitions_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupCurrentMemberAssignmentValue.PartitionsPendingRevocation is null")
    partitions_pending_revocation = [_read_TopicPartitions_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ConsumerGroupCurrentMemberAssignmentValue(member_epoch=member_epoch, previous_member_epoch=previous_member_epoch, state=state, assigned_partitions=assigned_partitions, partitions_pending_revocation=partitions_pending_revocation, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ConsumerGroupCurrentMemberAssignmentValue) -> None:
    w += _S_iib.pack(m.member_epoch, m.previous_member_epoch, m.state)
    _v = m.assigned_partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicPartitions_v0(w, _e)
    _v = m.partitions_pending_revocation
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicPartitions_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ConsumerGroupCurrentMemberAssignmentValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupCurrentMemberAssignmentValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupCurrentMemberAssignmentValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupCurrentMemberAssignmentValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
