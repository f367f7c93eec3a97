# Generated from AllocateProducerIdsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "AllocateProducerIdsResponse"
API_KEY = 67
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ihqi = _struct.Struct(">ihqi")


@dataclass(slots=True)
class AllocateProducerIdsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    producer_id_start: int = 0
    producer_id_len: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> AllocateProducerIdsResponse:
    throttle_time_ms, error_code, producer_id_start, producer_id_len = r.unpack(_S_ihqi)
    unknown_tagged_fields = r.tagged_fields()
    return AllocateProducerIdsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, producer_id_start=producer_id_start, producer_id_len=producer_id_len, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AllocateProducerIdsResponse) -> None:
    w += _S_ihqi.pack(m.throttle_time_ms, m.error_code, m.producer_id_start, m.producer_id_len)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> AllocateProducerIdsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AllocateProducerIdsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AllocateProducerIdsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AllocateProducerIdsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
