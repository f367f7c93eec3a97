# Generated from ShareFetchRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ShareFetchRequest"
API_KEY = 78
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = True

_S_ii = _struct.Struct(">ii")
_S_iiii = _struct.Struct(">iiii")
_S_qq = _struct.Struct(">qq")


@dataclass(slots=True)
class AcknowledgementBatch:
    first_offset: int = 0
    last_offset: int = 0
    acknowledge_types: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchPartition:
    partition_index: int = 0
    partition_max_bytes: int = 0
    acknowledgement_batches: list[AcknowledgementBatch] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchTopic:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[FetchPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ForgottenTopic:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ShareFetchRequest:
    group_id: str | None = None
    member_id: str | None = ""
    share_session_epoch: int = 0
    max_wait_ms: int = 0
    min_bytes: int = 0
    max_bytes: int = 2147483647
    topics: list[FetchTopic] = _field(default_factory=list)
    forgotten_topics_data: list[ForgottenTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AcknowledgementBatch_v0(r: Reader) -> AcknowledgementBatch:
    first_offset, last_offset = r.unpack(_S_qq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareFetchRequest.AcknowledgeTypes is null")
    acknowledge_types = r.fixed_array("b", _n)
    unknown_tagged_fields = r.tagged_fields()
    return AcknowledgementBatch(first_offset=first_offset, last_offset=last_offset, acknowledge_types=acknowledge_types, unknown_tagged_fields=unknown_tagged_fields)


def _write_AcknowledgementBatch_v0(w: Writer, m: AcknowledgementBatch) -> None:
    w += _S_qq.pack(m.first_offset, m.last_offset)
    _v = m.acknowledge_types
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "b", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FetchPartition_v0(r: Reader) -> FetchPartition:
    partition_index, partition_max_bytes = r.unpack(_S_ii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareFetchRequest.AcknowledgementBatches is null")
    acknowledgement_batches = [_read_AcknowledgementBatch_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchPartition(partition_index=partition_index, partition_max_bytes=partition_max_bytes, acknowledgement_batches=acknowledgement_batches, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchPartition_v0(w: Writer, m: FetchPartition) -> None:
    w += _S_ii.pack(m.partition_index, m.partition_max_bytes)
    _v = m.acknowledgement_batches
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AcknowledgementBatch_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FetchTopic_v0(r: Reader) -> FetchTopic:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareFetchRequest.Partitions is null")
    partitions = [_read_FetchPartition_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchTopic(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchTopic_v0(w: Writer, m: FetchTopic) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchPartition_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ForgottenTopic_v0(r: Reader) -> ForgottenTopic:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareFetchRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return ForgottenTopic(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ForgottenTopic_v0(w: Writer, m: ForgottenTopic) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ShareFetchRequest:
    group_id = r.compact_nullable_string()
    member_id = r.compact_nullable_string()
    share_session_epoch, max_wait_ms, min_bytes, max_bytes = r.unpack(_S_iiii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareFetchRequest.Topics is null")
    topics = [_read_FetchTopic_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareFetchRequest.ForgottenTopicsData is null")
    forgotten_topics_data = [_read_ForgottenTopic_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ShareFetchRequest(group_id=group_id, member_id=member_id, share_session_epoch=share_session_epoch, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, topics=topics, forgotten_topics_data=forgotten_topics_data, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ShareFetchRequest) -> None:
    write_compact_nullable_string(w, m.group_id)
    write_compact_nullable_string(w, m.member_id)
    w += _S_iiii.pack(m.share_session_epoch, m.max_wait_ms, m.min_bytes, m.max_bytes)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchTopic_v0(w, _e)
    _v = m.forgotten_topics_data
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ForgottenTopic_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ShareFetchRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareFetchRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareFetchRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareFetchRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
