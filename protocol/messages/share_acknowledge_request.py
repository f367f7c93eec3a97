# Generated from ShareAcknowledgeRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ShareAcknowledgeRequest"
API_KEY = 79
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = True

_S_i = _struct.Struct(">i")
_S_qq = _struct.Struct(">qq")


@dataclass(slots=True)
class AcknowledgementBatch:
    first_offset: int = 0
    last_offset: int = 0
    acknowledge_types: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AcknowledgePartition:
    partition_index: int = 0
    acknowledgement_batches: list[AcknowledgementBatch] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AcknowledgeTopic:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[AcknowledgePartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ShareAcknowledgeRequest:
    group_id: str | None = None
    member_id: str | None = ""
    share_session_epoch: int = 0
    topics: list[AcknowledgeTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AcknowledgementBatch_v0(r: Reader) -> AcknowledgementBatch:
    first_offset, last_offset = r.unpack(_S_qq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareAcknowledgeRequest.AcknowledgeTypes is null")
    acknowledge_types = r.fixed_array("b", _n)
    unknown_tagged_fields = r.tagged_fields()
    return AcknowledgementBatch(first_offset=first_offset, last_offset=last_offset, acknowledge_types=acknowledge_types, unknown_tagged_fields=unknown_tagged_fields)


def _write_AcknowledgementBatch_v0(w: Writer, m: AcknowledgementBatch) -> None:
    w += _S_qq.pack(m.first_offset, m.last_offset)
    _v = m.acknowledge_types
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "b", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_AcknowledgePartition_v0(r: Reader) -> AcknowledgePartition:
    partition_index = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareAcknowledgeRequest.AcknowledgementBatches is null")
    acknowledgement_batches = [_read_AcknowledgementBatch_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AcknowledgePartition(partition_index=partition_index, acknowledgement_batches=acknowledgement_batches, unknown_tagged_fields=unknown_tagged_fields)


def _write_AcknowledgePartition_v0(w: Writer, m: AcknowledgePartition) -> None:
    w += _S_i.pack(m.partition_index)
    _v = m.acknowledgement_batches
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AcknowledgementBatch_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_AcknowledgeTopic_v0(r: Reader) -> AcknowledgeTopic:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareAcknowledgeRequest.Partitions is null")
    partitions = [_read_AcknowledgePartition_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AcknowledgeTopic(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_AcknowledgeTopic_v0(w: Writer, m: AcknowledgeTopic) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AcknowledgePartition_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ShareAcknowledgeRequest:
    group_id = r.compact_nullable_string()
    member_id = r.compact_nullable_string()
    share_session_epoch = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareAcknowledgeRequest.Topics is null")
    topics = [_read_AcknowledgeTopic_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ShareAcknowledgeRequest(group_id=group_id, member_id=member_id, share_session_epoch=share_session_epoch, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ShareAcknowledgeRequest) -> None:
    write_compact_nullable_string(w, m.group_id)
    write_compact_nullable_string(w, m.member_id)
    w += _S_i.pack(m.share_session_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AcknowledgeTopic_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ShareAcknowledgeRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareAcknowledgeRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareAcknowledgeRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareAcknowledgeRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
