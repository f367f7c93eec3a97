# Generated from ConsumerGroupMemberMetadataKey.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ConsumerGroupMemberMetadataKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (5, 5)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ConsumerGroupMemberMetadataKey:
    group_id: str = ""
    member_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v5(r: Reader) -> ConsumerGroupMemberMetadataKey:
    group_id = r.string()
    member_id = r.string()
    return ConsumerGroupMemberMetadataKey(group_id=group_id, member_id=member_id)


def write_v5(w: Writer, m: ConsumerGroupMemberMetadataKey) -> None:
    write_string(w, m.group_id)
    write_string(w, m.member_id)


READERS = {5: read_v5}
WRITERS = {5: write_v5}


def read(r: Reader, version: int) -> ConsumerGroupMemberMetadataKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupMemberMetadataKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupMemberMetadataKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupMemberMetadataKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
