# Generated from OffsetCommitValue.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
)

NAME = "OffsetCommitValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (4, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_q = _struct.Struct(">q")
_S_qi = _struct.Struct(">qi")
_S_qq = _struct.Struct(">qq")


@dataclass(slots=True)
class OffsetCommitValue:
    offset: int = 0
    leader_epoch: int = -1
    metadata: str = ""
    commit_timestamp: int = 0
    expire_timestamp: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> OffsetCommitValue:
    offset = r.int64()
    metadata = r.string()
    commit_timestamp = r.int64()
    return OffsetCommitValue(offset=offset, metadata=metadata, commit_timestamp=commit_timestamp)


def write_v0(w: Writer, m: OffsetCommitValue) -> None:
    w += _S_q.pack(m.offset)
    write_string(w, m.metadata)
    w += _S_q.pack(m.commit_timestamp)


def read_v1(r: Reader) -> OffsetCommitValue:
    offset = r.int64()
    metadata = r.string()
    commit_timestamp, expire_timestamp = r.unpack(_S_qq)
    return OffsetCommitValue(offset=offset, metadata=metadata, commit_timestamp=commit_timestamp, expire_timestamp=expire_timestamp)


def write_v1(w: Writer, m: OffsetCommitValue) -> None:
    w += _S_q.pack(m.offset)
    write_string(w, m.metadata)
    w += _S_qq.pack(m.commit_timestamp, m.expire_timestamp)


def read_v3(r: Reader) -> OffsetCommitValue:
    offset, leader_epoch = r.unpack(_S_qi)
    metadata = r.string()
    commit_timestamp = r.int64()
    return OffsetCommitValue(offset=offset, leader_epoch=leader_epoch, metadata=metadata, commit_timestamp=commit_timestamp)


def write_v3(w: Writer, m: OffsetCommitValue) -> None:
    w += _S_qi.pack(m.offset, m.leader_epoch)
    write_string(w, m.metadata)
    w += _S_q.pack(m.commit_timestamp)


def read_v4(r: Reader) -> OffsetCommitValue:
    offset, leader_epoch = r.unpack(_S_qi)
    metadata = r.compact_string()
    commit_timestamp = r.int64()
    unknown_tagged_fields = r.tagged_fields()
    return OffsetCommitValue(offset=offset, leader_epoch=leader_epoch, metadata=metadata, commit_timestamp=commit_timestamp, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: OffsetCommitValue) -> None:
    w += _S_qi.pack(m.offset, m.leader_epoch)
    write_compact_string(w, m.metadata)
    w += _S_q.pack(m.commit_timestamp)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v0
write_v2 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> OffsetCommitValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetCommitValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetCommitValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetCommitValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
