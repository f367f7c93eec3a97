# Generated from ListTransactionsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "ListTransactionsResponse"
API_KEY = 66
TYPE = "response"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_ih = _struct.Struct(">ih")
_S_q = _struct.Struct(">q")


@dataclass(slots=True)
class TransactionState:
    transactional_id: str = ""
    producer_id: int = 0
    transaction_state: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ListTransactionsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    unknown_state_filters: list[str] = _field(default_factory=list)
    transaction_states: list[TransactionState] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TransactionState_v0(r: Reader) -> TransactionState:
    transactional_id = r.compact_string()
    producer_id = r.int64()
    transaction_state = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return TransactionState(transactional_id=transactional_id, producer_id=producer_id, transaction_state=transaction_state, unknown_tagged_fields=unknown_tagged_fields)


def _write_TransactionState_v0(w: Writer, m: TransactionState) -> None:
    write_compact_string(w, m.transactional_id)
    w += _S_q.pack(m.producer_id)
    write_compact_string(w, m.transaction_state)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ListTransactionsResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListTransactionsResponse.UnknownStateFilters is null")
    unknown_state_filters = [r.compact_string() for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ListTransactionsResponse.TransactionStates is null")
    transaction_states = [_read_TransactionState_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ListTransactionsResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, unknown_state_filters=unknown_state_filters, transaction_states=transaction_states, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: ListTransactionsResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.unknown_state_filters
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    _v = m.transaction_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TransactionState_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> ListTransactionsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ListTransactionsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ListTransactionsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ListTransactionsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
