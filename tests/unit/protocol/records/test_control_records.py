"""Transaction markers as control records, byte for byte against batches Apache Kafka 3.9 built
(``tests/fixtures/txn/GenerateTxnFixtures.java``: ``MemoryRecords.withEndTransactionMarker``)."""

from __future__ import annotations

import struct

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import CONTROL_MASK, TRANSACTIONAL_MASK, BatchHeader, crc_is_valid
from protocol.records.control import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
    end_txn_marker_of,
    parse_control_key,
    parse_end_txn_marker,
    read_end_txn_marker,
)
from protocol.records.record import Record, build_batch, decode_batch
from tests.unit.paths import FIXTURES as FIXTURES_ROOT

FIXTURES = FIXTURES_ROOT / "txn"
T0 = 1_700_000_000_000


@pytest.mark.parametrize(("name", "control_type"), [
    ("end_txn_marker_commit.bin", ControlRecordType.COMMIT),
    ("end_txn_marker_abort.bin", ControlRecordType.ABORT),
])
def test_marker_batches_are_kafkas_bytes(name: str, control_type: ControlRecordType) -> None:
    kafkas = (FIXTURES / name).read_bytes()
    ours = build_end_txn_marker_batch(4242, 7, EndTransactionMarker(control_type, 13),
                                      timestamp=T0)
    assert bytes(ours) == kafkas
    header, marker = read_end_txn_marker(kafkas)
    assert marker == EndTransactionMarker(control_type, 13)
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (4242, 7, -1)
    assert header.attributes == TRANSACTIONAL_MASK | CONTROL_MASK
    assert header.partition_leader_epoch == -1 and header.records_count == 1
    assert crc_is_valid(kafkas)


def test_marker_key_and_value_layout() -> None:
    marker = EndTransactionMarker(ControlRecordType.COMMIT, 0x01020304)
    assert marker.key_bytes() == b"\x00\x00\x00\x01"
    assert marker.value_bytes() == b"\x00\x00\x01\x02\x03\x04"
    assert EndTransactionMarker(ControlRecordType.ABORT, 0).key_bytes() == b"\x00\x00\x00\x00"
    assert marker.is_commit and not marker.is_abort


def test_newer_versions_are_read_from_the_front() -> None:
    # a key or value version above 0 is read as version 0 (the fields Kafka knows come first)
    assert parse_control_key(struct.pack(">hh", 3, 1) + b"extra") is ControlRecordType.COMMIT
    assert parse_end_txn_marker(ControlRecordType.ABORT, struct.pack(">hi", 5, 9) + b"x") == \
        EndTransactionMarker(ControlRecordType.ABORT, 9)
    assert parse_control_key(struct.pack(">hh", 0, 99)) is ControlRecordType.UNKNOWN


@pytest.mark.parametrize("key", [None, b"", b"\x00\x00\x00", struct.pack(">hh", -1, 0)])
def test_bad_control_keys_are_corrupt(key: bytes | None) -> None:
    with pytest.raises(KafkaError) as e:
        parse_control_key(key)
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE


@pytest.mark.parametrize("value", [None, b"\x00\x00\x00\x00\x00", struct.pack(">hi", -2, 1)])
def test_bad_marker_values_are_corrupt(value: bytes | None) -> None:
    with pytest.raises(KafkaError) as e:
        parse_end_txn_marker(ControlRecordType.COMMIT, value)
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE


def test_only_commit_and_abort_are_markers() -> None:
    with pytest.raises(ValueError):
        EndTransactionMarker(ControlRecordType.LEADER_CHANGE, 1)
    with pytest.raises(ValueError):
        parse_end_txn_marker(ControlRecordType.LEADER_CHANGE, struct.pack(">hi", 0, 1))
    leader_change = Record(0, T0, struct.pack(">hh", 0, 2), b"whatever")
    assert end_txn_marker_of(leader_change) is None


def test_reading_markers_from_other_batches() -> None:
    data = build_batch([(b"k", b"v")], default_timestamp=T0)
    with pytest.raises(KafkaError) as e:
        read_end_txn_marker(data)
    assert e.value.code == ErrorCode.CORRUPT_MESSAGE
    # a marker batch the cleaner emptied keeps its header and no record
    emptied = build_batch([], producer_id=5, producer_epoch=1, is_transactional=True,
                          is_control=True, last_offset_delta=0, default_timestamp=T0)
    header, marker = read_end_txn_marker(emptied)
    assert marker is None and header.is_control and header.producer_id == 5


def test_marker_batch_at_an_offset_with_a_leader_epoch() -> None:
    batch = build_end_txn_marker_batch(1, 2, EndTransactionMarker(ControlRecordType.ABORT, 3),
                                       timestamp=T0, base_offset=500, partition_leader_epoch=4)
    header = BatchHeader.parse(batch)
    assert (header.base_offset, header.last_offset, header.partition_leader_epoch) == (500, 500, 4)
    _, [record] = decode_batch(batch)
    assert record.offset == 500 and record.timestamp == T0 and record.headers == []
