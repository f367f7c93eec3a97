# Generated from ConsumerGroupMemberMetadataValue.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_bytes,
    write_compact_nullable_string,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ConsumerGroupMemberMetadataValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class ClassicProtocol:
    name: str = ""
    metadata: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ClassicMemberMetadata:
    session_timeout_ms: int = 0
    supported_protocols: list[ClassicProtocol] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ConsumerGroupMemberMetadataValue:
    instance_id: str | None = ""
    rack_id: str | None = ""
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: list[str] = _field(default_factory=list)
    subscribed_topic_regex: str | None = ""
    rebalance_timeout_ms: int = -1
    server_assignor: str | None = ""
    classic_member_metadata: ClassicMemberMetadata | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ClassicProtocol_v0(r: Reader) -> ClassicProtocol:
    name = r.compact_string()
    metadata = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return ClassicProtocol(name=name, metadata=metadata, unknown_tagged_fields=unknown_tagged_fields)


def _write_ClassicProtocol_v0(w: Writer, m: ClassicProtocol) -> None:
    write_compact_string(w, m.name)
    write_compact_bytes(w, m.metadata)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ClassicMemberMetadata_v0(r: Reader) -> ClassicMemberMetadata:
    session_timeout_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupMemberMetadataValue.SupportedProtocols is null")
    supported_protocols = [_read_ClassicProtocol_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ClassicMemberMetadata(session_timeout_ms=session_timeout_ms, supported_protocols=supported_protocols, unknown_tagged_fields=unknown_tagged_fields)


def _write_ClassicMemberMetadata_v0(w: Writer, m: ClassicMemberMetadata) -> None:
    w += _S_i.pack(m.session_timeout_ms)
    _v = m.supported_protocols
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ClassicProtocol_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ConsumerGroupMemberMetadataValue:
    instance_id = r.compact_nullable_string()
    rack_id = r.compact_nullable_string()
    client_id = r.compact_string()
    client_host = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ConsumerGroupMemberMetadataValue.SubscribedTopicNames is null")
    subscribed_topic_names = [r.compact_string() for _ in range(_n)]
    subscribed_topic_regex = r.compact_nullable_string()
    rebalance_timeout_ms = r.int32()
    server_assignor = r.compact_nullable_string()
    classic_member_metadata = None
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            classic_member_metadata = None if r.uvarint() == 0 else _read_ClassicMemberMetadata_v0(r)
            if r.pos != _end:
                raise ProtocolError("tagged field ConsumerGroupMemberMetadataValue.ClassicMemberMetadata does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return ConsumerGroupMemberMetadataValue(instance_id=instance_id, rack_id=rack_id, client_id=client_id, client_host=client_host, subscribed_topic_names=subscribed_topic_names, subscribed_topic_regex=subscribed_topic_regex, rebalance_timeout_ms=rebalance_timeout_ms, server_assignor=server_assignor, classic_member_metadata=classic_member_metadata, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ConsumerGroupMemberMetadataValue) -> None:
    write_compact_nullable_string(w, m.instance_id)
    write_compact_nullable_string(w, m.rack_id)
    write_compact_string(w, m.client_id)
    write_compact_string(w, m.client_host)
    _v = m.subscribed_topic_names
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_compact_nullable_string(w, m.subscribed_topic_regex)
    w += _S_i.pack(m.rebalance_timeout_ms)
    write_compact_nullable_string(w, m.server_assignor)
    _known = []
    if m.classic_member_metadata is not None:
        _t = Writer()
        _v = m.classic_member_metadata
        if _v is None:
            _t.append(0)
        else:
            _t.append(1)
            _write_ClassicMemberMetadata_v0(_t, _v)
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ConsumerGroupMemberMetadataValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ConsumerGroupMemberMetadataValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ConsumerGroupMemberMetadataValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ConsumerGroupMemberMetadataValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
