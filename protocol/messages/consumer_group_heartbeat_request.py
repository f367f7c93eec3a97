# Generated from ConsumerGroupHeartbeatRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_array_length,
    write_compact_nullable_string,
    write_compact_string,
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ConsumerGroupHeartbeatRequest"
API_KEY = 68
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class TopicPartitions:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerGroupHeartbeatRequest:
    group_id: str = ""
    member_id: str = ""
    member_epoch: int = 0
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: list[str] | None = None
    server_assignor: str | None = None
    topic_partitions: list[TopicPartitions] | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartitions_v0(r: Reader) -> TopicPartitions:
    topic_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupHeartbeatRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return TopicPartitions(topic_id=topic_id, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicPartitions_v0(w: Writer, m: TopicPartitions) -> None:
    w += m.topic_id.bytes
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ConsumerGroupHeartbeatRequest:
    group_id = r.compact_string()
    member_id = r.compact_string()
    member_epoch = r.int32()
    instance_id = r.compact_nullable_string()
    rack_id = r.compact_nullable_string()
    rebalance_timeout_ms = r.int32()
    _n = r.compact_array_length()
    subscribed_topic_names = None if _n < 0 else [r.compact_string() for _ in range(_n)]
    server_assignor = r.compact_nullable_string()
    _n = r.compact_array_length()
    topic_partitions = None if _n < 0 else [_read_TopicPartitions_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ConsumerGroupHeartbeatRequest(group_id=group_id, member_id=member_id, member_epoch=member_epoch, instance_id=instance_id, rack_id=rack_id, rebalance_timeout_ms=rebalance_timeout_ms, subscribed_topic_names=subscribed_topic_names, server_assignor=server_assignor, topic_partitions=topic_partitions, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ConsumerGroupHeartbeatRequest) -> None:
    write_compact_string(w, m.group_id)
    write_compact_string(w, m.member_id)
    w += _S_i.pack(m.member_epoch)
    write_compact_nullable_string(w, m.instance_id)
    write_compact_nullable_string(w, m.rack_id)
    w += _S_i.pack(m.rebalance_timeout_ms)
    _v = m.subscribed_topic_names
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            write_compact_string(w, _e)
    write_compact_nullable_string(w, m.server_assignor)
    _v = m.topic_partitions
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_TopicPartitions_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ConsumerGroupHeartbeatRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupHeartbeatRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupHeartbeatRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupHeartbeatRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
