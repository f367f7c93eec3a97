# Generated from ListTransactionsRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_fixed_array,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ListTransactionsRequest"
API_KEY = 66
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_q = _struct.Struct(">q")


@dataclass(slots=True)
class ListTransactionsRequest:
    state_filters: list[str] = _field(default_factory=list)
    producer_id_filters: list[int] = _field(default_factory=list)
    duration_filter: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> ListTransactionsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListTransactionsRequest.StateFilters is null")
    state_filters = [r.compact_string() for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListTransactionsRequest.ProducerIdFilters is null")
    producer_id_filters = r.fixed_array("q", _n)
    unknown_tagged_fields = r.tagged_fields()
    return ListTransactionsRequest(state_filters=state_filters, producer_id_filters=producer_id_filters, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ListTransactionsRequest) -> None:
    _v = m.state_filters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    _v = m.producer_id_filters
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "q", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> ListTransactionsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListTransactionsRequest.StateFilters is null")
    state_filters = [r.compact_string() for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListTransactionsRequest.ProducerIdFilters is null")
    producer_id_filters = r.fixed_array("q", _n)
    duration_filter = r.int64()
    unknown_tagged_fields = r.tagged_fields()
    return ListTransactionsRequest(state_filters=state_filters, producer_id_filters=producer_id_filters, duration_filter=duration_filter, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: ListTransactionsRequest) -> None:
    _v = m.state_filters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    _v = m.producer_id_filters
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "q", _v)
    w += _S_q.pack(m.duration_filter)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> ListTransactionsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListTransactionsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListTransactionsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListTransactionsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
