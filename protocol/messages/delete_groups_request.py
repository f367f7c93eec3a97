# Generated from DeleteGroupsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DeleteGroupsRequest"
API_KEY = 42
TYPE = "request"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class DeleteGroupsRequest:
    groups_names: list[str] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> DeleteGroupsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteGroupsRequest.GroupsNames is null")
    groups_names = [r.string() for _ in range(_n)]
    return DeleteGroupsRequest(groups_names=groups_names)


def write_v0(w: Writer, m: DeleteGroupsRequest) -> None:
    _v = m.groups_names
    w += _S_i.pack(len(_v))
    for _e in _v:
        write_string(w, _e)


def read_v2(r: Reader) -> DeleteGroupsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DeleteGroupsRequest.GroupsNames is null")
    groups_names = [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DeleteGroupsRequest(groups_names=groups_names, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DeleteGroupsRequest) -> None:
    _v = m.groups_names
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> DeleteGroupsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DeleteGroupsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DeleteGroupsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DeleteGroupsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
