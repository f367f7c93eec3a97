# Generated from ConsumerGroupPartitionMetadataKey.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ConsumerGroupPartitionMetadataKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (4, 4)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ConsumerGroupPartitionMetadataKey:
    group_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v4(r: Reader) -> ConsumerGroupPartitionMetadataKey:
    group_id = r.string()
    return ConsumerGroupPartitionMetadataKey(group_id=group_id)


def write_v4(w: Writer, m: ConsumerGroupPartitionMetadataKey) -> None:
    write_string(w, m.group_id)


READERS = {4: read_v4}
WRITERS = {4: write_v4}


def read(r: Reader, version: int) -> ConsumerGroupPartitionMetadataKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupPartitionMetadataKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupPartitionMetadataKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupPartitionMetadataKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
