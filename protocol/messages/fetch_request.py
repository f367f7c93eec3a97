# Generated from FetchRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "FetchRequest"
API_KEY = 1
TYPE = "request"
VALID_VERSIONS = (0, 17)
FLEXIBLE_VERSIONS = (12, 17)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iii = _struct.Struct(">iii")
_S_iiibii = _struct.Struct(">iiibii")
_S_iiii = _struct.Struct(">iiii")
_S_iiiib = _struct.Struct(">iiiib")
_S_iiiibii = _struct.Struct(">iiiibii")
_S_iiqiqi = _struct.Struct(">iiqiqi")
_S_iiqqi = _struct.Struct(">iiqqi")
_S_iq = _struct.Struct(">iq")
_S_iqi = _struct.Struct(">iqi")
_S_iqqi = _struct.Struct(">iqqi")


@dataclass(slots=True)
class ReplicaState:
    replica_id: int = -1
    replica_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchPartition:
    partition: int = 0
    current_leader_epoch: int = -1
    fetch_offset: int = 0
    last_fetched_epoch: int = -1
    log_start_offset: int = -1
    partition_max_bytes: int = 0
    replica_directory_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchTopic:
    topic: str = ""
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[FetchPartition] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ForgottenTopic:
    topic: str = ""
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchRequest:
    cluster_id: str | None = None
    replica_id: int = -1
    replica_state: ReplicaState = _field(default_factory=ReplicaState)
    max_wait_ms: int = 0
    min_bytes: int = 0
    max_bytes: int = 2147483647
    isolation_level: int = 0
    session_id: int = 0
    session_epoch: int = -1
    topics: list[FetchTopic] = _field(default_factory=list)
    forgotten_topics_data: list[ForgottenTopic] = _field(default_factory=list)
    rack_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ReplicaState_v15(r: Reader) -> ReplicaState:
    replica_id, replica_epoch = r.unpack(_S_iq)
    unknown_tagged_fields = r.tagged_fields()
    return ReplicaState(replica_id=replica_id, replica_epoch=replica_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReplicaState_v15(w: Writer, m: ReplicaState) -> None:
    w += _S_iq.pack(m.replica_id, m.replica_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FetchPartition_v0(r: Reader) -> FetchPartition:
    partition, fetch_offset, partition_max_bytes = r.unpack(_S_iqi)
    return FetchPartition(partition=partition, fetch_offset=fetch_offset, partition_max_bytes=partition_max_bytes)


def _write_FetchPartition_v0(w: Writer, m: FetchPartition) -> None:
    w += _S_iqi.pack(m.partition, m.fetch_offset, m.partition_max_bytes)


def _read_FetchPartition_v5(r: Reader) -> FetchPartition:
    partition, fetch_offset, log_start_offset, partition_max_bytes = r.unpack(_S_iqqi)
    return FetchPartition(partition=partition, fetch_offset=fetch_offset, log_start_offset=log_start_offset, partition_max_bytes=partition_max_bytes)


def _write_FetchPartition_v5(w: Writer, m: FetchPartition) -> None:
    w += _S_iqqi.pack(m.partition, m.fetch_offset, m.log_start_offset, m.partition_max_bytes)


def _read_FetchPartition_v9(r: Reader) -> FetchPartition:
    partition, current_leader_epoch, fetch_offset, log_start_offset, partition_max_bytes = r.unpack(_S_iiqqi)
    return FetchPartition(partition=partition, current_leader_epoch=current_leader_epoch, fetch_offset=fetch_offset, log_start_offset=log_start_offset, partition_max_bytes=partition_max_bytes)


def _write_FetchPartition_v9(w: Writer, m: FetchPartition) -> None:
    w += _S_iiqqi.pack(m.partition, m.current_leader_epoch, m.fetch_offset, m.log_start_offset, m.partition_max_bytes)


def _read_FetchPartition_v12(r: Reader) -> FetchPartition:
    partition, current_leader_epoch, fetch_offset, last_fetched_epoch, log_start_offset, partition_max_bytes = r.unpack(_S_iiqiqi)
    unknown_tagged_fields = r.tagged_fields()
    return FetchPartition(partition=partition, current_leader_epoch=current_leader_epoch, fetch_offset=fetch_offset, last_fetched_epoch=last_fetched_epoch, log_start_offset=log_start_offset, partition_max_bytes=partition_max_bytes, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchPartition_v12(w: Writer, m: FetchPartition) -> None:
    w += _S_iiqiqi.pack(m.partition, m.current_leader_epoch, m.fetch_offset, m.last_fetched_epoch, m.log_start_offset, m.partition_max_bytes)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FetchPartition_v17(r: Reader) -> FetchPartition:
    partition, current_leader_epoch, fetch_offset, last_fetched_epoch, log_start_offset, partition_max_bytes = r.unpack(_S_iiqiqi)
    replica_directory_id = ZERO_UUID
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            replica_directory_id = r.uuid()
            if r.pos != _end:
                raise ProtocolError("tagged field FetchRequest.ReplicaDirectoryId does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchPartition(partition=partition, current_leader_epoch=current_leader_epoch, fetch_offset=fetch_offset, last_fetched_epoch=last_fetched_epoch, log_start_offset=log_start_offset, partition_max_bytes=partition_max_bytes, replica_directory_id=replica_directory_id, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchPartition_v17(w: Writer, m: FetchPartition) -> None:
    w += _S_iiqiqi.pack(m.partition, m.current_leader_epoch, m.fetch_offset, m.last_fetched_epoch, m.log_start_offset, m.partition_max_bytes)
    _known = []
    if m.replica_directory_id != ZERO_UUID:
        _t = Writer()
        _t += m.replica_directory_id.bytes
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def _read_FetchTopic_v0(r: Reader) -> FetchTopic:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = [_read_FetchPartition_v0(r) for _ in range(_n)]
    return FetchTopic(topic=topic, partitions=partitions)


def _write_FetchTopic_v0(w: Writer, m: FetchTopic) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchPartition_v0(w, _e)


def _read_FetchTopic_v5(r: Reader) -> FetchTopic:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = [_read_FetchPartition_v5(r) for _ in range(_n)]
    return FetchTopic(topic=topic, partitions=partitions)


def _write_FetchTopic_v5(w: Writer, m: FetchTopic) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchPartition_v5(w, _e)


def _read_FetchTopic_v9(r: Reader) -> FetchTopic:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = [_read_FetchPartition_v9(r) for _ in range(_n)]
    return FetchTopic(topic=topic, partitions=partitions)


def _write_FetchTopic_v9(w: Writer, m: FetchTopic) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchPartition_v9(w, _e)


def _read_FetchTopic_v12(r: Reader) -> FetchTopic:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = [_read_FetchPartition_v12(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchTopic(topic=topic, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchTopic_v12(w: Writer, m: FetchTopic) -> None:
    write_compact_string(w, m.topic)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchPartition_v12(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FetchTopic_v13(r: Reader) -> FetchTopic:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = [_read_FetchPartition_v12(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchTopic(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchTopic_v13(w: Writer, m: FetchTopic) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchPartition_v12(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FetchTopic_v17(r: Reader) -> FetchTopic:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = [_read_FetchPartition_v17(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchTopic(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchTopic_v17(w: Writer, m: FetchTopic) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchPartition_v17(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ForgottenTopic_v7(r: Reader) -> ForgottenTopic:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    return ForgottenTopic(topic=topic, partitions=partitions)


def _write_ForgottenTopic_v7(w: Writer, m: ForgottenTopic) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_ForgottenTopic_v12(r: Reader) -> ForgottenTopic:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return ForgottenTopic(topic=topic, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ForgottenTopic_v12(w: Writer, m: ForgottenTopic) -> None:
    write_compact_string(w, m.topic)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ForgottenTopic_v13(r: Reader) -> ForgottenTopic:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return ForgottenTopic(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ForgottenTopic_v13(w: Writer, m: ForgottenTopic) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes = r.unpack(_S_iii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v0(r) for _ in range(_n)]
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, topics=topics)


def write_v0(w: Writer, m: FetchRequest) -> None:
    w += _S_iii.pack(m.replica_id, m.max_wait_ms, m.min_bytes)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchTopic_v0(w, _e)


def read_v3(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes, max_bytes = r.unpack(_S_iiii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v0(r) for _ in range(_n)]
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, topics=topics)


def write_v3(w: Writer, m: FetchRequest) -> None:
    w += _S_iiii.pack(m.replica_id, m.max_wait_ms, m.min_bytes, m.max_bytes)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchTopic_v0(w, _e)


def read_v4(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes, max_bytes, isolation_level = r.unpack(_S_iiiib)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v0(r) for _ in range(_n)]
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, topics=topics)


def write_v4(w: Writer, m: FetchRequest) -> None:
    w += _S_iiiib.pack(m.replica_id, m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchTopic_v0(w, _e)


def read_v5(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes, max_bytes, isolation_level = r.unpack(_S_iiiib)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v5(r) for _ in range(_n)]
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, topics=topics)


def write_v5(w: Writer, m: FetchRequest) -> None:
    w += _S_iiiib.pack(m.replica_id, m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchTopic_v5(w, _e)


def read_v7(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes, max_bytes, isolation_level, session_id, session_epoch = r.unpack(_S_iiiibii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v5(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.ForgottenTopicsData is null")
    forgotten_topics_data = [_read_ForgottenTopic_v7(r) for _ in range(_n)]
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, session_id=session_id, session_epoch=session_epoch, topics=topics, forgotten_topics_data=forgotten_topics_data)


def write_v7(w: Writer, m: FetchRequest) -> None:
    w += _S_iiiibii.pack(m.replica_id, m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level, m.session_id, m.session_epoch)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchTopic_v5(w, _e)
    _v = m.forgotten_topics_data
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ForgottenTopic_v7(w, _e)


def read_v9(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes, max_bytes, isolation_level, session_id, session_epoch = r.unpack(_S_iiiibii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v9(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.ForgottenTopicsData is null")
    forgotten_topics_data = [_read_ForgottenTopic_v7(r) for _ in range(_n)]
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, session_id=session_id, session_epoch=session_epoch, topics=topics, forgotten_topics_data=forgotten_topics_data)


def write_v9(w: Writer, m: FetchRequest) -> None:
    w += _S_iiiibii.pack(m.replica_id, m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level, m.session_id, m.session_epoch)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchTopic_v9(w, _e)
    _v = m.forgotten_topics_data
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ForgottenTopic_v7(w, _e)


def read_v11(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes, max_bytes, isolation_level, session_id, session_epoch = r.unpack(_S_iiiibii)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v9(r) for _ in range(_n)]
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.ForgottenTopicsData is null")
    forgotten_topics_data = [_read_ForgottenTopic_v7(r) for _ in range(_n)]
    rack_id = r.string()
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, session_id=session_id, session_epoch=session_epoch, topics=topics, forgotten_topics_data=forgotten_topics_data, rack_id=rack_id)


def write_v11(w: Writer, m: FetchRequest) -> None:
    w += _S_iiiibii.pack(m.replica_id, m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level, m.session_id, m.session_epoch)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchTopic_v9(w, _e)
    _v = m.forgotten_topics_data
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ForgottenTopic_v7(w, _e)
    write_string(w, m.rack_id)


def read_v12(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes, max_bytes, isolation_level, session_id, session_epoch = r.unpack(_S_iiiibii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v12(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.ForgottenTopicsData is null")
    forgotten_topics_data = [_read_ForgottenTopic_v12(r) for _ in range(_n)]
    rack_id = r.compact_string()
    cluster_id = None
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            cluster_id = r.compact_nullable_string()
            if r.pos != _end:
                raise ProtocolError("tagged field FetchRequest.ClusterId does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, session_id=session_id, session_epoch=session_epoch, topics=topics, forgotten_topics_data=forgotten_topics_data, rack_id=rack_id, cluster_id=cluster_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v12(w: Writer, m: FetchRequest) -> None:
    w += _S_iiiibii.pack(m.replica_id, m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level, m.session_id, m.session_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchTopic_v12(w, _e)
    _v = m.forgotten_topics_data
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ForgottenTopic_v12(w, _e)
    write_compact_string(w, m.rack_id)
    _known = []
    if m.cluster_id is not None:
        _t = Writer()
        write_compact_nullable_string(_t, m.cluster_id)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def read_v13(r: Reader) -> FetchRequest:
    replica_id, max_wait_ms, min_bytes, max_bytes, isolation_level, session_id, session_epoch = r.unpack(_S_iiiibii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v13(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.ForgottenTopicsData is null")
    forgotten_topics_data = [_read_ForgottenTopic_v13(r) for _ in range(_n)]
    rack_id = r.compact_string()
    cluster_id = None
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            cluster_id = r.compact_nullable_string()
            if r.pos != _end:
                raise ProtocolError("tagged field FetchRequest.ClusterId does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, session_id=session_id, session_epoch=session_epoch, topics=topics, forgotten_topics_data=forgotten_topics_data, rack_id=rack_id, cluster_id=cluster_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v13(w: Writer, m: FetchRequest) -> None:
    w += _S_iiiibii.pack(m.replica_id, m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level, m.session_id, m.session_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchTopic_v13(w, _e)
    _v = m.forgotten_topics_data
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ForgottenTopic_v13(w, _e)
    write_compact_string(w, m.rack_id)
    _known = []
    if m.cluster_id is not None:
        _t = Writer()
        write_compact_nullable_string(_t, m.cluster_id)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def read_v15(r: Reader) -> FetchRequest:
    max_wait_ms, min_bytes, max_bytes, isolation_level, session_id, session_epoch = r.unpack(_S_iiibii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v13(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.ForgottenTopicsData is null")
    forgotten_topics_data = [_read_ForgottenTopic_v13(r) for _ in range(_n)]
    rack_id = r.compact_string()
    cluster_id = None
    replica_state = ReplicaState()
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            cluster_id = r.compact_nullable_string()
            if r.pos != _end:
                raise ProtocolError("tagged field FetchRequest.ClusterId does not match its size")
        elif _tag == 1:
            _end = r.pos + _size
            replica_state = _read_ReplicaState_v15(r)
            if r.pos != _end:
                raise ProtocolError("tagged field FetchRequest.ReplicaState does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchRequest(max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, session_id=session_id, session_epoch=session_epoch, topics=topics, forgotten_topics_data=forgotten_topics_data, rack_id=rack_id, cluster_id=cluster_id, replica_state=replica_state, unknown_tagged_fields=unknown_tagged_fields)


def write_v15(w: Writer, m: FetchRequest) -> None:
    w += _S_iiibii.pack(m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level, m.session_id, m.session_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchTopic_v13(w, _e)
    _v = m.forgotten_topics_data
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ForgottenTopic_v13(w, _e)
    write_compact_string(w, m.rack_id)
    _known = []
    if m.cluster_id is not None:
        _t = Writer()
        write_compact_nullable_string(_t, m.cluster_id)
        _known.append((0, _t))
    if m.replica_state != ReplicaState():
        _t = Writer()
        _write_ReplicaState_v15(_t, m.replica_state)
        _known.append((1, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def read_v17(r: Reader) -> FetchRequest:
    max_wait_ms, min_bytes, max_bytes, isolation_level, session_id, session_epoch = r.unpack(_S_iiibii)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.Topics is null")
    topics = [_read_FetchTopic_v17(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchRequest.ForgottenTopicsData is null")
    forgotten_topics_data = [_read_ForgottenTopic_v13(r) for _ in range(_n)]
    rack_id = r.compact_string()
    cluster_id = None
    replica_state = ReplicaState()
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            cluster_id = r.compact_nullable_string()
            if r.pos != _end:
                raise ProtocolError("tagged field FetchRequest.ClusterId does not match its size")
        elif _tag == 1:
            _end = r.pos + _size
            replica_state = _read_ReplicaState_v15(r)
            if r.pos != _end:
                raise ProtocolError("tagged field FetchRequest.ReplicaState does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchRequest(max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation_level=isolation_level, session_id=session_id, session_epoch=session_epoch, topics=topics, forgotten_topics_data=forgotten_topics_data, rack_id=rack_id, cluster_id=cluster_id, replica_state=replica_state, unknown_tagged_fields=unknown_tagged_fields)


def write_v17(w: Writer, m: FetchRequest) -> None:
    w += _S_iiibii.pack(m.max_wait_ms, m.min_bytes, m.max_bytes, m.isolation_level, m.session_id, m.session_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchTopic_v17(w, _e)
    _v = m.forgotten_topics_data
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ForgottenTopic_v13(w, _e)
    write_compact_string(w, m.rack_id)
    _known = []
    if m.cluster_id is not None:
        _t = Writer()
        write_compact_nullable_string(_t, m.cluster_id)
        _known.append((0, _t))
    if m.replica_state != ReplicaState():
        _t = Writer()
        _write_ReplicaState_v15(_t, m.replica_state)
        _known.append((1, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v6 = read_v5
write_v6 = write_v5
read_v8 = read_v7
write_v8 = write_v7
read_v10 = read_v9
write_v10 = write_v9
read_v14 = read_v13
write_v14 = write_v13
read_v16 = read_v15
write_v16 = write_v15

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9, 10: read_v10, 11: read_v11, 12: read_v12, 13: read_v13, 14: read_v14, 15: read_v15, 16: read_v16, 17: read_v17}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9, 10: write_v10, 11: write_v11, 12: write_v12, 13: write_v13, 14: write_v14, 15: write_v15, 16: write_v16, 17: write_v17}


def read(r: Reader, version: int) -> FetchRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: FetchRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> FetchRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: FetchRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
