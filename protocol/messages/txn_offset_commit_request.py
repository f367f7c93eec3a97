# Generated from TxnOffsetCommitRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_nullable_string,
    write_compact_string,
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "TxnOffsetCommitRequest"
API_KEY = 28
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (3, 4)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iq = _struct.Struct(">iq")
_S_iqi = _struct.Struct(">iqi")
_S_qh = _struct.Struct(">qh")
_S_qhi = _struct.Struct(">qhi")


@dataclass(slots=True)
class TxnOffsetCommitRequestPartition:
    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    committed_metadata: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TxnOffsetCommitRequestTopic:
    name: str = ""
    partitions: list[TxnOffsetCommitRequestPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TxnOffsetCommitRequest:
    transactional_id: str = ""
    group_id: str = ""
    producer_id: int = 0
    producer_epoch: int = 0
    generation_id: int = -1
    member_id: str = ""
    group_instance_id: str | None = None
    topics: list[TxnOffsetCommitRequestTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TxnOffsetCommitRequestPartition_v0(r: Reader) -> TxnOffsetCommitRequestPartition:
    partition_index, committed_offset = r.unpack(_S_iq)
    committed_metadata = r.nullable_string()
    return TxnOffsetCommitRequestPartition(partition_index=partition_index, committed_offset=committed_offset, committed_metadata=committed_metadata)


def _write_TxnOffsetCommitRequestPartition_v0(w: Writer, m: TxnOffsetCommitRequestPartition) -> None:
    w += _S_iq.pack(m.partition_index, m.committed_offset)
    write_nullable_string(w, m.committed_metadata)


def _read_TxnOffsetCommitRequestPartition_v2(r: Reader) -> TxnOffsetCommitRequestPartition:
    partition_index, committed_offset, committed_leader_epoch = r.unpack(_S_iqi)
    committed_metadata = r.nullable_string()
    return TxnOffsetCommitRequestPartition(partition_index=partition_index, committed_offset=committed_offset, committed_leader_epoch=committed_leader_epoch, committed_metadata=committed_metadata)


def _write_TxnOffsetCommitRequestPartition_v2(w: Writer, m: TxnOffsetCommitRequestPartition) -> None:
    w += _S_iqi.pack(m.partition_index, m.committed_offset, m.committed_leader_epoch)
    write_nullable_string(w, m.committed_metadata)


def _read_TxnOffsetCommitRequestPartition_v3(r: Reader) -> TxnOffsetCommitRequestPartition:
    partition_index, committed_offset, committed_leader_epoch = r.unpack(_S_iqi)
    committed_metadata = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return TxnOffsetCommitRequestPartition(partition_index=partition_index, committed_offset=committed_offset, committed_leader_epoch=committed_leader_epoch, committed_metadata=committed_metadata, unknown_tagged_fields=unknown_tagged_fields)


def _write_TxnOffsetCommitRequestPartition_v3(w: Writer, m: TxnOffsetCommitRequestPartition) -> None:
    w += _S_iqi.pack(m.partition_index, m.committed_offset, m.committed_leader_epoch)
    write_compact_nullable_string(w, m.committed_metadata)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TxnOffsetCommitRequestTopic_v0(r: Reader) -> TxnOffsetCommitRequestTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitRequest.Partitions is null")
    partitions = [_read_TxnOffsetCommitRequestPartition_v0(r) for _ in range(_n)]
    return TxnOffsetCommitRequestTopic(name=name, partitions=partitions)


def _write_TxnOffsetCommitRequestTopic_v0(w: Writer, m: TxnOffsetCommitRequestTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TxnOffsetCommitRequestPartition_v0(w, _e)


def _read_TxnOffsetCommitRequestTopic_v2(r: Reader) -> TxnOffsetCommitRequestTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitRequest.Partitions is null")
    partitions = [_read_TxnOffsetCommitRequestPartition_v2(r) for _ in range(_n)]
    return TxnOffsetCommitRequestTopic(name=name, partitions=partitions)


def _write_TxnOffsetCommitRequestTopic_v2(w: Writer, m: TxnOffsetCommitRequestTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TxnOffsetCommitRequestPartition_v2(w, _e)


def _read_TxnOffsetCommitRequestTopic_v3(r: Reader) -> TxnOffsetCommitRequestTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitRequest.Partitions is null")
    partitions = [_read_TxnOffsetCommitRequestPartition_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TxnOffsetCommitRequestTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TxnOffsetCommitRequestTopic_v3(w: Writer, m: TxnOffsetCommitRequestTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TxnOffsetCommitRequestPartition_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> TxnOffsetCommitRequest:
    transactional_id = r.string()
    group_id = r.string()
    producer_id, producer_epoch = r.unpack(_S_qh)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitRequest.Topics is null")
    topics = [_read_TxnOffsetCommitRequestTopic_v0(r) for _ in range(_n)]
    return TxnOffsetCommitRequest(transactional_id=transactional_id, group_id=group_id, producer_id=producer_id, producer_epoch=producer_epoch, topics=topics)


def write_v0(w: Writer, m: TxnOffsetCommitRequest) -> None:
    write_string(w, m.transactional_id)
    write_string(w, m.group_id)
    w += _S_qh.pack(m.producer_id, m.producer_epoch)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TxnOffsetCommitRequestTopic_v0(w, _e)


def read_v2(r: Reader) -> TxnOffsetCommitRequest:
    transactional_id = r.string()
    group_id = r.string()
    producer_id, producer_epoch = r.unpack(_S_qh)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitRequest.Topics is null")
    topics = [_read_TxnOffsetCommitRequestTopic_v2(r) for _ in range(_n)]
    return TxnOffsetCommitRequest(transactional_id=transactional_id, group_id=group_id, producer_id=producer_id, producer_epoch=producer_epoch, topics=topics)


def write_v2(w: Writer, m: TxnOffsetCommitRequest) -> None:
    write_string(w, m.transactional_id)
    write_string(w, m.group_id)
    w += _S_qh.pack(m.producer_id, m.producer_epoch)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TxnOffsetCommitRequestTopic_v2(w, _e)


def read_v3(r: Reader) -> TxnOffsetCommitRequest:
    transactional_id = r.compact_string()
    group_id = r.compact_string()
    producer_id, producer_epoch, generation_id = r.unpack(_S_qhi)
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TxnOffsetCommitRequest.Topics is null")
    topics = [_read_TxnOffsetCommitRequestTopic_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TxnOffsetCommitRequest(transactional_id=transactional_id, group_id=group_id, producer_id=producer_id, producer_epoch=producer_epoch, generation_id=generation_id, member_id=member_id, group_instance_id=group_instance_id, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: TxnOffsetCommitRequest) -> None:
    write_compact_string(w, m.transactional_id)
    write_compact_string(w, m.group_id)
    w += _S_qhi.pack(m.producer_id, m.producer_epoch, m.generation_id)
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TxnOffsetCommitRequestTopic_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v4 = read_v3
write_v4 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> TxnOffsetCommitRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: TxnOffsetCommitRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> TxnOffsetCommitRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: TxnOffsetCommitRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
