# Generated from FindCoordinatorRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "FindCoordinatorRequest"
API_KEY = 10
TYPE = "request"
VALID_VERSIONS = (0, 6)
FLEXIBLE_VERSIONS = (3, 6)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")


@dataclass(slots=True)
class FindCoordinatorRequest:
    key: str = ""
    key_type: int = 0
    coordinator_keys: list[str] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> FindCoordinatorRequest:
    key = r.string()
    return FindCoordinatorRequest(key=key)


def write_v0(w: Writer, m: FindCoordinatorRequest) -> None:
    write_string(w, m.key)


def read_v1(r: Reader) -> FindCoordinatorRequest:
    key = r.string()
    key_type = r.int8()
    return FindCoordinatorRequest(key=key, key_type=key_type)


def write_v1(w: Writer, m: FindCoordinatorRequest) -> None:
    write_string(w, m.key)
    w += _S_b.pack(m.key_type)


def read_v3(r: Reader) -> FindCoordinatorRequest:
    key = r.compact_string()
    key_type = r.int8()
    unknown_tagged_fields = r.tagged_fields()
    return FindCoordinatorRequest(key=key, key_type=key_type, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: FindCoordinatorRequest) -> None:
    write_compact_string(w, m.key)
    w += _S_b.pack(m.key_type)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v4(r: Reader) -> FindCoordinatorRequest:
    key_type = r.int8()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array FindCoordinatorRequest.CoordinatorKeys is null")
    coordinator_keys = [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return FindCoordinatorRequest(key_type=key_type, coordinator_keys=coordinator_keys, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: FindCoordinatorRequest) -> None:
    w += _S_b.pack(m.key_type)
    _v = m.coordinator_keys
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v2 = read_v1
write_v2 = write_v1
read_v5 = read_v4
write_v5 = write_v4
read_v6 = read_v4
write_v6 = write_v4

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5, 6: read_v6}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5, 6: write_v6}


def read(r: Reader, version: int) -> FindCoordinatorRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: FindCoordinatorRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> FindCoordinatorRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: FindCoordinatorRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
