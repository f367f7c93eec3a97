# Generated from BrokerRegistrationResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "BrokerRegistrationResponse"
API_KEY = 62
TYPE = "response"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (0, 4)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ihq = _struct.Struct(">ihq")


@dataclass(slots=True)
class BrokerRegistrationResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    broker_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> BrokerRegistrationResponse:
    throttle_time_ms, error_code, broker_epoch = r.unpack(_S_ihq)
    unknown_tagged_fields = r.tagged_fields()
    return BrokerRegistrationResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, broker_epoch=broker_epoch, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: BrokerRegistrationResponse) -> None:
    w += _S_ihq.pack(m.throttle_time_ms, m.error_code, m.broker_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v3 = read_v0
write_v3 = write_v0
read_v4 = read_v0
write_v4 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> BrokerRegistrationResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: BrokerRegistrationResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> BrokerRegistrationResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: BrokerRegistrationResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
