# Generated from AlterUserScramCredentialsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "AlterUserScramCredentialsRequest"
API_KEY = 51
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_b = _struct.Struct(">b")
_S_bi = _struct.Struct(">bi")


@dataclass(slots=True)
class ScramCredentialDeletion:
    name: str = ""
    mechanism: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ScramCredentialUpsertion:
    name: str = ""
    mechanism: int = 0
    iterations: int = 0
    salt: bytes = b""
    salted_password: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterUserScramCredentialsRequest:
    deletions: list[ScramCredentialDeletion] = _field(default_factory=list)
    upsertions: list[ScramCredentialUpsertion] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ScramCredentialDeletion_v0(r: Reader) -> ScramCredentialDeletion:
    name = r.compact_string()
    mechanism = r.int8()
    unknown_tagged_fields = r.tagged_fields()
    return ScramCredentialDeletion(name=name, mechanism=mechanism, unknown_tagged_fields=unknown_tagged_fields)


def _write_ScramCredentialDeletion_v0(w: Writer, m: ScramCredentialDeletion) -> None:
    write_compact_string(w, m.name)
    w += _S_b.pack(m.mechanism)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ScramCredentialUpsertion_v0(r: Reader) -> ScramCredentialUpsertion:
    name = r.compact_string()
    mechanism, iterations = r.unpack(_S_bi)
    salt = r.compact_bytes()
    salted_password = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return ScramCredentialUpsertion(name=name, mechanism=mechanism, iterations=iterations, salt=salt, salted_password=salted_password, unknown_tagged_fields=unknown_tagged_fields)


def _write_ScramCredentialUpsertion_v0(w: Writer, m: ScramCredentialUpsertion) -> None:
    write_compact_string(w, m.name)
    w += _S_bi.pack(m.mechanism, m.iterations)
    write_compact_bytes(w, m.salt)
    write_compact_bytes(w, m.salted_password)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AlterUserScramCredentialsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterUserScramCredentialsRequest.Deletions is null")
    deletions = [_read_ScramCredentialDeletion_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterUserScramCredentialsRequest.Upsertions is null")
    upsertions = [_read_ScramCredentialUpsertion_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterUserScramCredentialsRequest(deletions=deletions, upsertions=upsertions, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AlterUserScramCredentialsRequest) -> None:
    _v = m.deletions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ScramCredentialDeletion_v0(w, _e)
    _v = m.upsertions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ScramCredentialUpsertion_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> AlterUserScramCredentialsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AlterUserScramCredentialsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AlterUserScramCredentialsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AlterUserScramCredentialsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
