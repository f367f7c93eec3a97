# Generated from ShareGroupHeartbeatRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_array_length,
    write_compact_nullable_string,
    write_compact_string,
    write_tagged_fields,
)

NAME = "ShareGroupHeartbeatRequest"
API_KEY = 76
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = True

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class ShareGroupHeartbeatRequest:
    group_id: str = ""
    member_id: str = ""
    member_epoch: int = 0
    rack_id: str | None = None
    subscribed_topic_names: list[str] | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ShareGroupHeartbeatRequest:
    group_id = r.compact_string()
    member_id = r.compact_string()
    member_epoch = r.int32()
    rack_id = r.compact_nullable_string()
    _n = r.compact_array_length()
    subscribed_topic_names = None if _n < 0 else [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ShareGroupHeartbeatRequest(group_id=group_id, member_id=member_id, member_epoch=member_epoch, rack_id=rack_id, subscribed_topic_names=subscribed_topic_names, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ShareGroupHeartbeatRequest) -> None:
    write_compact_string(w, m.group_id)
    write_compact_string(w, m.member_id)
    w += _S_i.pack(m.member_epoch)
    write_compact_nullable_string(w, m.rack_id)
    _v = m.subscribed_topic_names
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ShareGroupHeartbeatRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareGroupHeartbeatRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareGroupHeartbeatRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareGroupHeartbeatRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
