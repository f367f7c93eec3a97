# Generated from ShareAcknowledgeResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "ShareAcknowledgeResponse"
API_KEY = 79
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_ii = _struct.Struct(">ii")


@dataclass(slots=True)
class LeaderIdAndEpoch:
    leader_id: int = 0
    leader_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    error_code: int = 0
    error_message: str | None = None
    current_leader: LeaderIdAndEpoch = _field(default_factory=LeaderIdAndEpoch)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ShareAcknowledgeTopicResponse:
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
class ShareAcknowledgeResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    responses: list[ShareAcknowledgeTopicResponse] = _field(default_factory=list)
    node_endpoints: list[NodeEndpoint] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_LeaderIdAndEpoch_v0(r: Reader) -> LeaderIdAndEpoch:
    leader_id, leader_epoch = r.unpack(_S_ii)
    unknown_tagged_fields = r.tagged_fields()
    return LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=leader_epoch, unknown_tagged_fields=unknown_tagged_fields)


def _write_LeaderIdAndEpoch_v0(w: Writer, m: LeaderIdAndEpoch) -> None:
    w += _S_ii.pack(m.leader_id, m.leader_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_PartitionData_v0(r: Reader) -> PartitionData:
    partition_index, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    current_leader = _read_LeaderIdAndEpoch_v0(r)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionData(partition_index=partition_index, error_code=error_code, error_message=error_message, current_leader=current_leader, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionData_v0(w: Writer, m: PartitionData) -> None:
    w += _S_ih.pack(m.partition_index, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _write_LeaderIdAndEpoch_v0(w, m.current_leader)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ShareAcknowledgeTopicResponse_v0(r: Reader) -> ShareAcknowledgeTopicResponse:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareAcknowledgeResponse.Partitions is null")
    partitions = [_read_PartitionData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ShareAcknowledgeTopicResponse(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_ShareAcknowledgeTopicResponse_v0(w: Writer, m: ShareAcknowledgeTopicResponse) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_NodeEndpoint_v0(r: Reader) -> NodeEndpoint:
    node_id = r.int32()
    host = r.compact_string()
    port = r.int32()
    rack = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return NodeEndpoint(node_id=node_id, host=host, port=port, rack=rack, unknown_tagged_fields=unknown_tagged_fields)


def _write_NodeEndpoint_v0(w: Writer, m: NodeEndpoint) -> None:
    w += _S_i.pack(m.node_id)
    write_compact_string(w, m.host)
    w += _S_i.pack(m.port)
    write_compact_nullable_string(w, m.rack)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ShareAcknowledgeResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareAcknowledgeResponse.Responses is null")
    responses = [_read_ShareAcknowledgeTopicResponse_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareAcknowledgeResponse.NodeEndpoints is null")
    node_endpoints = [_read_NodeEndpoint_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ShareAcknowledgeResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, responses=responses, node_endpoints=node_endpoints, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ShareAcknowledgeResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    _v = m.responses
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ShareAcknowledgeTopicResponse_v0(w, _e)
    _v = m.node_endpoints
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_NodeEndpoint_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ShareAcknowledgeResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareAcknowledgeResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareAcknowledgeResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareAcknowledgeResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
