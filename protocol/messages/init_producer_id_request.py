# Generated from InitProducerIdRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_nullable_string,
    write_tagged_fields,
)

NAME = "InitProducerIdRequest"
API_KEY = 22
TYPE = "request"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (2, 5)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_iqh = _struct.Struct(">iqh")


@dataclass(slots=True)
class InitProducerIdRequest:
    transactional_id: str | None = ""
    transaction_timeout_ms: int = 0
    producer_id: int = -1
    producer_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> InitProducerIdRequest:
    transactional_id = r.nullable_string()
    transaction_timeout_ms = r.int32()
    return InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=transaction_timeout_ms)


def write_v0(w: Writer, m: InitProducerIdRequest) -> None:
    write_nullable_string(w, m.transactional_id)
    w += _S_i.pack(m.transaction_timeout_ms)


def read_v2(r: Reader) -> InitProducerIdRequest:
    transactional_id = r.compact_nullable_string()
    transaction_timeout_ms = r.int32()
    unknown_tagged_fields = r.tagged_fields()
    return InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=transaction_timeout_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: InitProducerIdRequest) -> None:
    write_compact_nullable_string(w, m.transactional_id)
    w += _S_i.pack(m.transaction_timeout_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v3(r: Reader) -> InitProducerIdRequest:
    transactional_id = r.compact_nullable_string()
    transaction_timeout_ms, producer_id, producer_epoch = r.unpack(_S_iqh)
    unknown_tagged_fields = r.tagged_fields()
    return InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=transaction_timeout_ms, producer_id=producer_id, producer_epoch=producer_epoch, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: InitProducerIdRequest) -> None:
    write_compact_nullable_string(w, m.transactional_id)
    w += _S_iqh.pack(m.transaction_timeout_ms, m.producer_id, m.producer_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v4 = read_v3
write_v4 = write_v3
read_v5 = read_v3
write_v5 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> InitProducerIdRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: InitProducerIdRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> InitProducerIdRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: InitProducerIdRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
