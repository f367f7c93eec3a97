# Generated from SaslAuthenticateRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_bytes,
    write_compact_bytes,
    write_tagged_fields,
)

NAME = "SaslAuthenticateRequest"
API_KEY = 36
TYPE = "request"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class SaslAuthenticateRequest:
    auth_bytes: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> SaslAuthenticateRequest:
    auth_bytes = r.bytes_()
    return SaslAuthenticateRequest(auth_bytes=auth_bytes)


def write_v0(w: Writer, m: SaslAuthenticateRequest) -> None:
    write_bytes(w, m.auth_bytes)


def read_v2(r: Reader) -> SaslAuthenticateRequest:
    auth_bytes = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return SaslAuthenticateRequest(auth_bytes=auth_bytes, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: SaslAuthenticateRequest) -> None:
    write_compact_bytes(w, m.auth_bytes)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> SaslAuthenticateRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: SaslAuthenticateRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> SaslAuthenticateRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: SaslAuthenticateRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
