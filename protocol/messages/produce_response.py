# Generated from ProduceResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ProduceResponse"
API_KEY = 0
TYPE = "response"
VALID_VERSIONS = (0, 11)
FLEXIBLE_VERSIONS = (9, 11)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ihq = _struct.Struct(">ihq")
_S_ihqq = _struct.Struct(">ihqq")
_S_ihqqq = _struct.Struct(">ihqqq")
_S_ii = _struct.Struct(">ii")


@dataclass(slots=True)
class BatchIndexAndErrorMessage:
    batch_index: int = 0
    batch_index_error_message: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class LeaderIdAndEpoch:
    leader_id: int = -1
    leader_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionProduceResponse:
    index: int = 0
    error_code: int = 0
    base_offset: int = 0
    log_append_time_ms: int = -1
    log_start_offset: int = -1
    record_errors: list[BatchIndexAndErrorMessage] = _field(default_factory=list)
    error_message: str | None = None
    current_leader: LeaderIdAndEpoch = _field(default_factory=LeaderIdAndEpoch)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TopicProduceResponse:
    name: str = ""
    partition_responses: list[PartitionProduceResponse] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class NodeEndpoint:
    node_id: int = 0
    host: str = ""
    port: int = 0
    rack: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ProduceResponse:
    responses: list[TopicProduceResponse] = _field(default_factory=list)
    throttle_time_ms: int = 0
    node_endpoints: list[NodeEndpoint] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_BatchIndexAndErrorMessage_v8(r: Reader) -> BatchIndexAndErrorMessage:
    batch_index = r.int32()
    batch_index_error_message = r.nullable_string()
    return BatchIndexAndErrorMessage(batch_index=batch_index, batch_index_error_message=batch_index_error_message)


def _write_BatchIndexAndErrorMessage_v8(w: Writer, m: BatchIndexAndErrorMessage) -> None:
    w += _S_i.pack(m.batch_index)
    write_nullable_string(w, m.batch_index_error_message)


def _read_BatchIndexAndErrorMessage_v9(r: Reader) -> BatchIndexAndErrorMessage:
    batch_index = r.int32()
    batch_index_error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return BatchIndexAndErrorMessage(batch_index=batch_index, batch_index_error_message=batch_index_error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_BatchIndexAndErrorMessage_v9(w: Writer, m: BatchIndexAndErrorMessage) -> None:
    w += _S_i.pack(m.batch_index)
    write_compact_nullable_string(w, m.batch_index_error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_LeaderIdAndEpoch_v10(r: Reader) -> LeaderIdAndEpoch:
    leader_id, leader_epoch = r.unpack(_S_ii)
    unknown_tagged_fields = r.tagged_fields()
    return LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderIdAndEpoch_v10(w: Writer, m: LeaderIdAndEpoch) -> None:
    w += _S_ii.pack(m.leader_id, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionProduceResponse_v0(r: Reader) -> PartitionProduceResponse:
    index, error_code, base_offset = r.unpack(_S_ihq)
    return PartitionProduceResponse(index=index, error_code=error_code, base_offset=base_offset)


def _write_PartitionProduceResponse_v0(w: Writer, m: PartitionProduceResponse) -> None:
    w += _S_ihq.pack(m.index, m.error_code, m.base_offset)


def _read_PartitionProduceResponse_v2(r: Reader) -> PartitionProduceResponse:
    index, error_code, base_offset, log_append_time_ms = r.unpack(_S_ihqq)
    return PartitionProduceResponse(index=index, error_code=error_code, base_offset=base_offset, log_append_time_ms=log_append_time_ms)


def _write_PartitionProduceResponse_v2(w: Writer, m: PartitionProduceResponse) -> None:
    w += _S_ihqq.pack(m.index, m.error_code, m.base_offset, m.log_append_time_ms)


def _read_PartitionProduceResponse_v5(r: Reader) -> PartitionProduceResponse:
    index, error_code, base_offset, log_append_time_ms, log_start_offset = r.unpack(_S_ihqqq)
    return PartitionProduceResponse(index=index, error_code=error_code, base_offset=base_offset, log_append_time_ms=log_append_time_ms, log_start_offset=log_start_offset)


def _write_PartitionProduceResponse_v5(w: Writer, m: PartitionProduceResponse) -> None:
    w += _S_ihqqq.pack(m.index, m.error_code, m.base_offset, m.log_append_time_ms, m.log_start_offset)


def _read_PartitionProduceResponse_v8(r: Reader) -> PartitionProduceResponse:
    index, error_code, base_offset, log_append_time_ms, log_start_offset = r.unpack(_S_ihqqq)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.RecordErrors is null")
    record_errors = [_read_BatchIndexAndErrorMessage_v8(r) for _ in range(_n)]
    error_message = r.nullable_string()
    return PartitionProduceResponse(index=index, error_code=error_code, base_offset=base_offset, log_append_time_ms=log_append_time_ms, log_start_offset=log_start_offset, record_errors=record_errors, error_message=error_message)


def _write_PartitionProduceResponse_v8(w: Writer, m: PartitionProduceResponse) -> None:
    w += _S_ihqqq.pack(m.index, m.error_code, m.base_offset, m.log_append_time_ms, m.log_start_offset)
    _v = m.record_errors
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_BatchIndexAndErrorMessage_v8(w, _e)
    write_nullable_string(w, m.error_message)


def _read_PartitionProduceResponse_v9(r: Reader) -> PartitionProduceResponse:
    index, error_code, base_offset, log_append_time_ms, log_start_offset = r.unpack(_S_ihqqq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.RecordErrors is null")
    record_errors = [_read_BatchIndexAndErrorMessage_v9(r) for _ in range(_n)]
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return PartitionProduceResponse(index=index, error_code=error_code, base_offset=base_offset, log_append_time_ms=log_append_time_ms, log_start_offset=log_start_offset, record_errors=record_errors, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionProduceResponse_v9(w: Writer, m: PartitionProduceResponse) -> None:
    w += _S_ihqqq.pack(m.index, m.error_code, m.base_offset, m.log_append_time_ms, m.log_start_offset)
    _v = m.record_errors
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_BatchIndexAndErrorMessage_v9(w, _e)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionProduceResponse_v10(r: Reader) -> PartitionProduceResponse:
    index, error_code, base_offset, log_append_time_ms, log_start_offset = r.unpack(_S_ihqqq)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.RecordErrors is null")
    record_errors = [_read_BatchIndexAndErrorMessage_v9(r) for _ in range(_n)]
    error_message = r.compact_nullable_string()
    current_leader = LeaderIdAndEpoch()
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            current_leader = _read_LeaderIdAndEpoch_v10(r)
            if r.pos != _end:
                raise ProtocolError("tagged field ProduceResponse.CurrentLeader does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return PartitionProduceResponse(index=index, error_code=error_code, base_offset=base_offset, log_append_time_ms=log_append_time_ms, log_start_offset=log_start_offset, record_errors=record_errors, error_message=error_message, current_leader=current_leader, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionProduceResponse_v10(w: Writer, m: PartitionProduceResponse) -> None:
    w += _S_ihqqq.pack(m.index, m.error_code, m.base_offset, m.log_append_time_ms, m.log_start_offset)
    _v = m.record_errors
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_BatchIndexAndErrorMessage_v9(w, _e)
    write_compact_nullable_string(w, m.error_message)
    _known = []
    if m.current_leader != LeaderIdAndEpoch():
        _t = Writer()
        _write_LeaderIdAndEpoch_v10(_t, m.current_leader)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


def _read_TopicProduceResponse_v0(r: Reader) -> TopicProduceResponse:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.PartitionResponses is null")
    partition_responses = [_read_PartitionProduceResponse_v0(r) for _ in range(_n)]
    return TopicProduceResponse(name=name, partition_responses=partition_responses)


def _write_TopicProduceResponse_v0(w: Writer, m: TopicProduceResponse) -> None:
    write_string(w, m.name)
    _v = m.partition_responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionProduceResponse_v0(w, _e)


def _read_TopicProduceResponse_v2(r: Reader) -> TopicProduceResponse:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.PartitionResponses is null")
    partition_responses = [_read_PartitionProduceResponse_v2(r) for _ in range(_n)]
    return TopicProduceResponse(name=name, partition_responses=partition_responses)


def _write_TopicProduceResponse_v2(w: Writer, m: TopicProduceResponse) -> None:
    write_string(w, m.name)
    _v = m.partition_responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionProduceResponse_v2(w, _e)


def _read_TopicProduceResponse_v5(r: Reader) -> TopicProduceResponse:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.PartitionResponses is null")
    partition_responses = [_read_PartitionProduceResponse_v5(r) for _ in range(_n)]
    return TopicProduceResponse(name=name, partition_responses=partition_responses)


def _write_TopicProduceResponse_v5(w: Writer, m: TopicProduceResponse) -> None:
    write_string(w, m.name)
    _v = m.partition_responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionProduceResponse_v5(w, _e)


def _read_TopicProduceResponse_v8(r: Reader) -> TopicProduceResponse:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.PartitionResponses is null")
    partition_responses = [_read_PartitionProduceResponse_v8(r) for _ in range(_n)]
    return TopicProduceResponse(name=name, partition_responses=partition_responses)


def _write_TopicProduceResponse_v8(w: Writer, m: TopicProduceResponse) -> None:
    write_string(w, m.name)
    _v = m.partition_responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionProduceResponse_v8(w, _e)


def _read_TopicProduceResponse_v9(r: Reader) -> TopicProduceResponse:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.PartitionResponses is null")
    partition_responses = [_read_PartitionProduceResponse_v9(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicProduceResponse(name=name, partition_responses=partition_responses, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicProduceResponse_v9(w: Writer, m: TopicProduceResponse) -> None:
    write_compact_string(w, m.name)
    _v = m.partition_responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionProduceResponse_v9(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TopicProduceResponse_v10(r: Reader) -> TopicProduceResponse:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.PartitionResponses is null")
    partition_responses = [_read_PartitionProduceResponse_v10(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TopicProduceResponse(name=name, partition_responses=partition_responses, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicProduceResponse_v10(w: Writer, m: TopicProduceResponse) -> None:
    write_compact_string(w, m.name)
    _v = m.partition_responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionProduceResponse_v10(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_NodeEndpoint_v10(r: Reader) -> NodeEndpoint:
    node_id = r.int32()
    host = r.compact_string()
    port = r.int32()
    rack = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return NodeEndpoint(node_id=node_id, host=host, port=port, rack=rack, unknown_tagged_fields=unknown_tagged_fields)


def _write_NodeEndpoint_v10(w: Writer, m: NodeEndpoint) -> None:
    w += _S_i.pack(m.node_id)
    write_compact_string(w, m.host)
    w += _S_i.pack(m.port)
    write_compact_nullable_string(w, m.rack)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ProduceResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.Responses is null")
    responses = [_read_TopicProduceResponse_v0(r) for _ in range(_n)]
    return ProduceResponse(responses=responses)


def write_v0(w: Writer, m: ProduceResponse) -> None:
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicProduceResponse_v0(w, _e)


def read_v1(r: Reader) -> ProduceResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.Responses is null")
    responses = [_read_TopicProduceResponse_v0(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    return ProduceResponse(responses=responses, throttle_time_ms=throttle_time_ms)


def write_v1(w: Writer, m: ProduceResponse) -> None:
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicProduceResponse_v0(w, _e)
    w += _S_i.pack(m.throttle_time_ms)


def read_v2(r: Reader) -> ProduceResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.Responses is null")
    responses = [_read_TopicProduceResponse_v2(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    return ProduceResponse(responses=responses, throttle_time_ms=throttle_time_ms)


def write_v2(w: Writer, m: ProduceResponse) -> None:
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicProduceResponse_v2(w, _e)
    w += _S_i.pack(m.throttle_time_ms)


def read_v5(r: Reader) -> ProduceResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.Responses is null")
    responses = [_read_TopicProduceResponse_v5(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    return ProduceResponse(responses=responses, throttle_time_ms=throttle_time_ms)


def write_v5(w: Writer, m: ProduceResponse) -> None:
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicProduceResponse_v5(w, _e)
    w += _S_i.pack(m.throttle_time_ms)


def read_v8(r: Reader) -> ProduceResponse:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.Responses is null")
    responses = [_read_TopicProduceResponse_v8(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    return ProduceResponse(responses=responses, throttle_time_ms=throttle_time_ms)


def write_v8(w: Writer, m: ProduceResponse) -> None:
    _v = m.responses
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_TopicProduceResponse_v8(w, _e)
    w += _S_i.pack(m.throttle_time_ms)


def read_v9(r: Reader) -> ProduceResponse:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.Responses is null")
    responses = [_read_TopicProduceResponse_v9(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return ProduceResponse(responses=responses, throttle_time_ms=throttle_time_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v9(w: Writer, m: ProduceResponse) -> None:
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicProduceResponse_v9(w, _e)
    w += _S_i.pack(m.throttle_time_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v10(r: Reader) -> ProduceResponse:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ProduceResponse.Responses is null")
    responses = [_read_TopicProduceResponse_v10(r) for _ in range(_n)]
    throttle_time_ms = r.int32()
    node_endpoints = []
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            _n = r.compact_array_length()
            if _n < 0:
                raise ProtocolError("non-nullable array ProduceResponse.NodeEndpoints is null")
            node_endpoints = [_read_NodeEndpoint_v10(r) for _ in range(_n)]
            if r.pos != _end:
                raise ProtocolError("tagged field ProduceResponse.NodeEndpoints does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return ProduceResponse(responses=responses, throttle_time_ms=throttle_time_ms, node_endpoints=node_endpoints, unknown_tagged_fields=unknown_tagged_fields)


def write_v10(w: Writer, m: ProduceResponse) -> None:
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicProduceResponse_v10(w, _e)
    w += _S_i.pack(m.throttle_time_ms)
    _known = []
    if m.node_endpoints != []:
        _t = Writer()
        _v = m.node_endpoints
        write_uvarint(_t, len(_v) + 1)
        for _e in _v:
            _write_NodeEndpoint_v10(_t, _e)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


read_v3 = read_v2
write_v3 = write_v2
read_v4 = read_v2
write_v4 = write_v2
read_v6 = read_v5
write_v6 = write_v5
read_v7 = read_v5
write_v7 = write_v5
read_v11 = read_v10
write_v11 = write_v10

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9, 10: read_v10, 11: read_v11}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9, 10: write_v10, 11: write_v11}


def read(r: Reader, version: int) -> ProduceResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ProduceResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ProduceResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ProduceResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
