# Generated from BrokerHeartbeatResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "BrokerHeartbeatResponse"
API_KEY = 63
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ihxxx = _struct.Struct(">ih???")


@dataclass(slots=True)
class BrokerHeartbeatResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    is_caught_up: bool = False
    is_fenced: bool = True
    should_shut_down: bool = False
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> BrokerHeartbeatResponse:
    throttle_time_ms, error_code, is_caught_up, is_fenced, should_shut_down = r.unpack(_S_ihxxx)
    unknown_tagged_fields = r.tagged_fields()
    return BrokerHeartbeatResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, is_caught_up=is_caught_up, is_fenced=is_fenced, should_shut_down=should_shut_down, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: BrokerHeartbeatResponse) -> None:
    w += _S_ihxxx.pack(m.throttle_time_ms, m.error_code, m.is_caught_up, m.is_fenced, m.should_shut_down)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> BrokerHeartbeatResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: BrokerHeartbeatResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> BrokerHeartbeatResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: BrokerHeartbeatResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
