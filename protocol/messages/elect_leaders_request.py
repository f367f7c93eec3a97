# Generated from ElectLeadersRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_array_length,
    write_compact_array_length,
    write_compact_string,
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ElectLeadersRequest"
API_KEY = 43
TYPE = "request"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class TopicPartitions:
    topic: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ElectLeadersRequest:
    election_type: int = 0
    topic_partitions: list[TopicPartitions] | None = _field(default_factory=list)
    timeout_ms: int = 60000
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicPartitions_v0(r: Reader) -> TopicPartitions:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ElectLeadersRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    return TopicPartitions(topic=topic, partitions=partitions)


def _write_TopicPartitions_v0(w: Writer, m: TopicPartitions) -> None:
    write_string(w, m.topic)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_TopicPartitions_v2(r: Reader) -> TopicPartitions:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ElectLeadersRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return TopicPartitions(topic=topic, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicPartitions_v2(w: Writer, m: TopicPartitions) -> None:
    write_compact_string(w, m.topic)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ElectLeadersRequest:
    _n = r.array_length()
    topic_partitions = None if _n < 0 else [_read_TopicPartitions_v0(r) for _ in range(_n)]
    timeout_ms = r.int32()
    return ElectLeadersRequest(topic_partitions=topic_partitions, timeout_ms=timeout_ms)


def write_v0(w: Writer, m: ElectLeadersRequest) -> None:
    _v = m.topic_partitions
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_TopicPartitions_v0(w, _e)
    w += _S_i.pack(m.timeout_ms)


def read_v1(r: Reader) -> ElectLeadersRequest:
    election_type = r.int8()
    _n = r.array_length()
    topic_partitions = None if _n < 0 else [_read_TopicPartitions_v0(r) for _ in range(_n)]
    timeout_ms = r.int32()
    return ElectLeadersRequest(election_type=election_type, topic_partitions=topic_partitions, timeout_ms=timeout_ms)


def write_v1(w: Writer, m: ElectLeadersRequest) -> None:
    w += _S_b.pack(m.election_type)
    _v = m.topic_partitions
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_TopicPartitions_v0(w, _e)
    w += _S_i.pack(m.timeout_ms)


def read_v2(r: Reader) -> ElectLeadersRequest:
    election_type = r.int8()
    _n = r.compact_array_length()
    topic_partitions = None if _n < 0 else [_read_TopicPartitions_v2(r) for _ in range(_n)]
    timeout_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return ElectLeadersRequest(election_type=election_type, topic_partitions=topic_partitions, timeout_ms=timeout_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: ElectLeadersRequest) -> None:
    w += _S_b.pack(m.election_type)
    _v = m.topic_partitions
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_TopicPartitions_v2(w, _e)
    w += _S_i.pack(m.timeout_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> ElectLeadersRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ElectLeadersRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ElectLeadersRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ElectLeadersRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
