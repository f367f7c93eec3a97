# Generated from GroupMetadataKey.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_string,
)

NAME = "GroupMetadataKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (2, 2)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class GroupMetadataKey:
    group: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v2(r: Reader) -> GroupMetadataKey:
    group = r.string()
    return GroupMetadataKey(group=group)


def write_v2(w: Writer, m: GroupMetadataKey) -> None:
    write_string(w, m.group)


READERS = {2: read_v2}
WRITERS = {2: write_v2}


def read(r: Reader, version: int) -> GroupMetadataKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: GroupMetadataKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> GroupMetadataKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: GroupMetadataKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
