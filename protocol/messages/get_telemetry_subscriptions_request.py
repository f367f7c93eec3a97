# Generated from GetTelemetrySubscriptionsRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    ZERO_UUID,
    decode_message,
    encode_message,
    write_tagged_fields,
)

NAME = "GetTelemetrySubscriptionsRequest"
API_KEY = 71
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class GetTelemetrySubscriptionsRequest:
    client_instance_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> GetTelemetrySubscriptionsRequest:
    client_instance_id = r.uuid()
    unknown_tagged_fields = r.tagged_fields()
    return GetTelemetrySubscriptionsRequest(client_instance_id=client_instance_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: GetTelemetrySubscriptionsRequest) -> None:
    w += m.client_instance_id.bytes
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> GetTelemetrySubscriptionsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: GetTelemetrySubscriptionsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> GetTelemetrySubscriptionsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: GetTelemetrySubscriptionsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
