# Generated from SaslHandshakeRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_string,
)

NAME = "SaslHandshakeRequest"
API_KEY = 17
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = None
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class SaslHandshakeRequest:
    mechanism: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> SaslHandshakeRequest:
    mechanism = r.string()
    return SaslHandshakeRequest(mechanism=mechanism)


def write_v0(w: Writer, m: SaslHandshakeRequest) -> None:
    write_string(w, m.mechanism)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> SaslHandshakeRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: SaslHandshakeRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> SaslHandshakeRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: SaslHandshakeRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
