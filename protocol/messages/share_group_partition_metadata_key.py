# Generated from ShareGroupPartitionMetadataKey.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ShareGroupPartitionMetadataKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (9, 9)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ShareGroupPartitionMetadataKey:
    group_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v9(r: Reader) -> ShareGroupPartitionMetadataKey:
    group_id = r.string()
    return ShareGroupPartitionMetadataKey(group_id=group_id)


def write_v9(w: Writer, m: ShareGroupPartitionMetadataKey) -> None:
    write_string(w, m.group_id)


READERS = {9: read_v9}
WRITERS = {9: write_v9}


def read(r: Reader, version: int) -> ShareGroupPartitionMetadataKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareGroupPartitionMetadataKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareGroupPartitionMetadataKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareGroupPartitionMetadataKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
