# Generated from AddPartitionsToTxnRequest.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "AddPartitionsToTxnRequest"
API_KEY = 24
TYPE = "request"
VALID_VERSIONS = (0, 5)
FLEXIBLE_VERSIONS = (3, 5)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_qh = _struct.Struct(">qh")
_S_qhx = _struct.Struct(">qh?")


@dataclass(slots=True)
class AddPartitionsToTxnTopic:
    name: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AddPartitionsToTxnTransaction:
    transactional_id: str = ""
    producer_id: int = 0
    producer_epoch: int = 0
    verify_only: bool = False
    topics: list[AddPartitionsToTxnTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AddPartitionsToTxnRequest:
    transactions: list[AddPartitionsToTxnTransaction] = _field(default_factory=list)
    v3_and_below_transactional_id: str = ""
    v3_and_below_producer_id: int = 0
    v3_and_below_producer_epoch: int = 0
    v3_and_below_topics: list[AddPartitionsToTxnTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AddPartitionsToTxnTopic_v0(r: Reader) -> AddPartitionsToTxnTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    return AddPartitionsToTxnTopic(name=name, partitions=partitions)


def _write_AddPartitionsToTxnTopic_v0(w: Writer, m: AddPartitionsToTxnTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_AddPartitionsToTxnTopic_v3(r: Reader) -> AddPartitionsToTxnTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_AddPartitionsToTxnTopic_v3(w: Writer, m: AddPartitionsToTxnTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_AddPartitionsToTxnTransaction_v4(r: Reader) -> AddPartitionsToTxnTransaction:
    transactional_id = r.compact_string()
    producer_id, producer_epoch, verify_only = r.unpack(_S_qhx)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnRequest.Topics is null")
    topics = [_read_AddPartitionsToTxnTopic_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnTransaction(transactional_id=transactional_id, producer_id=producer_id, producer_epoch=producer_epoch, verify_only=verify_only, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def _write_AddPartitionsToTxnTransaction_v4(w: Writer, m: AddPartitionsToTxnTransaction) -> None:
    write_compact_string(w, m.transactional_id)
    w += _S_qhx.pack(m.producer_id, m.producer_epoch, m.verify_only)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AddPartitionsToTxnTopic_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AddPartitionsToTxnRequest:
    v3_and_below_transactional_id = r.string()
    v3_and_below_producer_id, v3_and_below_producer_epoch = r.unpack(_S_qh)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnRequest.V3AndBelowTopics is null")
    v3_and_below_topics = [_read_AddPartitionsToTxnTopic_v0(r) for _ in range(_n)]
    return AddPartitionsToTxnRequest(v3_and_below_transactional_id=v3_and_below_transactional_id, v3_and_below_producer_id=v3_and_below_producer_id, v3_and_below_producer_epoch=v3_and_below_producer_epoch, v3_and_below_topics=v3_and_below_topics)


def write_v0(w: Writer, m: AddPartitionsToTxnRequest) -> None:
    write_string(w, m.v3_and_below_transactional_id)
    w += _S_qh.pack(m.v3_and_below_producer_id, m.v3_and_below_producer_epoch)
    _v = m.v3_and_below_topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AddPartitionsToTxnTopic_v0(w, _e)


def read_v3(r: Reader) -> AddPartitionsToTxnRequest:
    v3_and_below_transactional_id = r.compact_string()
    v3_and_below_producer_id, v3_and_below_producer_epoch = r.unpack(_S_qh)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnRequest.V3AndBelowTopics is null")
    v3_and_below_topics = [_read_AddPartitionsToTxnTopic_v3(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnRequest(v3_and_below_transactional_id=v3_and_below_transactional_id, v3_and_below_producer_id=v3_and_below_producer_id, v3_and_below_producer_epoch=v3_and_below_producer_epoch, v3_and_below_topics=v3_and_below_topics, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: AddPartitionsToTxnRequest) -> None:
    write_compact_string(w, m.v3_and_below_transactional_id)
    w += _S_qh.pack(m.v3_and_below_producer_id, m.v3_and_below_producer_epoch)
    _v = m.v3_and_below_topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AddPartitionsToTxnTopic_v3(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v4(r: Reader) -> AddPartitionsToTxnRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AddPartitionsToTxnRequest.Transactions is null")
    transactions = [_read_AddPartitionsToTxnTransaction_v4(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AddPartitionsToTxnRequest(transactions=transactions, unknown_tagged_fields=unknown_tagged_fields)


def write_v4(w: Writer, m: AddPartitionsToTxnRequest) -> None:
    _v = m.transactions
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AddPartitionsToTxnTransaction_v4(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v2 = read_v0
write_v2 = write_v0
read_v5 = read_v4
write_v5 = write_v4

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4, 5: read_v5}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4, 5: write_v5}


def read(r: Reader, version: int) -> AddPartitionsToTxnRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AddPartitionsToTxnRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AddPartitionsToTxnRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AddPartitionsToTxnRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
