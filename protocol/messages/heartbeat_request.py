# Generated from HeartbeatRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_nullable_string,
    write_compact_string,
    write_nullable_string,
    write_string,
    write_tagged_fields,
)

NAME = "HeartbeatRequest"
API_KEY = 12
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (4, 4)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class HeartbeatRequest:
    group_id: str = ""
    generation_id: int = 0
    member_id: str = ""
    group_instance_id: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> HeartbeatRequest:
    group_id = r.string()
    generation_id = r.int32()
    member_id = r.string()
    return HeartbeatRequest(group_id=group_id, generation_id=generation_id, member_id=member_id)


def write_v0(w: Writer, m: HeartbeatRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id)
    write_string(w, m.member_id)


def read_v3(r: Reader) -> HeartbeatRequest:
    group_id = r.string()
    generation_id = r.int32()
    member_id = r.string()
    group_instance_id = r.nullable_string()
    return HeartbeatRequest(group_id=group_id, generation_id=generation_id, member_id=member_id, group_instance_id=group_instance_id)


def write_v3(w: Writer, m: HeartbeatRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.generation_id)
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)


def read_v4(r: Reader) -> HeartbeatRequest:
    group_id = r.compact_string()
    generation_id = r.int32()
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return HeartbeatRequest(group_id=group_id, generation_id=generation_id, member_id=member_id, group_instance_id=group_instance_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: HeartbeatRequest) -> None:
    write_compact_string(w, m.group_id)
    w += _S_i.pack(m.generation_id)
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> HeartbeatRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: HeartbeatRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> HeartbeatRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: HeartbeatRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
