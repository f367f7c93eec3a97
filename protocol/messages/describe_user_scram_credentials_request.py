# Generated from DescribeUserScramCredentialsRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_array_length,
    write_compact_string,
    write_tagged_fields,
)

NAME = "DescribeUserScramCredentialsRequest"
API_KEY = 50
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class UserName:
    name: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeUserScramCredentialsRequest:
    users: list[UserName] | None = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_UserName_v0(r: Reader) -> UserName:
    name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return UserName(name=name, unknown_tagged_fields=unknown_tagged_fields)


def _write_UserName_v0(w: Writer, m: UserName) -> None:
    write_compact_string(w, m.name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeUserScramCredentialsRequest:
    _n = r.compact_array_length()
    users = None if _n < 0 else [_read_UserName_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeUserScramCredentialsRequest(users=users, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeUserScramCredentialsRequest) -> None:
    _v = m.users
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_UserName_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DescribeUserScramCredentialsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeUserScramCredentialsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeUserScramCredentialsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeUserScramCredentialsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
