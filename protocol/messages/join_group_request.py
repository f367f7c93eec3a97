# Generated from JoinGroupRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_bytes,
    write_compact_bytes,
    write_compact_nullable_string,
    write_compact_string,
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "JoinGroupRequest"
API_KEY = 11
TYPE = "request"
VALID_VERSIONS = (0, 9)
FLEXIBLE_VERSIONS = (6, 9)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ii = _struct.Struct(">ii")


@dataclass(slots=True)
class JoinGroupRequestProtocol:
    name: str = ""
    metadata: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class JoinGroupRequest:
    group_id: str = ""
    session_timeout_ms: int = 0
    rebalance_timeout_ms: int = -1
    member_id: str = ""
    group_instance_id: str | None = None
    protocol_type: str = ""
    protocols: list[JoinGroupRequestProtocol] = _field(default_factory=list)
    reason: str | None = None
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_JoinGroupRequestProtocol_v0(r: Reader) -> JoinGroupRequestProtocol:
    name = r.string()
    metadata = r.bytes_()
    return JoinGroupRequestProtocol(name=name, metadata=metadata)


def _write_JoinGroupRequestProtocol_v0(w: Writer, m: JoinGroupRequestProtocol) -> None:
    write_string(w, m.name)
    write_bytes(w, m.metadata)


def _read_JoinGroupRequestProtocol_v6(r: Reader) -> JoinGroupRequestProtocol:
    name = r.compact_string()
    metadata = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return JoinGroupRequestProtocol(name=name, metadata=metadata, unknown_tagged_fields=unknown_tagged_fields)


def _write_JoinGroupRequestProtocol_v6(w: Writer, m: JoinGroupRequestProtocol) -> None:
    write_compact_string(w, m.name)
    write_compact_bytes(w, m.metadata)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> JoinGroupRequest:
    group_id = r.string()
    session_timeout_ms = r.int32()
    member_id = r.string()
    protocol_type = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupRequest.Protocols is null")
    protocols = [_read_JoinGroupRequestProtocol_v0(r) for _ in range(_n)]
    return JoinGroupRequest(group_id=group_id, session_timeout_ms=session_timeout_ms, member_id=member_id, protocol_type=protocol_type, protocols=protocols)


def write_v0(w: Writer, m: JoinGroupRequest) -> None:
    write_string(w, m.group_id)
    w += _S_i.pack(m.session_timeout_ms)
    write_string(w, m.member_id)
    write_string(w, m.protocol_type)
    _v = m.protocols
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_JoinGroupRequestProtocol_v0(w, _e)


def read_v1(r: Reader) -> JoinGroupRequest:
    group_id = r.string()
    session_timeout_ms, rebalance_timeout_ms = r.unpack(_S_ii)
    member_id = r.string()
    protocol_type = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupRequest.Protocols is null")
    protocols = [_read_JoinGroupRequestProtocol_v0(r) for _ in range(_n)]
    return JoinGroupRequest(group_id=group_id, session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=rebalance_timeout_ms, member_id=member_id, protocol_type=protocol_type, protocols=protocols)


def write_v1(w: Writer, m: JoinGroupRequest) -> None:
    write_string(w, m.group_id)
    w += _S_ii.pack(m.session_timeout_ms, m.rebalance_timeout_ms)
    write_string(w, m.member_id)
    write_string(w, m.protocol_type)
    _v = m.protocols
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_JoinGroupRequestProtocol_v0(w, _e)


def read_v5(r: Reader) -> JoinGroupRequest:
    group_id = r.string()
    session_timeout_ms, rebalance_timeout_ms = r.unpack(_S_ii)
    member_id = r.string()
    group_instance_id = r.nullable_string()
    protocol_type = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupRequest.Protocols is null")
    protocols = [_read_JoinGroupRequestProtocol_v0(r) for _ in range(_n)]
    return JoinGroupRequest(group_id=group_id, session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=rebalance_timeout_ms, member_id=member_id, group_instance_id=group_instance_id, protocol_type=protocol_type, protocols=protocols)


def write_v5(w: Writer, m: JoinGroupRequest) -> None:
    write_string(w, m.group_id)
    w += _S_ii.pack(m.session_timeout_ms, m.rebalance_timeout_ms)
    write_string(w, m.member_id)
    write_nullable_string(w, m.group_instance_id)
    write_string(w, m.protocol_type)
    _v = m.protocols
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_JoinGroupRequestProtocol_v0(w, _e)


def read_v6(r: Reader) -> JoinGroupRequest:
    group_id = r.compact_string()
    session_timeout_ms, rebalance_timeout_ms = r.unpack(_S_ii)
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    protocol_type = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupRequest.Protocols is null")
    protocols = [_read_JoinGroupRequestProtocol_v6(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return JoinGroupRequest(group_id=group_id, session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=rebalance_timeout_ms, member_id=member_id, group_instance_id=group_instance_id, protocol_type=protocol_type, protocols=protocols, unknown_tagged_fields=unknown_tagged_fields)


def write_v6(w: Writer, m: JoinGroupRequest) -> None:
    write_compact_string(w, m.group_id)
    w += _S_ii.pack(m.session_timeout_ms, m.rebalance_timeout_ms)
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_compact_string(w, m.protocol_type)
    _v = m.protocols
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_JoinGroupRequestProtocol_v6(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v8(r: Reader) -> JoinGroupRequest:
    group_id = r.compact_string()
    session_timeout_ms, rebalance_timeout_ms = r.unpack(_S_ii)
    member_id = r.compact_string()
    group_instance_id = r.compact_nullable_string()
    protocol_type = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array JoinGroupRequest.Protocols is null")
    protocols = [_read_JoinGroupRequestProtocol_v6(r) for _ in range(_n)]
    reason = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return JoinGroupRequest(group_id=group_id, session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=rebalance_timeout_ms, member_id=member_id, group_instance_id=group_instance_id, protocol_type=protocol_type, protocols=protocols, reason=reason, unknown_tagged_fields=unknown_tagged_fields)


def write_v8(w: Writer, m: JoinGroupRequest) -> None:
    write_compact_string(w, m.group_id)
    w += _S_ii.pack(m.session_timeout_ms, m.rebalance_timeout_ms)
    write_compact_string(w, m.member_id)
    write_compact_nullable_string(w, m.group_instance_id)
    write_compact_string(w, m.protocol_type)
    _v = m.protocols
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_JoinGroupRequestProtocol_v6(w, _e)
    write_compact_nullable_string(w, m.reason)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1
read_v3 = read_v1
write_v3 = write_v1
read_v4 = read_v1
write_v4 = write_v1
read_v7 = read_v6
write_v7 = write_v6
read_v9 = read_v8
write_v9 = write_v8

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6, 7: read_v7, 8: read_v8, 9: read_v9}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6, 7: write_v7, 8: write_v8, 9: write_v9}


def read(r: Reader, version: int) -> JoinGroupRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: JoinGroupRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> JoinGroupRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: JoinGroupRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
