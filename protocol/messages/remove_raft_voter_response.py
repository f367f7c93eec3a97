# Generated from RemoveRaftVoterResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_nullable_string,
    write_tagged_fields,
)

NAME = "RemoveRaftVoterResponse"
API_KEY = 81
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class RemoveRaftVoterResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> RemoveRaftVoterResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return RemoveRaftVoterResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: RemoveRaftVoterResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> RemoveRaftVoterResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: RemoveRaftVoterResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> RemoveRaftVoterResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: RemoveRaftVoterResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
