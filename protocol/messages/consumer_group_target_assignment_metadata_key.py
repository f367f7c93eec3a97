# Generated from ConsumerGroupTargetAssignmentMetadataKey.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ConsumerGroupTargetAssignmentMetadataKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (6, 6)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ConsumerGroupTargetAssignmentMetadataKey:
    group_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v6(r: Reader) -> ConsumerGroupTargetAssignmentMetadataKey:
    group_id = r.string()
    return ConsumerGroupTargetAssignmentMetadataKey(group_id=group_id)


def write_v6(w: Writer, m: ConsumerGroupTargetAssignmentMetadataKey) -> None:
    write_string(w, m.group_id)


READERS = {6: read_v6}
WRITERS = {6: write_v6}


def read(r: Reader, version: int) -> ConsumerGroupTargetAssignmentMetadataKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupTargetAssignmentMetadataKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupTargetAssignmentMetadataKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupTargetAssignmentMetadataKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
