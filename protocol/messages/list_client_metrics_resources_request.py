# Generated from ListClientMetricsResourcesRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_tagged_fields,
)

NAME = "ListClientMetricsResourcesRequest"
API_KEY = 74
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("broker",)
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ListClientMetricsResourcesRequest:
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ListClientMetricsResourcesRequest:
    unknown_tagged_fields = r.tagged_fields()
    return ListClientMetricsResourcesRequest(unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ListClientMetricsResourcesRequest) -> None:
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> ListClientMetricsResourcesRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListClientMetricsResourcesRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListClientMetricsResourcesRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListClientMetricsResourcesRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
