# Generated from ShareGroupDescribeRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
    write_uvarint,
)

NAME = "ShareGroupDescribeRequest"
API_KEY = 77
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = True

_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class ShareGroupDescribeRequest:
    group_ids: list[str] = _field(default_factory=list)
    include_authorized_operations: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ShareGroupDescribeRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareGroupDescribeRequest.GroupIds is null")
    group_ids = [r.compact_string() for _ in range(_n)]
    include_authorized_operations = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return ShareGroupDescribeRequest(group_ids=group_ids, include_authorized_operations=include_authorized_operations, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ShareGroupDescribeRequest) -> None:
    _v = m.group_ids
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    w += _S_x.pack(m.include_authorized_operations)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ShareGroupDescribeRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareGroupDescribeRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareGroupDescribeRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareGroupDescribeRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
