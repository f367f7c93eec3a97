# Generated from GetTelemetrySubscriptionsResponse.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    ZERO_UUID,
    decode_message,
    encode_message,
    write_compact_string,
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "GetTelemetrySubscriptionsResponse"
API_KEY = 71
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")
_S_iix = _struct.Struct(">ii?")


@dataclass(slots=True)
class GetTelemetrySubscriptionsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    client_instance_id: uuid.UUID = ZERO_UUID
    subscription_id: int = 0
    accepted_compression_types: list[int] = _field(default_factory=list)
    push_interval_ms: int = 0
    telemetry_max_bytes: int = 0
    delta_temporality: bool = False
    requested_metrics: list[str] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> GetTelemetrySubscriptionsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    client_instance_id = r.uuid()
    subscription_id = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array GetTelemetrySubscriptionsResponse.AcceptedCompressionTypes is null")
    accepted_compression_types = r.fixed_array("b", _n)
    push_interval_ms, telemetry_max_bytes, delta_temporality = r.unpack(_S_iix)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array GetTelemetrySubscriptionsResponse.RequestedMetrics is null")
    requested_metrics = [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return GetTelemetrySubscriptionsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, client_instance_id=client_instance_id, subscription_id=subscription_id, accepted_compression_types=accepted_compression_types, push_interval_ms=push_interval_ms, telemetry_max_bytes=telemetry_max_bytes, delta_temporality=delta_temporality, requested_metrics=requested_metrics, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: GetTelemetrySubscriptionsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    w += m.client_instance_id.bytes
    w += _S_i.pack(m.subscription_id)
    _v = m.accepted_compression_types
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "b", _v)
    w += _S_iix.pack(m.push_interval_ms, m.telemetry_max_bytes, m.delta_temporality)
    _v = m.requested_metrics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> GetTelemetrySubscriptionsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: GetTelemetrySubscriptionsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> GetTelemetrySubscriptionsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: GetTelemetrySubscriptionsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
