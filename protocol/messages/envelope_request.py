# Generated from EnvelopeRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_bytes,
    write_compact_nullable_bytes,
    write_tagged_fields,
)

NAME = "EnvelopeRequest"
API_KEY = 58
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("controller", "zkBroker")
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class EnvelopeRequest:
    request_data: bytes = b""
    request_principal: bytes | None = b""
    client_host_address: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> EnvelopeRequest:
    request_data = r.compact_bytes()
    request_principal = r.compact_nullable_bytes()
    client_host_address = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return EnvelopeRequest(request_data=request_data, request_principal=request_principal, client_host_address=client_host_address, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: EnvelopeRequest) -> None:
    write_compact_bytes(w, m.request_data)
    write_compact_nullable_bytes(w, m.request_principal)
    write_compact_bytes(w, m.client_host_address)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> EnvelopeRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: EnvelopeRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> EnvelopeRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: EnvelopeRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
