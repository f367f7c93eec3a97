# Generated from FetchResponse.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    RecordsData,
    Writer,
    ZERO_UUID,
    decode_message,
    encode_message,
    write_array_length,
    write_compact_array_length,
    write_compact_nullable_string,
    write_compact_records,
    write_compact_string,
    write_records,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "FetchResponse"
API_KEY = 1
TYPE = "response"
VALID_VERSIONS = (0, 17)
FLEXIBLE_VERSIONS = (12, 17)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ihi = _struct.Struct(">ihi")
_S_ihq = _struct.Struct(">ihq")
_S_ihqq = _struct.Struct(">ihqq")
_S_ihqqq = _struct.Struct(">ihqqq")
_S_ii = _struct.Struct(">ii")
_S_iq = _struct.Struct(">iq")
_S_qi = _struct.Struct(">qi")
_S_qq = _struct.Struct(">qq")


@dataclass(slots=True)
class EpochEndOffset:
    epoch: int = -1
    end_offset: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderIdAndEpoch:
    leader_id: int = -1
    leader_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class SnapshotId:
    end_offset: int = -1
    epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AbortedTransaction:
    producer_id: int = 0
    first_offset: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    error_code: int = 0
    high_watermark: int = 0
    last_stable_offset: int = -1
    log_start_offset: int = -1
    diverging_epoch: EpochEndOffset = _field(default_factory=EpochEndOffset)
    current_leader: LeaderIdAndEpoch = _field(default_factory=LeaderIdAndEpoch)
    snapshot_id: SnapshotId = _field(default_factory=SnapshotId)
    aborted_transactions: list[AbortedTransaction] | None = _field(default_factory=list)
    preferred_read_replica: int = -1
    records: RecordsData | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchableTopicResponse:
    topic: str = ""
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class NodeEndpoint:
    node_id: int = 0
    host: str = ""
    port: int = 0
    rack: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class FetchResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    session_id: int = 0
    responses: list[FetchableTopicResponse] = _field(default_factory=list)
    node_endpoints: list[NodeEndpoint] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_EpochEndOffset_v12(r: Reader) -> EpochEndOffset:
    epoch, end_offset = r.unpack(_S_iq)
    unknown_tagged_fields = r.tagged_fields()
    return EpochEndOffset(epoch=epoch, end_offset=end_offset, unknown_tagged_fields=unknown_tagged_fields)


def _write_EpochEndOffset_v12(w: Writer, m: EpochEndOffset) -> None:
    w += _S_iq.pack(m.epoch, m.end_offset)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderIdAndEpoch_v12(r: Reader) -> LeaderIdAndEpoch:
    leader_id, leader_epoch = r.unpack(_S_ii)
    unknown_tagged_fields = r.tagged_fields()
    return LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderIdAndEpoch_v12(w: Writer, m: LeaderIdAndEpoch) -> None:
    w += _S_ii.pack(m.leader_id, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_SnapshotId_v12(r: Reader) -> SnapshotId:
    end_offset, epoch = r.unpack(_S_qi)
    unknown_tagged_fields = r.tagged_fields()
    return SnapshotId(end_offset=end_offset, epoch=epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_SnapshotId_v12(w: Writer, m: SnapshotId) -> None:
    w += _S_qi.pack(m.end_offset, m.epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_AbortedTransaction_v4(r: Reader) -> AbortedTransaction:
    producer_id, first_offset = r.unpack(_S_qq)
    return AbortedTransaction(producer_id=producer_id, first_offset=first_offset)


def _write_AbortedTransaction_v4(w: Writer, m: AbortedTransaction) -> None:
    w += _S_qq.pack(m.producer_id, m.first_offset)


def _read_AbortedTransaction_v12(r: Reader) -> AbortedTransaction:
    producer_id, first_offset = r.unpack(_S_qq)
    unknown_tagged_fields = r.tagged_fields()
    return AbortedTransaction(producer_id=producer_id, first_offset=first_offset, unknown_tagged_fields=unknown_tagged_fields)


def _write_AbortedTransaction_v12(w: Writer, m: AbortedTransaction) -> None:
    w += _S_qq.pack(m.producer_id, m.first_offset)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index, error_code, high_watermark = r.unpack(_S_ihq)
    records = r.records()
    return PartitionData(partition_index=partition_index, error_code=error_code, high_watermark=high_watermark, records=records)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_ihq.pack(m.partition_index, m.error_code, m.high_watermark)
    write_records(w, m.records)


def _read_PartitionData_v4(r: Reader) -> PartitionData:
    partition_index, error_code, high_watermark, last_stable_offset = r.unpack(_S_ihqq)
    _n = r.array_length()
    aborted_transactions = None if _n < 0 else [_read_AbortedTransaction_v4(r) for _ in range(_n)]
    records = r.records()
    return PartitionData(partition_index=partition_index, error_code=error_code, high_watermark=high_watermark, last_stable_offset=last_stable_offset, aborted_transactions=aborted_transactions, records=records)


def _write_PartitionData_v4(w: Writer, m: PartitionData) -> None:
    w += _S_ihqq.pack(m.partition_index, m.error_code, m.high_watermark, m.last_stable_offset)
    _v = m.aborted_transactions
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_AbortedTransaction_v4(w, _e)
    write_records(w, m.records)


def _read_PartitionData_v5(r: Reader) -> PartitionData:
    partition_index, error_code, high_watermark, last_stable_offset, log_start_offset = r.unpack(_S_ihqqq)
    _n = r.array_length()
    aborted_transactions = None if _n < 0 else [_read_AbortedTransaction_v4(r) for _ in range(_n)]
    records = r.records()
    return PartitionData(partition_index=partition_index, error_code=error_code, high_watermark=high_watermark, last_stable_offset=last_stable_offset, log_start_offset=log_start_offset, aborted_transactions=aborted_transactions, records=records)


def _write_PartitionData_v5(w: Writer, m: PartitionData) -> None:
    w += _S_ihqqq.pack(m.partition_index, m.error_code, m.high_watermark, m.last_stable_offset, m.log_start_offset)
    _v = m.aborted_transactions
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_AbortedTransaction_v4(w, _e)
    write_records(w, m.records)


def _read_PartitionData_v11(r: Reader) -> PartitionData:
    partition_index, error_code, high_watermark, last_stable_offset, log_start_offset = r.unpack(_S_ihqqq)
    _n = r.array_length()
    aborted_transactions = None if _n < 0 else [_read_AbortedTransaction_v4(r) for _ in range(_n)]
    preferred_read_replica = r.int32()
    records = r.records()
    return PartitionData(partition_index=partition_index, error_code=error_code, high_watermark=high_watermark, last_stable_offset=last_stable_offset, log_start_offset=log_start_offset, aborted_transactions=aborted_transactions, preferred_read_replica=preferred_read_replica, records=records)


def _write_PartitionData_v11(w: Writer, m: PartitionData) -> None:
    w += _S_ihqqq.pack(m.partition_index, m.error_code, m.high_watermark, m.last_stable_offset, m.log_start_offset)
    _v = m.aborted_transactions
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_AbortedTransaction_v4(w, _e)
    w += _S_i.pack(m.preferred_read_replica)
    write_records(w, m.records)


def _read_PartitionData_v12(r: Reader) -> PartitionData:
    partition_index, error_code, high_watermark, last_stable_offset, log_start_offset = r.unpack(_S_ihqqq)
    _n = r.compact_array_length()
    aborted_transactions = None if _n < 0 else [_read_AbortedTransaction_v12(r) for _ in range(_n)]
    preferred_read_replica = r.int32()
    records = r.compact_records()
    diverging_epoch = EpochEndOffset()
    current_leader = LeaderIdAndEpoch()
    snapshot_id = SnapshotId()
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            diverging_epoch = _read_EpochEndOffset_v12(r)
            if r.pos != _end:
                raise ProtocolError("tagged field FetchResponse.DivergingEpoch does not match its size")
        elif _tag == 1:
            _end = r.pos + _size
            current_leader = _read_LeaderIdAndEpoch_v12(r)
            if r.pos != _end:
                raise ProtocolError("tagged field FetchResponse.CurrentLeader does not match its size")
        elif _tag == 2:
            _end = r.pos + _size
            snapshot_id = _read_SnapshotId_v12(r)
            if r.pos != _end:
                raise ProtocolError("tagged field FetchResponse.SnapshotId does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return PartitionData(partition_index=partition_index, error_code=error_code, high_watermark=high_watermark, last_stable_offset=last_stable_offset, log_start_offset=log_start_offset, aborted_transactions=aborted_transactions, preferred_read_replica=preferred_read_replica, records=records, diverging_epoch=diverging_epoch, current_leader=current_leader, snapshot_id=snapshot_id, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v12(w: Writer, m: PartitionData) -> None:
    w += _S_ihqqq.pack(m.partition_index, m.error_code, m.high_watermark, m.last_stable_offset, m.log_start_offset)
    _v = m.aborted_transactions
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_AbortedTransaction_v12(w, _e)
    w += _S_i.pack(m.preferred_read_replica)
    write_compact_records(w, m.records)
    _known = []
    if m.diverging_epoch != EpochEndOffset():
        _t = Writer()
        _write_EpochEndOffset_v12(_t, m.diverging_epoch)
        _known.append((0, _t))
    if m.current_leader != LeaderIdAndEpoch():
        _t = Writer()
        _write_LeaderIdAndEpoch_v12(_t, m.current_leader)
        _known.append((1, _t))
    if m.snapshot_id != SnapshotId():
        _t = Writer()
        _write_SnapshotId_v12(_t, m.snapshot_id)
        _known.append((2, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def _read_FetchableTopicResponse_v0(r: Reader) -> FetchableTopicResponse:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Partitions is null")
    partitions = [_read_PartitionData_v0(r) for _ in range(_n)]
    return FetchableTopicResponse(topic=topic, partitions=partitions)


def _write_FetchableTopicResponse_v0(w: Writer, m: FetchableTopicResponse) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionData_v0(w, _e)


def _read_FetchableTopicResponse_v4(r: Reader) -> FetchableTopicResponse:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Partitions is null")
    partitions = [_read_PartitionData_v4(r) for _ in range(_n)]
    return FetchableTopicResponse(topic=topic, partitions=partitions)


def _write_FetchableTopicResponse_v4(w: Writer, m: FetchableTopicResponse) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionData_v4(w, _e)


def _read_FetchableTopicResponse_v5(r: Reader) -> FetchableTopicResponse:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Partitions is null")
    partitions = [_read_PartitionData_v5(r) for _ in range(_n)]
    return FetchableTopicResponse(topic=topic, partitions=partitions)


def _write_FetchableTopicResponse_v5(w: Writer, m: FetchableTopicResponse) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionData_v5(w, _e)


def _read_FetchableTopicResponse_v11(r: Reader) -> FetchableTopicResponse:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Partitions is null")
    partitions = [_read_PartitionData_v11(r) for _ in range(_n)]
    return FetchableTopicResponse(topic=topic, partitions=partitions)


def _write_FetchableTopicResponse_v11(w: Writer, m: FetchableTopicResponse) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionData_v11(w, _e)


def _read_FetchableTopicResponse_v12(r: Reader) -> FetchableTopicResponse:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Partitions is null")
    partitions = [_read_PartitionData_v12(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchableTopicResponse(topic=topic, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchableTopicResponse_v12(w: Writer, m: FetchableTopicResponse) -> None:
    write_compact_string(w, m.topic)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v12(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_FetchableTopicResponse_v13(r: Reader) -> FetchableTopicResponse:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Partitions is null")
    partitions = [_read_PartitionData_v12(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchableTopicResponse(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_FetchableTopicResponse_v13(w: Writer, m: FetchableTopicResponse) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v12(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_NodeEndpoint_v16(r: Reader) -> NodeEndpoint:
    node_id = r.int32()
    host = r.compact_string()
    port = r.int32()
    rack = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return NodeEndpoint(node_id=node_id, host=host, port=port, rack=rack, unknown_tagged_fields=unknown_tagged_fields)


def _write_NodeEndpoint_v16(w: Writer, m: NodeEndpoint) -> None:
    w += _S_i.pack(m.node_id)
    write_compact_string(w, m.host)
    w += _S_i.pack(m.port)
    write_compact_nullable_string(w, m.rack)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> FetchResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v0(r) for _ in range(_n)]
    return FetchResponse(responses=responses)


def write_v0(w: Writer, m: FetchResponse) -> None:
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchableTopicResponse_v0(w, _e)


def read_v1(r: Reader) -> FetchResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v0(r) for _ in range(_n)]
    return FetchResponse(throttle_time_ms=throttle_time_ms, responses=responses)


def write_v1(w: Writer, m: FetchResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchableTopicResponse_v0(w, _e)


def read_v4(r: Reader) -> FetchResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v4(r) for _ in range(_n)]
    return FetchResponse(throttle_time_ms=throttle_time_ms, responses=responses)


def write_v4(w: Writer, m: FetchResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchableTopicResponse_v4(w, _e)


def read_v5(r: Reader) -> FetchResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v5(r) for _ in range(_n)]
    return FetchResponse(throttle_time_ms=throttle_time_ms, responses=responses)


def write_v5(w: Writer, m: FetchResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchableTopicResponse_v5(w, _e)


def read_v7(r: Reader) -> FetchResponse:
    throttle_time_ms, error_code, session_id = r.unpack(_S_ihi)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v5(r) for _ in range(_n)]
    return FetchResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, session_id=session_id, responses=responses)


def write_v7(w: Writer, m: FetchResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.session_id)
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchableTopicResponse_v5(w, _e)


def read_v11(r: Reader) -> FetchResponse:
    throttle_time_ms, error_code, session_id = r.unpack(_S_ihi)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v11(r) for _ in range(_n)]
    return FetchResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, session_id=session_id, responses=responses)


def write_v11(w: Writer, m: FetchResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.session_id)
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_FetchableTopicResponse_v11(w, _e)


def read_v12(r: Reader) -> FetchResponse:
    throttle_time_ms, error_code, session_id = r.unpack(_S_ihi)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v12(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, session_id=session_id, responses=responses, unknown_tagged_fields=unknown_tagged_fields)


def write_v12(w: Writer, m: FetchResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.session_id)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchableTopicResponse_v12(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v13(r: Reader) -> FetchResponse:
    throttle_time_ms, error_code, session_id = r.unpack(_S_ihi)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v13(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FetchResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, session_id=session_id, responses=responses, unknown_tagged_fields=unknown_tagged_fields)


def write_v13(w: Writer, m: FetchResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.session_id)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchableTopicResponse_v13(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v16(r: Reader) -> FetchResponse:
    throttle_time_ms, error_code, session_id = r.unpack(_S_ihi)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FetchResponse.Responses is null")
    responses = [_read_FetchableTopicResponse_v13(r) for _ in range(_n)]
    node_endpoints = []
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            _n = r.compact_array_length()
            if _n < 0:
                raise ProtocolError("non-nullable array FetchResponse.NodeEndpoints is null")
            node_endpoints = [_read_NodeEndpoint_v16(r) for _ in range(_n)]
            if r.pos != _end:
                raise ProtocolError("tagged field FetchResponse.NodeEndpoints does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return FetchResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, session_id=session_id, responses=responses, node_endpoints=node_endpoints, unknown_tagged_fields=unknown_tagged_fields)


def write_v16(w: Writer, m: FetchResponse) -> None:
    w += _S_ihi.pack(m.throttle_time_ms, m.error_code, m.session_id)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_FetchableTopicResponse_v13(w, _e)
    _known = []
    if m.node_endpoints != []:
        _t = Writer()
        _v = m.node_endpoints
        write_uvarint(_t, len(_v) + 1)
        for _e in _v:
            _write_NodeEndpoint_v16(_t, _e)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


read_v2 = read_v1
write_v2 = write_v1
read_v3 = read_v1
write_v3 = write_v1
read_v6 = read_v5
write_v6 = write_v5
read_v8 = read_v7
write_v8 = write_v7
read_v9 = read_v7
write_v9 = write_v7
read_v10 = read_v7
write_v10 = write_v7
read_v14 = read_v13
write_v14 = write_v13
read_v15 = read_v13
write_v15 = write_v13
read_v17 = read_v16
write_v17 = write_v16

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9, 10: read_v10, 11: read_v11, 12: read_v12, 13: read_v13, 14: read_v14, 15: read_v15, 16: read_v16, 17: read_v17}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9, 10: write_v10, 11: write_v11, 12: write_v12, 13: write_v13, 14: write_v14, 15: write_v15, 16: write_v16, 17: write_v17}


def read(r: Reader, version: int) -> FetchResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: FetchResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> FetchResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: FetchResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
