# Generated from ControlledShutdownRequest.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ControlledShutdownRequest"
API_KEY = 7
TYPE = "request"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (3, 3)
LISTENERS = ("zkBroker", "controller")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iq = _struct.Struct(">iq")


@dataclass(slots=True)
class ControlledShutdownRequest:
    broker_id: int = 0
    broker_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ControlledShutdownRequest:
    broker_id = r.int32()
    return ControlledShutdownRequest(broker_id=broker_id)


def write_v0(w: Writer, m: ControlledShutdownRequest) -> None:
    w += _S_i.pack(m.broker_id)


def read_v2(r: Reader) -> ControlledShutdownRequest:
    broker_id, broker_epoch = r.unpack(_S_iq)
    return ControlledShutdownRequest(broker_id=broker_id, broker_epoch=broker_epoch)


def write_v2(w: Writer, m: ControlledShutdownRequest) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)


def read_v3(r: Reader) -> ControlledShutdownRequest:
    broker_id, broker_epoch = r.unpack(_S_iq)
    unknown_tagged_fields = r.tagged_fields()
    return ControlledShutdownRequest(broker_id=broker_id, broker_epoch=broker_epoch, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: ControlledShutdownRequest) -> None:
    w += _S_iq.pack(m.broker_id, m.broker_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> ControlledShutdownRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ControlledShutdownRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ControlledShutdownRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ControlledShutdownRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
