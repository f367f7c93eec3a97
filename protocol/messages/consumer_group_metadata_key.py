# Generated from ConsumerGroupMetadataKey.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ConsumerGroupMetadataKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (3, 3)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ConsumerGroupMetadataKey:
    group_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v3(r: Reader) -> ConsumerGroupMetadataKey:
    group_id = r.string()
    return ConsumerGroupMetadataKey(group_id=group_id)


def write_v3(w: Writer, m: ConsumerGroupMetadataKey) -> None:
    write_string(w, m.group_id)


READERS = {3: read_v3}
WRITERS = {3: write_v3}


def read(r: Reader, version: int) -> ConsumerGroupMetadataKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupMetadataKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupMetadataKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupMetadataKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
