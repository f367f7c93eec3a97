# Generated from UnregisterBrokerRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_tagged_fields,
)

NAME = "UnregisterBrokerRequest"
API_KEY = 64
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class UnregisterBrokerRequest:
    broker_id: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> UnregisterBrokerRequest:
    broker_id = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return UnregisterBrokerRequest(broker_id=broker_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: UnregisterBrokerRequest) -> None:
    w += _S_i.pack(m.broker_id)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> UnregisterBrokerRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: UnregisterBrokerRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> UnregisterBrokerRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: UnregisterBrokerRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
