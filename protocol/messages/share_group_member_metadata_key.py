# Generated from ShareGroupMemberMetadataKey.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ShareGroupMemberMetadataKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (10, 10)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ShareGroupMemberMetadataKey:
    group_id: str = ""
    member_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v10(r: Reader) -> ShareGroupMemberMetadataKey:
    group_id = r.string()
    member_id = r.string()
    return ShareGroupMemberMetadataKey(group_id=group_id, member_id=member_id)


def write_v10(w: Writer, m: ShareGroupMemberMetadataKey) -> None:
    write_string(w, m.group_id)
    write_string(w, m.member_id)


READERS = {10: read_v10}
WRITERS = {10: write_v10}


def read(r: Reader, version: int) -> ShareGroupMemberMetadataKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareGroupMemberMetadataKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareGroupMemberMetadataKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareGroupMemberMetadataKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
