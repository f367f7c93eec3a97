# Generated from TransactionLogValue.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_array_length,
    write_compact_array_length,
    write_compact_string,
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "TransactionLogValue"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (1, 1)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_qhib = _struct.Struct(">qhib")
_S_qq = _struct.Struct(">qq")


@dataclass(slots=True)
class PartitionsSchema:
    topic: str = ""
    partition_ids: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class TransactionLogValue:
    producer_id: int = 0
    producer_epoch: int = 0
    transaction_timeout_ms: int = 0
    transaction_status: int = 0
    transaction_partitions: list[PartitionsSchema] | None = _field(default_factory=list)
    transaction_last_update_timestamp_ms: int = 0
    transaction_start_timestamp_ms: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionsSchema_v0(r: Reader) -> PartitionsSchema:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TransactionLogValue.PartitionIds is null")
    partition_ids = r.fixed_array("i", _n)
    return PartitionsSchema(topic=topic, partition_ids=partition_ids)


def _write_PartitionsSchema_v0(w: Writer, m: PartitionsSchema) -> None:
    write_string(w, m.topic)
    _v = m.partition_ids
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_PartitionsSchema_v1(r: Reader) -> PartitionsSchema:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array TransactionLogValue.PartitionIds is null")
    partition_ids = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return PartitionsSchema(topic=topic, partition_ids=partition_ids, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionsSchema_v1(w: Writer, m: PartitionsSchema) -> None:
    write_compact_string(w, m.topic)
    _v = m.partition_ids
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> TransactionLogValue:
    producer_id, producer_epoch, transaction_timeout_ms, transaction_status = r.unpack(_S_qhib)
    _n = r.array_length()
    transaction_partitions = None if _n < 0 else [_read_PartitionsSchema_v0(r) for _ in range(_n)]
    transaction_last_update_timestamp_ms, transaction_start_timestamp_ms = r.unpack(_S_qq)
    return TransactionLogValue(producer_id=producer_id, producer_epoch=producer_epoch, transaction_timeout_ms=transaction_timeout_ms, transaction_status=transaction_status, transaction_partitions=transaction_partitions, transaction_last_update_timestamp_ms=transaction_last_update_timestamp_ms, transaction_start_timestamp_ms=transaction_start_timestamp_ms)


def write_v0(w: Writer, m: TransactionLogValue) -> None:
    w += _S_qhib.pack(m.producer_id, m.producer_epoch, m.transaction_timeout_ms, m.transaction_status)
    _v = m.transaction_partitions
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_PartitionsSchema_v0(w, _e)
    w += _S_qq.pack(m.transaction_last_update_timestamp_ms, m.transaction_start_timestamp_ms)


def read_v1(r: Reader) -> TransactionLogValue:
    producer_id, producer_epoch, transaction_timeout_ms, transaction_status = r.unpack(_S_qhib)
    _n = r.compact_array_length()
    transaction_partitions = None if _n < 0 else [_read_PartitionsSchema_v1(r) for _ in range(_n)]
    transaction_last_update_timestamp_ms, transaction_start_timestamp_ms = r.unpack(_S_qq)
    unknown_tagged_fields = r.tagged_fields()
    return TransactionLogValue(producer_id=producer_id, producer_epoch=producer_epoch, transaction_timeout_ms=transaction_timeout_ms, transaction_status=transaction_status, transaction_partitions=transaction_partitions, transaction_last_update_timestamp_ms=transaction_last_update_timestamp_ms, transaction_start_timestamp_ms=transaction_start_timestamp_ms, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: TransactionLogValue) -> None:
    w += _S_qhib.pack(m.producer_id, m.producer_epoch, m.transaction_timeout_ms, m.transaction_status)
    _v = m.transaction_partitions
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_PartitionsSchema_v1(w, _e)
    w += _S_qq.pack(m.transaction_last_update_timestamp_ms, m.transaction_start_timestamp_ms)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> TransactionLogValue:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: TransactionLogValue, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> TransactionLogValue:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: TransactionLogValue, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
