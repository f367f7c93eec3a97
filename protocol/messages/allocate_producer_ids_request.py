# Generated from AllocateProducerIdsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "AllocateProducerIdsRequest"
API_KEY = 67
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("zkBroker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_iq = _struct.Struct(">iq")


@dataclass(slots=True)
class AllocateProducerIdsRequest:
    broker_id: int = 0
    broker_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> AllocateProducerIdsRequest:
    broker_id, broker_epoch = r.unpack(_S_iq)
    unknown_tagged_fields = r.tagged_fields()
    return AllocateProducerIdsRequest(broker_id=broker_id, broker_epoch=broker_epoch, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: AllocateProducerIdsRequest) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> AllocateProducerIdsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AllocateProducerIdsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AllocateProducerIdsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AllocateProducerIdsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
