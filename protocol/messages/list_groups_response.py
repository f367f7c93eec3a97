# Generated from ListGroupsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ListGroupsResponse"
API_KEY = 16
TYPE = "response"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (3, 5)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class ListedGroup:
    group_id: str = ""
    protocol_type: str = ""
    group_state: str = ""
    group_type: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListGroupsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    groups: list[ListedGroup] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ListedGroup_v0(r: Reader) -> ListedGroup:
    group_id = r.string()
    protocol_type = r.string()
    return ListedGroup(group_id=group_id, protocol_type=protocol_type)


def _write_ListedGroup_v0(w: Writer, m: ListedGroup) -> None:
    write_string(w, m.group_id)
    write_string(w, m.protocol_type)


def _read_ListedGroup_v3(r: Reader) -> ListedGroup:
    group_id = r.compact_string()
    protocol_type = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return ListedGroup(group_id=group_id, protocol_type=protocol_type, unknown_tagged_fields=unknown_tagged_fields)


def _write_ListedGroup_v3(w: Writer, m: ListedGroup) -> None:
    write_compact_string(w, m.group_id)
    write_compact_string(w, m.protocol_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ListedGroup_v4(r: Reader) -> ListedGroup:
    group_id = r.compact_string()
    protocol_type = r.compact_string()
    group_state = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return ListedGroup(group_id=group_id, protocol_type=protocol_type, group_state=group_state, unknown_tagged_fields=unknown_tagged_fields)


def _write_ListedGroup_v4(w: Writer, m: ListedGroup) -> None:
    write_compact_string(w, m.group_id)
    write_compact_string(w, m.protocol_type)
    write_compact_string(w, m.group_state)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ListedGroup_v5(r: Reader) -> ListedGroup:
    group_id = r.compact_string()
    protocol_type = r.compact_string()
    group_state = r.compact_string()
    group_type = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return ListedGroup(group_id=group_id, protocol_type=protocol_type, group_state=group_state, group_type=group_type, unknown_tagged_fields=unknown_tagged_fields)


def _write_ListedGroup_v5(w: Writer, m: ListedGroup) -> None:
    write_compact_string(w, m.group_id)
    write_compact_string(w, m.protocol_type)
    write_compact_string(w, m.group_state)
    write_compact_string(w, m.group_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ListGroupsResponse:
    error_code = r.int16()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListGroupsResponse.Groups is null")
    groups = [_read_ListedGroup_v0(r) for _ in range(_n)]
    return ListGroupsResponse(error_code=error_code, groups=groups)


def write_v0(w: Writer, m: ListGroupsResponse) -> None:
    w += _S_h.pack(m.error_code)
    _v = m.groups
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListedGroup_v0(w, _e)


def read_v1(r: Reader) -> ListGroupsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListGroupsResponse.Groups is null")
    groups = [_read_ListedGroup_v0(r) for _ in range(_n)]
    return ListGroupsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, groups=groups)


def write_v1(w: Writer, m: ListGroupsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.groups
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ListedGroup_v0(w, _e)


def read_v3(r: Reader) -> ListGroupsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListGroupsResponse.Groups is null")
    groups = [_read_ListedGroup_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListGroupsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, groups=groups, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: ListGroupsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ListedGroup_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v4(r: Reader) -> ListGroupsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListGroupsResponse.Groups is null")
    groups = [_read_ListedGroup_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListGroupsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, groups=groups, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: ListGroupsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ListedGroup_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v5(r: Reader) -> ListGroupsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListGroupsResponse.Groups is null")
    groups = [_read_ListedGroup_v5(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListGroupsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, groups=groups, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: ListGroupsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.groups
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ListedGroup_v5(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> ListGroupsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListGroupsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListGroupsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListGroupsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
