# Generated from DescribeTransactionsResponse.json (Apache Kafka 3.9) by protocol.codegen.
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

NAME = "DescribeTransactionsResponse"
API_KEY = 65
TYPE = "response"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_h = _struct.Struct(">h")
_S_i = _struct.Struct(">i")
_S_iqqh = _struct.Struct(">iqqh")


@dataclass(slots=True)
class TopicData:
    topic: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TransactionState:
    error_code: int = 0
    transactional_id: str = ""
    transaction_state: str = ""
    transaction_timeout_ms: int = 0
    transaction_start_time_ms: int = 0
    producer_id: int = 0
    producer_epoch: int = 0
    topics: list[TopicData] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeTransactionsResponse:
    throttle_time_ms: int = 0
    transaction_states: list[TransactionState] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_TopicData_v0(r: Reader) -> TopicData:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTransactionsResponse.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return TopicData(topic=topic, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_TopicData_v0(w: Writer, m: TopicData) -> None:
    write_compact_string(w, m.topic)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_TransactionState_v0(r: Reader) -> TransactionState:
    error_code = r.int16()
    transactional_id = r.compact_string()
    transaction_state = r.compact_string()
    transaction_timeout_ms, transaction_start_time_ms, producer_id, producer_epoch = r.unpack(_S_iqqh)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTransactionsResponse.Topics is null")
    topics = [_read_TopicData_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return TransactionState(error_code=error_code, transactional_id=transactional_id, transaction_state=transaction_state, transaction_timeout_ms=transaction_timeout_ms, transaction_start_time_ms=transaction_start_time_ms, producer_id=producer_id, producer_epoch=producer_epoch, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def _write_TransactionState_v0(w: Writer, m: TransactionState) -> None:
    w += _S_h.pack(m.error_code)
    write_compact_string(w, m.transactional_id)
    write_compact_string(w, m.transaction_state)
    w += _S_iqqh.pack(m.transaction_timeout_ms, m.transaction_start_time_ms, m.producer_id, m.producer_epoch)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TopicData_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeTransactionsResponse:
    throttle_time_ms = r.int32()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTransactionsResponse.TransactionStates is null")
    transaction_states = [_read_TransactionState_v0(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeTransactionsResponse(throttle_time_ms=throttle_time_ms, transaction_states=transaction_states, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeTransactionsResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.transaction_states
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_TransactionState_v0(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DescribeTransactionsResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeTransactionsResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeTransactionsResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeTransactionsResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
