# Generated from ListClientMetricsResourcesResponse.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ListClientMetricsResourcesResponse"
API_KEY = 74
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class ClientMetricsResource:
    name: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListClientMetricsResourcesResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    client_metrics_resources: list[ClientMetricsResource] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_ClientMetricsResource_v0(r: Reader) -> ClientMetricsResource:
    name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return ClientMetricsResource(name=name, unknown_tagged_fields=unknown_tagged_fields)


def _write_ClientMetricsResource_v0(w: Writer, m: ClientMetricsResource) -> None:
    write_compact_string(w, m.name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ListClientMetricsResourcesResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListClientMetricsResourcesResponse.ClientMetricsResources is null")
    client_metrics_resources = [_read_ClientMetricsResource_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListClientMetricsResourcesResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, client_metrics_resources=client_metrics_resources, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ListClientMetricsResourcesResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.client_metrics_resources
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ClientMetricsResource_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ListClientMetricsResourcesResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListClientMetricsResourcesResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListClientMetricsResourcesResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListClientMetricsResourcesResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
