# Generated from DescribeClusterResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeClusterResponse"
API_KEY = 60
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class DescribeClusterBroker:
    broker_id: int = 0
    host: str = ""
    port: int = 0
    rack: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeClusterResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    endpoint_type: int = 1
    cluster_id: str = ""
    controller_id: int = -1
    brokers: list[DescribeClusterBroker] = _field(default_factory=list)
    cluster_authorized_operations: int = -2147483648
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribeClusterBroker_v0(r: Reader) -> DescribeClusterBroker:
    broker_id = r.int32()
    host = r.compact_string()
    port = r.int32()
    rack = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeClusterBroker(broker_id=broker_id, host=host, port=port, rack=rack, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeClusterBroker_v0(w: Writer, m: DescribeClusterBroker) -> None:
    w += _S_i.pack(m.broker_id)
    write_compact_string(w, m.host)
    w += _S_i.pack(m.port)
    write_compact_nullable_string(w, m.rack)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeClusterResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    cluster_id = r.compact_string()
    controller_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeClusterResponse.Brokers is null")
    brokers = [_read_DescribeClusterBroker_v0(r) for _ in range(_n)]
    cluster_authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeClusterResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, cluster_id=cluster_id, controller_id=controller_id, brokers=brokers, cluster_authorized_operations=cluster_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeClusterResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_compact_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeClusterBroker_v0(w, _e)
    w += _S_i.pack(m.cluster_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> DescribeClusterResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    endpoint_type = r.int8()
    cluster_id = r.compact_string()
    controller_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeClusterResponse.Brokers is null")
    brokers = [_read_DescribeClusterBroker_v0(r) for _ in range(_n)]
    cluster_authorized_operations = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeClusterResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, endpoint_type=endpoint_type, cluster_id=cluster_id, controller_id=controller_id, brokers=brokers, cluster_authorized_operations=cluster_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: DescribeClusterResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    w += _S_b.pack(m.endpoint_type)
    write_compact_string(w, m.cluster_id)
    w += _S_i.pack(m.controller_id)
    _v = m.brokers
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_DescribeClusterBroker_v0(w, _e)
    w += _S_i.pack(m.cluster_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> DescribeClusterResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeClusterResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeClusterResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeClusterResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
