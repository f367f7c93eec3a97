# Generated from OffsetCommitKey.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_string,
)

NAME = "OffsetCommitKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class OffsetCommitKey:
    group: str = ""
    topic: str = ""
    partition: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> OffsetCommitKey:
    group = r.string()
    topic = r.string()
    partition = r.int32()
    return OffsetCommitKey(group=group, topic=topic, partition=partition)


def write_v0(w: Writer, m: OffsetCommitKey) -> None:
    write_string(w, m.group)
    write_string(w, m.topic)
    w += _S_i.pack(m.partition)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> OffsetCommitKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: OffsetCommitKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> OffsetCommitKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: OffsetCommitKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
