# Generated from DescribeClusterRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_tagged_fields,
)

NAME = "DescribeClusterRequest"
API_KEY = 60
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_x = _struct.Struct(">?")
_S_xb = _struct.Struct(">?b")


@dataclass(slots=True)
class DescribeClusterRequest:
    include_cluster_authorized_operations: bool = False
    endpoint_type: int = 1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> DescribeClusterRequest:
    include_cluster_authorized_operations = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeClusterRequest(include_cluster_authorized_operations=include_cluster_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeClusterRequest) -> None:
    w += _S_x.pack(m.include_cluster_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> DescribeClusterRequest:
    include_cluster_authorized_operations, endpoint_type = r.unpack(_S_xb)
    unknown_tagged_fields = r.tagged_fields()
    return DescribeClusterRequest(include_cluster_authorized_operations=include_cluster_authorized_operations, endpoint_type=endpoint_type, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: DescribeClusterRequest) -> None:
    w += _S_xb.pack(m.include_cluster_authorized_operations, m.endpoint_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> DescribeClusterRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeClusterRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeClusterRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeClusterRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
