# Generated from ShareGroupMetadataKey.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ShareGroupMetadataKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (11, 11)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ShareGroupMetadataKey:
    group_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v11(r: Reader) -> ShareGroupMetadataKey:
    group_id = r.string()
    return ShareGroupMetadataKey(group_id=group_id)


def write_v11(w: Writer, m: ShareGroupMetadataKey) -> None:
    write_string(w, m.group_id)


READERS = {11: read_v11}
WRITERS = {11: write_v11}


def read(r: Reader, version: int) -> ShareGroupMetadataKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareGroupMetadataKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareGroupMetadataKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareGroupMetadataKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
