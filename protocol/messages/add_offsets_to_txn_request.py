# Generated from AddOffsetsToTxnRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_string,
    write_string,
    write_tagged_fields,
)

NAME = "AddOffsetsToTxnRequest"
API_KEY = 25
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (3, 4)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_qh = _struct.Struct(">qh")


@dataclass(slots=True)
class AddOffsetsToTxnRequest:
    transactional_id: str = ""
    producer_id: int = 0
    producer_epoch: int = 0
    group_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> AddOffsetsToTxnRequest:
    transactional_id = r.string()
    producer_id, producer_epoch = r.unpack(_S_qh)
    group_id = r.string()
    return AddOffsetsToTxnRequest(transactional_id=transactional_id, producer_id=producer_id, producer_epoch=producer_epoch, group_id=group_id)


def write_v0(w: Writer, m: AddOffsetsToTxnRequest) -> None:
    write_string(w, m.transactional_id)
    w += _S_qh.pack(m.producer_id, m.producer_epoch)
    write_string(w, m.group_id)


def read_v3(r: Reader) -> AddOffsetsToTxnRequest:
    transactional_id = r.compact_string()
    producer_id, producer_epoch = r.unpack(_S_qh)
    group_id = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return AddOffsetsToTxnRequest(transactional_id=transactional_id, producer_id=producer_id, producer_epoch=producer_epoch, group_id=group_id, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: AddOffsetsToTxnRequest) -> None:
    write_compact_string(w, m.transactional_id)
    w += _S_qh.pack(m.producer_id, m.producer_epoch)
    write_compact_string(w, m.group_id)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v4 = read_v3
write_v4 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> AddOffsetsToTxnRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AddOffsetsToTxnRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AddOffsetsToTxnRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AddOffsetsToTxnRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
