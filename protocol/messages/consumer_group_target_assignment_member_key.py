# Generated from ConsumerGroupTargetAssignmentMemberKey.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ConsumerGroupTargetAssignmentMemberKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (7, 7)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ConsumerGroupTargetAssignmentMemberKey:
    group_id: str = ""
    member_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v7(r: Reader) -> ConsumerGroupTargetAssignmentMemberKey:
    group_id = r.string()
    member_id = r.string()
    return ConsumerGroupTargetAssignmentMemberKey(group_id=group_id, member_id=member_id)


def write_v7(w: Writer, m: ConsumerGroupTargetAssignmentMemberKey) -> None:
    write_string(w, m.group_id)
    write_string(w, m.member_id)


READERS = {7: read_v7}
WRITERS = {7: write_v7}


def read(r: Reader, version: int) -> ConsumerGroupTargetAssignmentMemberKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupTargetAssignmentMemberKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupTargetAssignmentMemberKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupTargetAssignmentMemberKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
