# Generated from DescribeGroupsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeGroupsRequest"
API_KEY = 15
TYPE = "request"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (5, 5)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class DescribeGroupsRequest:
    groups: list[str] = _field(default_factory=list)
    include_authorized_operations: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> DescribeGroupsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsRequest.Groups is null")
    groups = [r.string() for _ in range(_n)]
    return DescribeGroupsRequest(groups=groups)


def write_v0(w: Writer, m: DescribeGroupsRequest) -> None:
    _v = m.groups
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)


def read_v3(r: Reader) -> DescribeGroupsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsRequest.Groups is null")
    groups = [r.string() for _ in range(_n)]
    include_authorized_operations = r.boolean()
    return DescribeGroupsRequest(groups=groups, include_authorized_operations=include_authorized_operations)


def write_v3(w: Writer, m: DescribeGroupsRequest) -> None:
    _v = m.groups
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)
    w += _S_x.pack(m.include_authorized_operations)


def read_v5(r: Reader) -> DescribeGroupsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeGroupsRequest.Groups is null")
    groups = [r.compact_string() for _ in range(_n)]
    include_authorized_operations = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeGroupsRequest(groups=groups, include_authorized_operations=include_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: DescribeGroupsRequest) -> None:
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    w += _S_x.pack(m.include_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v4 = read_v3
write_v4 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> DescribeGroupsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeGroupsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeGroupsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeGroupsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
