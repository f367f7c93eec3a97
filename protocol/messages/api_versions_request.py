# Generated from ApiVersionsRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_string,
    write_tagged_fields,
)

NAME = "ApiVersionsRequest"
API_KEY = 18
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (3, 4)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class ApiVersionsRequest:
    client_software_name: str = ""
    client_software_version: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ApiVersionsRequest:
    return ApiVersionsRequest()


def write_v0(w: Writer, m: ApiVersionsRequest) -> None:
    pass


def read_v3(r: Reader) -> ApiVersionsRequest:
    client_software_name = r.compact_string()
    client_software_version = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return ApiVersionsRequest(client_software_name=client_software_name, client_software_version=client_software_version, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: ApiVersionsRequest) -> None:
    write_compact_string(w, m.client_software_name)
    write_compact_string(w, m.client_software_version)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v4 = read_v3
write_v4 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> ApiVersionsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ApiVersionsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ApiVersionsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ApiVersionsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
