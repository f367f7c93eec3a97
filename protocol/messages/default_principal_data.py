# Generated from DefaultPrincipalData.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_string,
    write_tagged_fields,
)

NAME = "DefaultPrincipalData"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class DefaultPrincipalData:
    type: str = ""
    name: str = ""
    token_authenticated: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> DefaultPrincipalData:
    type = r.compact_string()
    name = r.compact_string()
    token_authenticated = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return DefaultPrincipalData(type=type, name=name, token_authenticated=token_authenticated, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DefaultPrincipalData) -> None:
    write_compact_string(w, m.type)
    write_compact_string(w, m.name)
    w += _S_x.pack(m.token_authenticated)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DefaultPrincipalData:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DefaultPrincipalData, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DefaultPrincipalData:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DefaultPrincipalData, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
