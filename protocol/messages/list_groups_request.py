# Generated from ListGroupsRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ListGroupsRequest"
API_KEY = 16
TYPE = "request"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (3, 5)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ListGroupsRequest:
    states_filter: list[str] = _field(default_factory=list)
    types_filter: list[str] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ListGroupsRequest:
    return ListGroupsRequest()


def write_v0(w: Writer, m: ListGroupsRequest) -> None:
    pass


def read_v3(r: Reader) -> ListGroupsRequest:
    unknown_tagged_fields = r.tagged_fields()
    return ListGroupsRequest(unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: ListGroupsRequest) -> None:
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v4(r: Reader) -> ListGroupsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListGroupsRequest.StatesFilter is null")
    states_filter = [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListGroupsRequest(states_filter=states_filter, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: ListGroupsRequest) -> None:
    _v = m.states_filter
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v5(r: Reader) -> ListGroupsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListGroupsRequest.StatesFilter is null")
    states_filter = [r.compact_string() for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListGroupsRequest.TypesFilter is null")
    types_filter = [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListGroupsRequest(states_filter=states_filter, types_filter=types_filter, unknown_tagged_fields=unknown_tagged_fields)


def write_v5(w: Writer, m: ListGroupsRequest) -> None:
    _v = m.states_filter
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    _v = m.types_filter
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> ListGroupsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListGroupsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListGroupsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListGroupsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
