# Generated from RemoveRaftVoterRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_nullable_string,
    write_tagged_fields,
)

NAME = "RemoveRaftVoterRequest"
API_KEY = 81
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("controller", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class RemoveRaftVoterRequest:
    cluster_id: str | None = ""
    voter_id: int = 0
    voter_directory_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> RemoveRaftVoterRequest:
    cluster_id = r.compact_nullable_string()
    voter_id = r.int32()
    voter_directory_id = r.uuid()
    unknown_tagged_fields = r.tagged_fields()
    return RemoveRaftVoterRequest(cluster_id=cluster_id, voter_id=voter_id, voter_directory_id=voter_directory_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: RemoveRaftVoterRequest) -> None:
    write_compact_nullable_string(w, m.cluster_id)
    w += _S_i.pack(m.voter_id)
    w += m.voter_directory_id.bytes
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> RemoveRaftVoterRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: RemoveRaftVoterRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> RemoveRaftVoterRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: RemoveRaftVoterRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
