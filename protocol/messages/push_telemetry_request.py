# Generated from PushTelemetryRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    ZERO_UUID,
    decode_message,
    encode_message,
    write_compact_bytes,
    write_tagged_fields,
)

NAME = "PushTelemetryRequest"
API_KEY = 72
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = False

_S_ixb = _struct.Struct(">i?b")


@dataclass(slots=True)
class PushTelemetryRequest:
    client_instance_id: uuid.UUID = ZERO_UUID
    subscription_id: int = 0
    terminating: bool = False
    compression_type: int = 0
    metrics: bytes = b""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> PushTelemetryRequest:
    client_instance_id = r.uuid()
    subscription_id, terminating, compression_type = r.unpack(_S_ixb)
    metrics = r.compact_bytes()
    unknown_tagged_fields = r.tagged_fields()
    return PushTelemetryRequest(client_instance_id=client_instance_id, subscription_id=subscription_id, terminating=terminating, compression_type=compression_type, metrics=metrics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: PushTelemetryRequest) -> None:
    w += m.client_instance_id.bytes
    w += _S_ixb.pack(m.subscription_id, m.terminating, m.compression_type)
    write_compact_bytes(w, m.metrics)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> PushTelemetryRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: PushTelemetryRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> PushTelemetryRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: PushTelemetryRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
