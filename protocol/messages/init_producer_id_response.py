# Generated from InitProducerIdResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "InitProducerIdResponse"
API_KEY = 22
TYPE = "response"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (2, 5)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ihqh = _struct.Struct(">ihqh")


@dataclass(slots=True)
class InitProducerIdResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    producer_id: int = -1
    producer_epoch: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> InitProducerIdResponse:
    throttle_time_ms, error_code, producer_id, producer_epoch = r.unpack(_S_ihqh)
    return InitProducerIdResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, producer_id=producer_id, producer_epoch=producer_epoch)


def write_v0(w: Writer, m: InitProducerIdResponse) -> None:
    w += _S_ihqh.pack(m.throttle_time_ms, m.error_code, m.producer_id, m.producer_epoch)


def read_v2(r: Reader) -> InitProducerIdResponse:
    throttle_time_ms, error_code, producer_id, producer_epoch = r.unpack(_S_ihqh)
    unknown_tagged_fields = r.tagged_fields()
    return InitProducerIdResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, producer_id=producer_id, producer_epoch=producer_epoch, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: InitProducerIdResponse) -> None:
    w += _S_ihqh.pack(m.throttle_time_ms, m.error_code, m.producer_id, m.producer_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v3 = read_v2
write_v3 = write_v2
read_v4 = read_v2
write_v4 = write_v2
read_v5 = read_v2
write_v5 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> InitProducerIdResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: InitProducerIdResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> InitProducerIdResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: InitProducerIdResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
