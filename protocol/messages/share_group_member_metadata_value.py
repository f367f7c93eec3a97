# Generated from ShareGroupMemberMetadataValue.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_nullable_string,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ShareGroupMemberMetadataValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ShareGroupMemberMetadataValue:
    rack_id: str | None = ""
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: list[str] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ShareGroupMemberMetadataValue:
    rack_id = r.compact_nullable_string()
    client_id = r.compact_string()
    client_host = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ShareGroupMemberMetadataValue.SubscribedTopicNames is null")
    subscribed_topic_names = [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ShareGroupMemberMetadataValue(rack_id=rack_id, client_id=client_id, client_host=client_host, subscribed_topic_names=subscribed_topic_names, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ShareGroupMemberMetadataValue) -> None:
    write_compact_nullable_string(w, m.rack_id)
    write_compact_string(w, m.client_id)
    write_compact_string(w, m.client_host)
    _v = m.subscribed_topic_names
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ShareGroupMemberMetadataValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ShareGroupMemberMetadataValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ShareGroupMemberMetadataValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ShareGroupMemberMetadataValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
